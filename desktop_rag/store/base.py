"""What a reader of passages may ask of a store: the `Store` Protocol, and `READS`, its names.

Three stores answer it: this desktop's index (`lance.LanceStore`), a team library on object
storage (`remote.RemoteStore`, every read of `READS` bounded by its deadline in one place),
and both of them searched together (`desktop_rag/team.py`'s `BothStores`). The retriever, the
answer service and the outlines read a store through this Protocol only; writes (`commit`,
`fill_vectors`, `remove`) are the ingest pipeline's and belong to LanceStore alone.

A read added to LanceStore that readers should use is added here too: it is then bounded on a
team library and summed or forwarded by BothStores (tests/unit/test_store_base.py checks both).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from desktop_rag.types import Chunk, DocumentRecord, Hit


class Store(Protocol):
    """The reads of an index of passages (LanceStore's docstrings say what each returns)."""

    def documents(self) -> list[DocumentRecord]: ...

    def count_chunks(self, where: str | None = None) -> int: ...

    def chunk_rows(self, doc_id: str) -> list[dict[str, Any]]: ...

    def vector_search(
        self,
        vector: NDArray[np.float32],
        k: int,
        *,
        exact: bool = False,
        where: str | None = None,
    ) -> list[Hit]: ...

    def text_search(self, query: str, k: int, where: str | None = None) -> list[Hit]: ...

    def text_search_vectors(
        self, query: str, k: int, where: str | None = None
    ) -> tuple[list[Hit], NDArray[np.float32]]: ...

    def term_frequency(self, term: str, cap: int) -> int: ...

    def mentions(self, words: str, fuzziness: int = 0) -> bool: ...

    def chunks_holding(self, term: str, chunk_ids: Sequence[str]) -> set[str]: ...

    def page_text(self, path: str, page: int) -> str: ...

    def page_boxes(self, path: str, page: int) -> list[str]: ...

    def sections(self) -> list[tuple[str, str]]: ...

    def count_pending(self) -> int: ...

    def pending_chunks(self, limit: int) -> list[Chunk]: ...

    def chunk_counts(self) -> dict[str, int]: ...

    def has_fts_index(self) -> bool: ...

    def has_section_index(self) -> bool: ...

    def stats(self) -> dict[str, Any]: ...


# The Protocol's reads by name, in its order: what RemoteStore bounds and BothStores answers.
READS: tuple[str, ...] = tuple(
    name for name in Store.__dict__ if not name.startswith("_") and callable(Store.__dict__[name])
)
