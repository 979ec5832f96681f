"""The LanceDB tables (documents, chunks): opening them, and every read and write to them.

Their columns and the index metadata are in store/schema.py.

Keeping the tables healthy (repair, compaction, index building) is in store/maintenance.py,
and the writer lock in store/lock.py.
"""

from __future__ import annotations

import errno
import logging
import threading
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from desktop_rag.errors import IndexDamagedError, IndexMismatchError, StoreError
from desktop_rag.infra import faults
from desktop_rag.languages import ENGLISH, text_language
from desktop_rag.store.grams import cjk_language, grams
from desktop_rag.store.lock import writer
from desktop_rag.store.schema import (
    ADDED_CHUNK_COLUMNS,
    ADDED_DOCUMENT_COLUMNS,
    CHUNK_COLUMNS,
    CHUNK_EXTRAS,
    CHUNKS,
    DOCUMENTS,
    GRAMS,
    HIT_EXTRAS,
    META_FILE,
    PENDING,
    STEMS,
    IndexMeta,
    chunk_from_row,
    chunks_schema,
    documents_schema,
    hit_from_row,
    read_meta,
    write_meta,
)
from desktop_rag.store.stems import question_stems, stems
from desktop_rag.types import Chunk, DocumentRecord, Hit, LanguageMix, Status

if TYPE_CHECKING:
    from numpy.typing import NDArray

log = logging.getLogger(__name__)

# BM25 over a chunk's section heading counts this much beside its text: the heading names what
# the passage is about in a few words, where its text spends many; counted twice it cost
# covid-qa recall@5 on its tuning half (bench/tune/retrieval_tune.py).
SECTION_BOOST = 1.0
FTS_RECHECK_S = 10.0
# LanceDB's default session caches up to 1 GB of table metadata per connection, and each
# commit is a new version whose manifest lists every fragment: over a long index run (one
# commit every few seconds) the cached versions pile up, and the window's memory with them.
# Bounded, the least recently used go first: old versions, never needed again. The index
# cache keeps LanceDB's default: searches of a large library read their indexes from it.
METADATA_CACHE_BYTES = 64 * 2**20
# The texts `languages` reads to tell which language a library's non-English chunks are in:
# a few hundred passages (tens of kilobytes) say it for any library, at the cost of a read.
LANGUAGE_SAMPLE = 400

# Past maintenance.ANN_MIN_ROWS chunks the approximate index answers vector searches.
ANN_EF = 120  # HNSW candidates explored per query, at least k x ANN_REFINE
# Candidates re-ranked by exact distance, per result: a larger factor with a smaller ef kept
# less recall against exact search for little time saved (bench/retrieval_latency.py).
ANN_REFINE = 10
# A search limited to a scope (query/scope.py) filters inside the search: `where` with
# prefilter, so the k best of the scope come back however few rows it holds. The approximate
# index searches with the filter as its mask: at 5,000 files it found the same 10 nearest as an
# exact pass over the scope, in a third of the time (docs/performance.md, "Scopes and document
# lists").


def _sql_list(values: Iterable[str]) -> str:
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


