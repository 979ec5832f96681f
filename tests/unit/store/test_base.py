"""The Store Protocol (desktop_rag/store/base.py) is what its three stores answer: LanceStore
with the same parameters, RemoteStore with every read bounded by its deadline, and
team.BothStores with a method of its own for each (never a forwarding __getattr__)."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from desktop_rag.store.base import READS, Store
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.remote import RemoteStore
from desktop_rag.team import BothStores

# LanceStore's public methods that are not reads of a passage reader: opening, the pipeline's
# writes and the upkeep's. A method added to LanceStore is one or the other, said here or in
# the Protocol.
NOT_READS = {
    "open", "open_as_built", "chunk_table", "commit", "fill_vectors", "remove", "cache_bytes",
    "write_lock", "chunks_table", "documents_table", "needs_indexes", "has_grams_index",
    "has_stems_index", "languages",
}  # fmt: skip


def _public_methods(cls: type) -> set[str]:
    return {
        name
        for name, value in inspect.getmembers(cls)
        if not name.startswith("_") and (inspect.isfunction(value) or inspect.ismethod(value))
    }


def test_the_protocol_names_its_reads() -> None:
    assert "documents" in READS and "sections" in READS and "stats" in READS
    assert "commit" not in READS and "open" not in READS


@pytest.mark.parametrize("name", READS)
def test_lance_store_reads_as_the_protocol_says(name: str) -> None:
    protocol = list(inspect.signature(getattr(Store, name)).parameters)
    lance = list(inspect.signature(getattr(LanceStore, name)).parameters)
    assert lance == protocol


def test_every_public_method_of_lance_store_is_a_read_or_said_not_to_be() -> None:
    unsaid = _public_methods(LanceStore) - set(READS) - NOT_READS
    assert not unsaid, f"add {sorted(unsaid)} to store/base.py's Store or to NOT_READS"


@pytest.mark.parametrize("name", READS)
def test_every_read_of_a_team_library_waits_at_most_its_deadline(name: str) -> None:
    """Each read goes through RemoteStore._read, which bounds it; none reaches LanceDB here."""
    store = object.__new__(RemoteStore)
    bounded: list[Any] = []

    def read(what: Any) -> str:
        bounded.append(what)
        return "bounded"

    store._read = read  # type: ignore[method-assign]
    args: tuple[Any, ...] = (None, 1) if name == "vector_search" else ()
    assert getattr(store, name)(*args) == "bounded"
    assert len(bounded) == 1


def test_a_bounded_read_keeps_the_name_and_help_of_lance_stores() -> None:
    assert RemoteStore.sections.__doc__ == LanceStore.sections.__doc__
    assert RemoteStore.sections.__name__ == "sections"


@pytest.mark.parametrize("name", READS)
def test_both_stores_answers_every_read_itself(name: str) -> None:
    assert name in BothStores.__dict__, f"BothStores.{name} is missing"
    assert "__getattr__" not in BothStores.__dict__
    protocol = list(inspect.signature(getattr(Store, name)).parameters)
    assert list(inspect.signature(getattr(BothStores, name)).parameters) == protocol
