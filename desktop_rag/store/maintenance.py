"""Upkeep of the index: repair after a crash, compaction, and index building.

`LanceStore` (store/lance.py) reads and writes rows; what keeps the tables healthy and fast
lives here, called by the writer (the indexing run) with the store, under the writer lock
(store/lock.py).
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import TYPE_CHECKING

from desktop_rag.store.schema import GRAMS, STEMS
from desktop_rag.types import Status

if TYPE_CHECKING:
    from desktop_rag.store.lance import LanceStore

log = logging.getLogger(__name__)

# Exact vector search reads every vector at every query, so its cost grows with the library,
# while the approximate index costs about the same at any size; below this many chunks exact
# search is as fast, and exact (bench/retrieval_latency.py measures where they cross).
ANN_MIN_ROWS = 25_000
ANN_RETRAIN_GROWTH = 2.0  # retrain the index's partitions once the table doubled since
# One graph per this many chunks bounds the memory an index build needs.
ANN_ROWS_PER_PARTITION = 250_000


# Rows stored since the full-text index was built are searched without it, by a scan of their
# text: 8,400 such rows cost 368 ms a query, against 5.4 ms once folded into the index (2.6 s
# to fold; a synthetic table, load 11). A run storing text before vectors (issue 32 item 4)
# folds them in once FOLD_ROWS wait and FOLD_SHARE of the rows indexed: the folds' total cost
# stays a small multiple of one build, however many rows the run adds.
FOLD_ROWS = 2000
FOLD_SHARE = 0.25


def repair(store: LanceStore) -> list[str]:
    """Make the two tables agree after a crash; returns the paths that must be re-indexed.

    Each table commits atomically, but not both together: a crash between a document's
    chunk commit and its row commit leaves chunks without a row, or a row whose count
    disagrees. Such chunks are dropped and the row forgotten, so the next reconcile
    indexes the file again. Nothing on disk outside the index is touched.
    """
    counts = store.chunk_counts()
    docs = {d.doc_id: d for d in store.documents()}
    orphans = [
        doc_id for doc_id in counts if doc_id not in docs or docs[doc_id].status != Status.INDEXED
    ]
    wrong = [
        d
        for d in docs.values()
        if d.status == Status.INDEXED and counts.get(d.doc_id, 0) != d.chunks
    ]
    if not orphans and not wrong:
        return []
    log.warning(
        "repairing the index: %d orphaned chunk sets, %d documents with the wrong count",
        len(orphans),
        len(wrong),
    )
    store.commit([], [], None, replace_doc_ids=orphans, remove_doc_ids=[d.doc_id for d in wrong])
    return sorted(d.path for d in wrong) + sorted(docs[o].path for o in orphans if o in docs)


def optimize(store: LanceStore) -> None:
    """After a run: compact small fragments, fold new rows into the indexes, and build the
    approximate vector index once the library is large enough for it to pay."""
    with store.write_lock:
        t0 = time.perf_counter()
        try:
            ensure_text_index(store)
            store.chunks_table.optimize(cleanup_older_than=timedelta(minutes=5))
            store.documents_table.optimize(cleanup_older_than=timedelta(minutes=5))
            ensure_vector_index(store)
        except Exception as exc:  # compaction is an optimisation; never fail a run on it
            log.warning("optimising the index failed: %s", exc)
        log.debug("optimize took %.2fs", time.perf_counter() - t0)


def vector_index_type(store: LanceStore) -> str | None:
    """The approximate vector index's type (e.g. IvfHnswSq), or None: exact search."""
    for index in store.chunks_table.list_indices():
        if "vector" in index.columns and index.index_type != "FTS":
            return str(index.index_type)
    return None


def ensure_vector_index(store: LanceStore) -> None:
    """Build the approximate vector index past ANN_MIN_ROWS; retrain it once the table grew
    ANN_RETRAIN_GROWTH times. Call with the store's write lock held."""
    table = store.chunks_table
    rows = table.count_rows()
    if rows < ANN_MIN_ROWS:
        return
    name = next((i.name for i in table.list_indices() if "vector" in i.columns), None)
    if name is not None:
        stats = table.index_stats(name)
        indexed = stats.num_indexed_rows if stats is not None else 0
        if indexed * ANN_RETRAIN_GROWTH > rows:
            return  # optimize() folded the new rows into it
    from lancedb.index import HnswSq

    t0 = time.perf_counter()
    # HNSW graphs over scalar-quantised vectors in a few IVF partitions: better recall per
    # millisecond than IVF-PQ at these sizes, and 4x smaller than the float vectors. The
    # default ef_construction: a smaller one cost recall and saved little build time.
    partitions = max(1, rows // ANN_ROWS_PER_PARTITION)
    table.create_index(
        "vector",
        config=HnswSq(distance_type="cosine", num_partitions=partitions),
        replace=True,
    )
    log.info("built the vector index over %d chunks in %.1fs", rows, time.perf_counter() - t0)


def ensure_text_index(store: LanceStore) -> None:
    """Build the full-text (BM25) index once the table has rows. Writers only, with the
    store's write lock held: a search never builds it (it ranks by the vectors meanwhile)."""
    table = store.chunks_table
    if table.count_rows() == 0:
        return
    from lancedb.index import FTS

    if not store.has_fts_index():
        table.create_index("text", config=FTS(with_position=False), replace=True)
    # Headings are a second field of the same search (store.text_search weighs them); an
    # index made before them gains it here, with no rebuild.
    if "section" in table.schema.names and not store.has_section_index():
        table.create_index("section", config=FTS(with_position=False), replace=True)
    # Chinese and Japanese words as pairs of characters (store/grams.py): not stemmed, no stop
    # words, and the pairs kept as they are.
    if GRAMS in table.schema.names and not store.has_grams_index():
        pairs = FTS(with_position=False, stem=False, remove_stop_words=False, ascii_folding=False)
        table.create_index(GRAMS, config=pairs, replace=True)
    # Words stemmed as their passage's language (store/stems.py): stemmed and without their
    # stop words already, so neither again (nor as English).
    if STEMS in table.schema.names and not store.has_stems_index():
        stemmed = FTS(with_position=False, stem=False, remove_stop_words=False)
        table.create_index(STEMS, config=stemmed, replace=True)
    store.has_text_index = False  # look again: the indexes now exist
    store.has_fts_index()


def fold_text_index(store: LanceStore) -> bool:
    """Fold the rows stored since into the full-text indexes once enough wait (FOLD_ROWS,
    FOLD_SHARE); whether it did. Writers only. Never raises: it only makes searches faster."""
    try:
        table = store.chunks_table
        names = [i.name for i in table.list_indices() if i.index_type == "FTS"]
        stats = table.index_stats(names[0]) if names else None
        if stats is None:
            return False
        waiting = stats.num_unindexed_rows
        if waiting < FOLD_ROWS or waiting < FOLD_SHARE * stats.num_indexed_rows:
            return False
        t0 = time.perf_counter()
        with store.write_lock:
            table.to_lance().optimize.optimize_indices(index_names=names)
        log.info(
            "folded %d rows into the full-text index in %.1fs", waiting, time.perf_counter() - t0
        )
        return True
    except Exception as exc:
        log.warning("folding new rows into the full-text index failed: %s", exc)
        return False