class LanceStore:
    """The index on disk. Writes are serialised; reads always see the last committed state."""

    def __init__(self, path: Path, meta: IndexMeta) -> None:
        self.path = Path(path)
        self.meta = meta
        self._write_lock = threading.Lock()
        self._db: Any = None
        self._session: Any = None
        self._docs: Any = None
        self._chunks: Any = None
        self.has_text_index = False  # set once the full-text index is seen or built
        self._fts_columns: frozenset[str] = frozenset()
        self._fts_seen = 0.0
        self._warned_no_fts = False
        self.section_boost = SECTION_BOOST

    # -- opening -----------------------------------------------------------------------------

    def open(self, verify: bool = True) -> LanceStore:
        """Open or create the index.

        Raises IndexMismatchError if it was built differently (embedder, chunking, format),
        IndexDamagedError if its files cannot be read, StoreError if the folder is unusable.
        Creating, and judging an index damaged, happen under the writer lock, so an index
        another process is creating at this moment is never mistaken for a damaged one.
        """
        tables = self.path / f"{CHUNKS}.lance", self.path / f"{DOCUMENTS}.lance"
        if all(t.exists() for t in tables) and (self.path / META_FILE).exists():
            try:
                return self._open(verify)
            except IndexDamagedError:
                pass  # look again, with no writer half-way through
        with writer(self.path, wait_s=60):
            return self._open(verify)

    def _open(self, verify: bool) -> LanceStore:
        import lancedb

        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"Cannot create the index folder {self.path}: {exc}") from exc
        on_disk = read_meta(self.path)
        has_tables = any((self.path / f"{t}.lance").exists() for t in (DOCUMENTS, CHUNKS))
        if on_disk is None and has_tables:
            raise IndexDamagedError(f"The index in {self.path} has lost its metadata file.")
        changes = "; ".join(self.meta.differences(on_disk)) if on_disk is not None else ""
        if changes:
            raise IndexMismatchError(
                f"The index in {self.path} was built differently ({changes}), so it must be "
                "rebuilt from your documents: run `desktop-rag index --rebuild PATH...` or "
                "accept the rebuild in the window. Your files are not touched.",
                found=on_disk,
            )
        try:
            # Readers in other processes see new commits at once (a cheap manifest check).
            self._session = lancedb.Session(metadata_cache_size_bytes=METADATA_CACHE_BYTES)
            self._db = lancedb.connect(
                self.path, read_consistency_interval=timedelta(0), session=self._session
            )
            existing = set(self._db.list_tables().tables)
            unlisted = [
                t
                for t in (DOCUMENTS, CHUNKS)
                if t not in existing and (self.path / f"{t}.lance").exists()
            ]
            if unlisted:  # its folder is there but LanceDB cannot read a version of it
                raise IndexDamagedError(
                    f"The index in {self.path} is damaged (table {unlisted[0]} is unreadable)."
                )
            if DOCUMENTS in existing:
                self._docs = self._db.open_table(DOCUMENTS)
            else:
                self._docs = self._db.create_table(
                    DOCUMENTS, schema=documents_schema(), exist_ok=True
                )
            if CHUNKS in existing:
                self._chunks = self._db.open_table(CHUNKS)
            else:
                self._chunks = self._db.create_table(
                    CHUNKS, schema=chunks_schema(self.meta.dim), exist_ok=True
                )
            if any(int(t.version) < 1 for t in (self._docs, self._chunks)):
                # LanceDB reads garbled manifests as an empty version 0, never a real one.
                raise IndexDamagedError(
                    f"The index in {self.path} is damaged (its version files are unreadable)."
                )
            if verify:
                # Reads every row of the small table and one column of the large one: a
                # missing or garbled data file shows up here rather than mid-search.
                self.documents()
                self.chunk_counts()
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EROFS):
                raise StoreError(f"The index in {self.path} cannot be used: {exc}") from exc
            raise IndexDamagedError(f"The index in {self.path} is damaged ({exc}).") from exc
        except Exception as exc:
            raise IndexDamagedError(f"The index in {self.path} is damaged ({exc}).") from exc
        if on_disk is None:
            write_meta(self.path, self.meta)
        return self

    @classmethod
    def open_as_built(cls, path: Path) -> LanceStore:
        """Open an index with the metadata it was built with (to read an outdated index)."""
        meta = read_meta(Path(path))
        if meta is None:
            raise IndexDamagedError(f"The index in {path} has lost its metadata file.")
        return cls(path, meta).open()

    # -- reads -------------------------------------------------------------------------------

    def documents(self) -> list[DocumentRecord]:
        rows = self._docs.to_arrow().to_pylist()
        # An index of an earlier format, opened as built, lacks the newer columns.
        return [DocumentRecord(**{k: v for k, v in row.items() if v is not None}) for row in rows]

    def _columns(self, extras: Sequence[str]) -> list[str]:
        """The chunk columns to read: the base ones and those of `extras` this table has."""
        have = set(self._chunks.schema.names)
        return [*CHUNK_COLUMNS, *(c for c in extras if c in have)]

    def count_chunks(self, where: str | None = None) -> int:
        return int(self._chunks.count_rows(where))

    def chunk_table(self, doc_id: str) -> Any:
        """Every chunk of one document as an Arrow table, unordered. Its vectors stay one
        column a caller turns into an array at once: to_pylist() makes them Python floats,
        hundreds of thousands for a long document, in one call that holds the GIL (a 64 ms
        stall of the window for a 306-page filing's outline)."""
        return self._chunks.search().where(f"doc_id = {_sql_list([doc_id])}").limit(None).to_arrow()

    def chunk_rows(self, doc_id: str) -> list[dict[str, Any]]:
        """Every chunk of one document, vector included, in chunk order."""
        rows = (
            self._chunks.search()
            .where(f"doc_id = {_sql_list([doc_id])}")
            .limit(None)
            .to_arrow()
            .to_pylist()
        )
        return sorted(rows, key=lambda r: r["chunk_id"])

    def vector_search(
        self,
        vector: NDArray[np.float32],
        k: int,
        *,
        exact: bool = False,
        where: str | None = None,
    ) -> list[Hit]:
        """The k nearest chunks by cosine; approximate past ANN_MIN_ROWS unless `exact`.
        `where` filters the chunks before the search (a scope): the k nearest of those."""
        if k <= 0:
            return []
        query = (
            self._chunks.search(np.asarray(vector, dtype=np.float32), vector_column_name="vector")
            .distance_type("cosine")
            .select([*self._columns(HIT_EXTRAS), "_distance"])
            .limit(k)
        )
        # Rows stored before their vectors (placeholders) are never among the nearest.
        where = self._with_vectors(where)
        if where:
            query = query.where(where, prefilter=True)
        if exact:
            query = query.bypass_vector_index()
        else:  # ignored while there is no vector index
            # HNSW must explore at least as many candidates as the refine step re-ranks.
            refine = max(1, ANN_REFINE)
            query = query.ef(max(ANN_EF, k * refine)).refine_factor(refine)
        table = query.to_arrow()
        return [
            hit_from_row(row, 1.0 - float(row["_distance"]), 1.0 - float(row["_distance"]))
            for row in table.to_pylist()
        ]

    def _with_vectors(self, where: str | None) -> str | None:
        """`where` limited to the rows whose vector is computed (an index made before rows
        could wait for theirs has none waiting)."""
        if PENDING not in self._chunks.schema.names:
            return where
        return f"({where}) AND {PENDING} = false" if where else f"{PENDING} = false"

    def count_pending(self) -> int:
        """Chunks stored with their text whose vectors are not computed yet."""
        if PENDING not in self._chunks.schema.names:
            return 0
        return int(self._chunks.count_rows(f"{PENDING} = true"))

    def pending_chunks(self, limit: int) -> list[Chunk]:
        """Up to `limit` chunks waiting for their vectors, in the order they were stored (a
        document's chunks together, the documents read first first)."""
        if limit <= 0 or PENDING not in self._chunks.schema.names:
            return []
        table = (
            self._chunks.search()
            .where(f"{PENDING} = true")
            .select(self._columns(CHUNK_EXTRAS))
            .limit(limit)
            .to_arrow()
        )
        return [chunk_from_row(r) for r in table.to_pylist()]

    def text_search(self, query: str, k: int, where: str | None = None) -> list[Hit]:
        """BM25 over chunk text; words only, so user punctuation never reaches a query parser.
        `where` filters the chunks before they are ranked."""
        return self._text_search(query, k, [], where)[0]

    def text_search_vectors(
        self, query: str, k: int, where: str | None = None
    ) -> tuple[list[Hit], NDArray[np.float32]]:
        """As text_search, with each hit's stored vector (one row each), so a caller can say
        how near by meaning a passage found by its words is."""
        hits, rows = self._text_search(query, k, ["vector"], where)
        dim = self.meta.dim
        if not rows:
            return hits, np.zeros((0, dim), dtype=np.float32)
        return hits, np.asarray([r["vector"] for r in rows], dtype=np.float32).reshape(-1, dim)

    def _text_search(
        self, query: str, k: int, extra: list[str], where: str | None = None
    ) -> tuple[list[Hit], list[dict[str, Any]]]:
        terms = " ".join(_fts_terms(query))
        if not terms or k <= 0:
            return [], []
        if not self.has_fts_index():
            # Only a writer builds indexes (the next indexing run does): a reader building
            # one would race the writer that holds the index.
            if not self._warned_no_fts:
                self._warned_no_fts = True
                log.warning(
                    "the index has no full-text index yet; searching by meaning only until "
                    "the next indexing run builds it"
                )
            return [], []
        fields = {"text": 1.0}
        if "section" in self._fts_columns and self.section_boost > 0:
            fields["section"] = self.section_boost
        pairs = grams(query) if GRAMS in self._fts_columns else ""
        if pairs:
            # A question in Chinese or Japanese: its words are found as pairs of characters,
            # and a word of another script glued to them whole (store/grams.py). Any other
            # question is asked as before, and scores as before.
            fields[GRAMS] = 1.0
            terms = f"{terms} {pairs}"
        match = _multi_match(terms, fields) if len(fields) > 1 else _match(terms)
        stemmed = question_stems(query) if STEMS in self._fts_columns else ""
        if stemmed:
            # A question clearly in German, French, Spanish, Italian, Portuguese or Dutch: its
            # words are also found in any of their forms in passages of its language, by their
            # stems (store/stems.py), a second clause beside the words as before. Its stems
            # asked of every field with the words instead lost recall@5 in German, Spanish and
            # Italian on bench.multilingual's tune half. An English question is asked as
            # before, and scores as before.
            match = _either(match, _match(stemmed, column=STEMS))
        search = self._chunks.search(match, query_type="fts")
        if where:
            search = search.where(where, prefilter=True)
        table = search.select([*self._columns(HIT_EXTRAS), *extra, "_score"]).limit(k).to_arrow()
        rows = table.to_pylist()
        return [hit_from_row(row, float(row["_score"])) for row in rows], rows

    def term_frequency(self, term: str, cap: int) -> int:
        """How many chunks hold one word (as the full-text index reads it), counted up to cap."""
        if not self.has_fts_index() or cap <= 0:
            return 0
        table = (
            self._chunks.search(_match(term), query_type="fts")
            .select(["chunk_id"])
            .limit(cap)
            .to_arrow()
        )
        return int(table.num_rows)

    def mentions(self, words: str, fuzziness: int = 0) -> bool:
        """Whether some chunk holds all these words (as the full-text index reads them,
        stemmed), or else, with `fuzziness`, each within that many letters of one; True when
        there is no full-text index to ask. (A fuzzy query is not stemmed, so it alone would
        miss "infection" in an index of "infect".)"""
        if not self.has_fts_index():
            return True
        for fuzz in dict.fromkeys((0, fuzziness)):
            match = _match(words, every=True, fuzziness=fuzz)
            found = self._chunks.search(match, query_type="fts").select(["chunk_id"]).limit(1)
            if found.to_arrow().num_rows:
                return True
        return False

    def chunks_holding(self, term: str, chunk_ids: Sequence[str]) -> set[str]:
        """Which of these chunks hold one word, as the full-text index reads it (stemmed)."""
        if not chunk_ids or not self.has_fts_index():
            return set()
        table = (
            self._chunks.search(_match(term), query_type="fts")
            .where(f"chunk_id IN ({_sql_list(chunk_ids)})", prefilter=True)
            .select(["chunk_id"])
            .limit(len(chunk_ids))
            .to_arrow()
        )
        return set(table["chunk_id"].to_pylist())

    def page_text(self, path: str, page: int) -> str:
        """A page's text as its chunks hold it (each is the page's text from its start to its
        end, and they overlap), "" when none is indexed. A running header or footer the chunks
        leave out is left out here too, as white space."""
        where = f"path = {_sql_list([path])} AND page = {int(page)}"
        table = self._chunks.search().where(where).select(["start", "text"]).limit(None).to_arrow()
        text = ""
        starts, texts = table["start"].to_pylist(), table["text"].to_pylist()
        for start, chunk in sorted(zip(starts, texts, strict=True)):
            if start + len(chunk) > len(text):
                text = text[:start].ljust(start) + chunk
        return text

    def page_boxes(self, path: str, page: int) -> list[str]:
        """The word boxes (JSON) of a page's OCR'd chunks, for the viewer to mark a passage."""
        if "boxes" not in self._chunks.schema.names:
            return []
        where = f"path = {_sql_list([path])} AND page = {int(page)} AND boxes != ''"
        table = self._chunks.search().where(where).select(["boxes"]).limit(None).to_arrow()
        return [b for b in table["boxes"].to_pylist() if b]

    def sections(self) -> list[tuple[str, str]]:
        """Each document's section paths, (path, section) once each, in page order: two
        columns read, no text, no vectors."""
        if "section" not in self._chunks.schema.names:
            return []
        table = self._chunks.search().select(["path", "section", "page"]).limit(None).to_arrow()
        rows = zip(
            table["path"].to_pylist(),
            table["section"].to_pylist(),
            table["page"].to_pylist(),
            strict=True,
        )
        out: dict[tuple[str, str], int] = {}
        for path, section, page in rows:
            if section:
                key = (path, section)
                out[key] = min(out.get(key, page), page)
        return sorted(out, key=lambda k: (k[0], out[k]))

    def chunk_counts(self) -> dict[str, int]:
        """Chunks per document id, as stored (one column read, no vectors)."""
        table = self._chunks.search().select(["doc_id"]).limit(None).to_arrow()
        grouped = table.group_by("doc_id").aggregate([("doc_id", "count")])
        return dict(
            zip(grouped["doc_id"].to_pylist(), grouped["doc_id_count"].to_pylist(), strict=True)
        )

    def languages(self, sample: int = LANGUAGE_SAMPLE) -> LanguageMix:
        """How much of the library is clearly in another language than English, and which.

        Cheap: the chunks with stems (clearly German, French, Spanish, Italian, Portuguese or
        Dutch, store/stems.py) or grams (some Chinese, Japanese or Korean, store/grams.py) are
        counted, and only a sample of their texts (`sample`, no vectors) is read to tell their
        languages, an English passage naming a CJK word apart; the sample's share is scaled to
        every such chunk."""
        total = self.count_chunks()
        have = set(self._chunks.schema.names)
        where = " OR ".join(f"{c} != ''" for c in (STEMS, GRAMS) if c in have)
        candidates = self.count_chunks(where) if total and where else 0
        if not candidates:
            return LanguageMix(total, 0, "")
        table = self._chunks.search().where(where).select(["text"]).limit(sample).to_arrow()
        texts = table["text"].to_pylist()
        said = Counter(cjk_language(t) or text_language(t) for t in texts)
        said.pop(ENGLISH, None)
        if not said or not texts:
            return LanguageMix(total, 0, "")
        foreign = round(candidates * sum(said.values()) / len(texts))
        return LanguageMix(total, foreign, said.most_common(1)[0][0])

    def stats(self) -> dict[str, Any]:
        docs = self.documents()
        ok = [d for d in docs if d.status == Status.INDEXED]
        return {
            "documents": len(ok),
            "chunks": self.count_chunks(),
            "pages": sum(d.pages for d in ok),
            # Chunks found by their words whose vectors are still being computed.
            "pending": self.count_pending(),
            # `kept`: its new version failed, the version indexed before still answers.
            "failed": [
                {
                    "path": d.path,
                    "reason": d.error,
                    "kind": d.error_kind,
                    "kept": d.status == Status.INDEXED,
                }
                for d in docs
                if d.status == Status.FAILED or (d.status == Status.INDEXED and d.error)
            ],
            "excluded": sorted(d.path for d in docs if d.status == Status.EXCLUDED),
        }

    # -- writes ------------------------------------------------------------------------------

    def commit(
        self,
        documents: Sequence[DocumentRecord],
        chunks: Sequence[Chunk],
        vectors: NDArray[np.float32] | None,
        replace_doc_ids: Iterable[str] = (),
        remove_doc_ids: Iterable[str] = (),
        *,
        new: bool = False,
        pending: bool = False,
    ) -> None:
        """Write a batch of documents in two atomic steps, chunks first, then their rows.

        `pending`: the chunks are stored with their text only (`vectors` None), found by
        their words at once and never by vector search, until fill_vectors gives them theirs.

        `new`: the caller knows no chunk of these documents is stored (new files, after
        maintenance.repair): their chunks are appended, without the merge that reads every
        chunk id of the table (issue 32: at one commit every few seconds that read made the
        commits of a 1,500-file run grow with the square of its length). Ignored when
        anything is to be replaced or removed.

        Every chunk of the documents in `replace_doc_ids` and `remove_doc_ids` that is not in
        `chunks` is deleted in the same transaction that adds the new ones, so a reader sees
        the old chunks or the new, never both and never half. A crash between the two steps
        leaves a document row that still describes the old file, so the next run indexes it
        again; chunk ids are derived from the path, so that run replaces, not duplicates.
        """
        replace = sorted(set(replace_doc_ids))
        remove = sorted(set(remove_doc_ids))
        with self._write_lock:
            try:
                self._add_missing_columns()
                if chunks and new and not (replace or remove):
                    self._chunks.add(self._chunk_table(chunks, vectors, pending))
                elif chunks or replace or remove:
                    data = self._chunk_table(chunks, vectors, pending)
                    doomed = sorted(set(replace) | set(remove))
                    merge = (
                        self._chunks.merge_insert("chunk_id")
                        .when_matched_update_all()
                        .when_not_matched_insert_all()
                    )
                    if doomed:
                        merge = merge.when_not_matched_by_source_delete(
                            f"doc_id IN ({_sql_list(doomed)})"
                        )
                    merge.execute(data)
                faults.reached("between-commits")
                doc_rows = pa.Table.from_pylist(
                    [asdict(d) for d in documents], schema=documents_schema()
                )
                if documents or remove:
                    merge = (
                        self._docs.merge_insert("doc_id")
                        .when_matched_update_all()
                        .when_not_matched_insert_all()
                    )
                    if remove:
                        merge = merge.when_not_matched_by_source_delete(
                            f"doc_id IN ({_sql_list(remove)})"
                        )
                    merge.execute(doc_rows)
            except Exception as exc:
                raise _write_failed(exc) from exc

    def fill_vectors(self, chunks: Sequence[Chunk], vectors: NDArray[np.float32]) -> int:
        """Give chunks stored with their text only their vectors, in one atomic step; how
        many were filled. A chunk replaced or removed since it was read (its document
        changed, or went) is left alone: its vector would be of a text no longer stored."""
        if not chunks:
            return 0
        with self._write_lock:
            try:
                result = (
                    self._chunks.merge_insert("chunk_id")
                    .when_matched_update_all(
                        where=f"target.{PENDING} = true AND target.text = source.text"
                    )
                    .execute(self._chunk_table(chunks, vectors))
                )
            except Exception as exc:
                raise _write_failed(exc) from exc
        return int(getattr(result, "num_updated_rows", len(chunks)))

    def _add_missing_columns(self) -> None:
        """Bring tables made by an earlier version up to date (writers only)."""
        for table, added, name in (
            (self._docs, ADDED_DOCUMENT_COLUMNS, "documents"),
            (self._chunks, ADDED_CHUNK_COLUMNS, "chunks"),
        ):
            have = set(table.schema.names)
            missing = {k: v for k, v in added.items() if k not in have}
            if missing:
                table.add_columns(missing)
                log.info("added %s to the %s table", ", ".join(missing), name)

    def _chunk_table(
        self,
        chunks: Sequence[Chunk],
        vectors: NDArray[np.float32] | None,
        pending: bool = False,
    ) -> pa.Table:
        schema = chunks_schema(self.meta.dim)
        if not chunks:
            return schema.empty_table()
        if pending:  # a placeholder, never searched (see vector_search)
            vectors = np.zeros((len(chunks), self.meta.dim), dtype=np.float32)
        assert vectors is not None and len(vectors) == len(chunks)
        flat = np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1)
        columns = {
            "chunk_id": [c.chunk_id for c in chunks],
            "doc_id": [c.doc_id for c in chunks],
            "path": [c.path for c in chunks],
            "page": [c.page for c in chunks],
            "start": [c.start for c in chunks],
            "end": [c.end for c in chunks],
            "text": [c.text for c in chunks],
            "section": [c.section for c in chunks],
            "nav": [c.nav for c in chunks],
            "boxes": [c.boxes for c in chunks],
            GRAMS: [grams(c.text) for c in chunks],
            STEMS: [stems(c.text) for c in chunks],
        }
        arrays = [
            pa.FixedSizeListArray.from_arrays(pa.array(flat), self.meta.dim)
            if f.name == "vector"
            else pa.array([pending] * len(chunks), type=f.type)
            if f.name == PENDING
            else pa.array(columns[f.name], type=f.type)
            for f in schema
        ]
        return pa.Table.from_arrays(arrays, schema=schema)

    def remove(self, doc_ids: Iterable[str]) -> None:
        self.commit([], [], None, remove_doc_ids=doc_ids)

    @property
    def cache_bytes(self) -> int:
        """What LanceDB holds in its caches for this index now (metadata bounded, see above)."""
        return int(self._session.size_bytes) if self._session is not None else 0

    # -- for upkeep (store/maintenance.py) ----------------------------------------------------

    @property
    def write_lock(self) -> threading.Lock:
        """Serialises this process's writes (the cross-process lock is store/lock.py)."""
        return self._write_lock

    @property
    def chunks_table(self) -> Any:
        return self._chunks

    @property
    def documents_table(self) -> Any:
        return self._docs

    def has_fts_index(self) -> bool:
        """Whether the full-text index exists (a writer may have built it since we looked)."""
        stale = time.monotonic() - self._fts_seen > FTS_RECHECK_S
        added = {"section", GRAMS, STEMS} - self._fts_columns
        if not self.has_text_index or (added and stale):
            # Indexes are never dropped while the store is open: once seen, it stays. The
            # heading, pairs and stems indexes, which a writer may add to an older index, are
            # looked for again now and then rather than at every search.
            fts = [i for i in self._chunks.list_indices() if i.index_type == "FTS"]
            self._fts_columns = frozenset(c for i in fts for c in i.columns)
            self._fts_seen = time.monotonic()
            self.has_text_index = "text" in self._fts_columns
        return self.has_text_index

    def has_section_index(self) -> bool:
        """Whether headings are searched beside the text (indexes built since format 2)."""
        self.has_fts_index()
        return "section" in self._fts_columns

    def has_grams_index(self) -> bool:
        """Whether Chinese and Japanese words are searched as pairs (store/grams.py)."""
        self.has_fts_index()
        return GRAMS in self._fts_columns

    def has_stems_index(self) -> bool:
        """Whether passages are searched by their stems too (store/stems.py)."""
        self.has_fts_index()
        return STEMS in self._fts_columns

    def needs_indexes(self) -> bool:
        """Whether a writer should run `optimize` though nothing was written (a crash or a
        failure stopped the last run before it built the full-text index)."""
        if self.count_chunks() == 0:
            return False
        if not self.has_fts_index():
            return True
        self._fts_seen = 0.0
        names = self._chunks.schema.names
        return (
            ("section" in names and not self.has_section_index())
            or (GRAMS in names and not self.has_grams_index())
            or (STEMS in names and not self.has_stems_index())
        )


