"""Batch texts by length, so a batch pads to its own longest text, not the longest of all."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")


def length_batches(lengths: Sequence[int], batch_size: int) -> Iterator[list[int]]:
    """Indices into `lengths`, longest first, cut into batches of at most batch_size.

    Sorting by length before batching means little padding per batch: the attention and
    feed-forward cost of a padded batch is paid for its longest member. Longest first so the
    slowest batch runs early, and an out-of-memory shows at once rather than at the end.
    """
    if batch_size <= 0:
        raise ValueError("batch_size must be positive")
    # A stable sort keeps equal lengths in input order, which makes results reproducible.
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    for start in range(0, len(order), batch_size):
        yield order[start : start + batch_size]


def embed_by_length(
    items: Sequence[T],
    lengths: Sequence[int],
    batch_size: int,
    run: Callable[[list[T]], np.ndarray],
    dim: int,
) -> np.ndarray:
    """Run `run` on length-sorted batches of items and return the rows in the input order."""
    if len(items) != len(lengths):
        raise ValueError("one length per item")
    out = np.zeros((len(items), dim), dtype=np.float32)
    for idx in length_batches(lengths, batch_size):
        rows = run([items[i] for i in idx])
        out[idx] = rows
    return out
