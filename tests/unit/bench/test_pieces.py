"""bench/pieces.py's accounting of padding and of the pipeline's embed calls."""

from bench.pieces import _groups, _padding


def test_padding_is_counted_within_length_sorted_batches() -> None:
    # Sorted: [10, 9 | 3, 1] -> pads 1, then 2.
    assert _padding([3, 10, 1, 9], 2) == 3
    assert _padding([5, 5, 5], 4) == 0


def test_small_files_are_gathered_into_calls_and_big_ones_cut() -> None:
    assert _groups([[1] * 3, [1] * 3, [1] * 3], 5) == [[1] * 6, [1] * 3]
    big = _groups([[1] * 600], 1)
    assert [len(c) for c in big] == [256, 256, 88]
