"""Batch texts by length, so a batch pads to its own longest text, not the longest of all."""

from __future__ import annotations

import threading
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
    more_runs: Sequence[Callable[[list[T]], np.ndarray]] = (),
) -> np.ndarray:
    """Run `run` on length-sorted batches of items and return the rows in the input order.

    Each of `more_runs` (for example one more single-threaded session) takes batches on a thread
    of its own, started here so it runs at the caller's CPU and I/O priority; all of them take
    the next batch from one shared list, so none waits while another has several left. The first
    error stops every run and is raised here.
    """
    if len(items) != len(lengths):
        raise ValueError("one length per item")
    out = np.zeros((len(items), dim), dtype=np.float32)
    batches = list(length_batches(lengths, batch_size))
    # No thread is started with no batch left for it.
    runs = [run, *more_runs][: max(1, len(batches))]
    lock = threading.Lock()
    todo = iter(batches)
    errors: list[BaseException] = []

    def work(fn: Callable[[list[T]], np.ndarray]) -> None:
        while True:
            with lock:
                idx = None if errors else next(todo, None)
            if idx is None:
                return
            try:
                rows = fn([items[i] for i in idx])
            except BaseException as exc:  # re-raised in the caller's thread below
                with lock:
                    errors.append(exc)
                return
            out[idx] = rows

    threads = [threading.Thread(target=work, args=(fn,), daemon=True) for fn in runs[1:]]
    for thread in threads:
        thread.start()
    work(runs[0])
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return out