def _match(terms: str, *, every: bool = False, fuzziness: int = 0, column: str = "text") -> Any:
    """A full-text query for any of the words, or, `every`, for all of them in one chunk, each
    within `fuzziness` letters."""
    from lancedb.query import FullTextOperator, MatchQuery

    operator = FullTextOperator.AND if every else FullTextOperator.OR
    return MatchQuery(terms, column, operator=operator, fuzziness=fuzziness)  # type: ignore[call-arg]


def _either(*queries: Any) -> Any:
    """A full-text query for the chunks any of these queries finds, their scores added."""
    from lancedb.query import BooleanQuery, Occur

    return BooleanQuery([(Occur.SHOULD, q) for q in queries])


def _multi_match(terms: str, boosts: dict[str, float]) -> Any:
    """A full-text query for any of the words in any of the fields, each weighed by its boost."""
    from lancedb.query import FullTextOperator, MultiMatchQuery

    return MultiMatchQuery(
        terms, list(boosts), boosts=list(boosts.values()), operator=FullTextOperator.OR
    )


def fts_terms(query: str) -> list[str]:
    """The words of a question as the full-text search sees them."""
    return _fts_terms(query)


def _fts_terms(query: str) -> list[str]:
    """The words of a question, stripped of everything a query parser could misread."""
    out = []
    for raw in query.split():
        word = "".join(ch for ch in raw if ch.isalnum() or ch in "-_.'")
        word = word.strip("-_.'")
        if word:
            out.append(word)
    return out


def _write_failed(exc: Exception) -> StoreError:
    """A failed write as the user reads it: the disk full (LanceDB reports it as its own error,
    not as an OSError), another OS error, or the write's own message."""
    if isinstance(exc, OSError):
        return StoreError(_write_error(exc))
    if "No space left" in str(exc):
        return StoreError(_write_error(OSError(28, "No space left on device")))
    return StoreError(f"Writing the index failed: {exc}")


def _write_error(exc: OSError) -> str:
    if exc.errno == 28:
        return (
            "The disk is full, so the index could not be written. Free some space and index "
            "again; what was indexed before is intact."
        )
    return f"Writing the index failed ({exc.strerror or exc}). What was indexed before is intact."
