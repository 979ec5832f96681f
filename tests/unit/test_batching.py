"""Length batching: longest first, bounded batches, and rows back in the caller's order."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_rag.engines.batching import embed_by_length, length_batches


def test_batches_are_sorted_longest_first_and_bounded():
    lengths = [3, 9, 1, 9, 5, 2, 7]
    batches = list(length_batches(lengths, 3))
    assert [len(b) for b in batches] == [3, 3, 1]
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths, reverse=True)
    assert flat[:2] == [1, 3]  # equal lengths keep their input order


def test_embed_by_length_restores_the_input_order():
    texts = ["ccc", "a", "bbbbb", "dd", "eeee"]
    seen_batches: list[list[str]] = []

    def run(batch: list[str]) -> np.ndarray:
        seen_batches.append(batch)
        # Each row encodes its own text, so a misplaced row would show.
        return np.array([[len(t), ord(t[0])] for t in batch], dtype=np.float32)

    out = embed_by_length(texts, [len(t) for t in texts], 2, run, dim=2)
    assert out.dtype == np.float32
    assert out.tolist() == [[len(t), ord(t[0])] for t in texts]
    assert seen_batches == [["bbbbb", "eeee"], ["ccc", "dd"], ["a"]]


def test_padding_work_is_smaller_than_unsorted():
    rng = np.random.default_rng(1)
    lengths = rng.integers(5, 256, size=500).tolist()

    def padded(batches: list[list[int]]) -> int:
        return sum(len(b) * max(lengths[i] for i in b) for b in batches)

    unsorted = [list(range(i, min(i + 32, 500))) for i in range(0, 500, 32)]
    assert padded(list(length_batches(lengths, 32))) < 0.7 * padded(unsorted)


def test_empty_and_bad_arguments():
    assert list(length_batches([], 4)) == []
    assert embed_by_length([], [], 4, lambda b: np.zeros((0, 3)), dim=3).shape == (0, 3)
    with pytest.raises(ValueError):
        list(length_batches([1], 0))
    with pytest.raises(ValueError):
        embed_by_length(["a"], [1, 2], 4, lambda b: np.zeros((len(b), 1)), dim=1)
