"""The outline of one indexed document, built without the language model.

Its sections are the heading paths its chunks were indexed under (PDF bookmarks, detected
headings, the sections of other formats; ingest/layout.py); a document without headings is cut
into parts of a few pages. Each section gets its most central sentences: the chunks nearest the
section's mean vector (the vectors stored in the index, not recomputed) are split into
sentences, only those sentences are embedded, and the ones nearest the mean are kept, each
unlike the ones kept before it (maximal marginal relevance), in reading order, each with its
page. The whole document gets a few such sentences too: its gist. An outline is kept per
document version (its sha256, the embedder and this module's OUTLINE_VERSION) in one JSON
file per document, so asking again costs a file read.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from desktop_rag.engines.embed import Embedder
from desktop_rag.errors import Cancelled, UsageError
from desktop_rag.infra.keyed import write_json
from desktop_rag.locations import SEPARATOR, paginated
from desktop_rag.query.quote import split_sentences
from desktop_rag.types import (
    AnswerEvent,
    AnswerMode,
    DocumentRecord,
    DoneEvent,
    Progress,
    Quote,
    QuotesEvent,
    Source,
    SourcesEvent,
    Timings,
    TokenEvent,
)

log = logging.getLogger(__name__)

OUTLINE_VERSION = 2  # bumped when what is built changes: older cached outlines are rebuilt
GIST_SENTENCES = 5  # for the whole document
SECTION_SENTENCES = 2  # for each section
CANDIDATE_CHUNKS = 3  # of a section, nearest its mean, whose sentences are embedded
GIST_CANDIDATE_CHUNKS = 8
MMR_LAMBDA = 0.7  # closeness to the mean against likeness to a sentence already kept
MAX_LIKENESS = 0.9  # a sentence this like one already kept is a near copy of it, left out
MIN_SENTENCE_WORDS = 6  # shorter "sentences" are captions, headings, table cells
MAX_SENTENCE_WORDS = 50  # longer ones are runs of text with no full stop (a table, a list)
MAX_NUMBER_SHARE = 0.3  # of a sentence's words holding a digit: more is a row of figures
MIN_LETTER_SHARE = 0.6  # of a sentence's characters that are not spaces: less is a table row
PAGES_PER_PART = 10  # a document without headings is cut into parts of about this many pages
MAX_DEPTH = 4  # deeper bookmarks are shown at this depth
MAX_SECTIONS = 400  # a pathological outline is shown this far and no further
EMBED_BATCH = 32

ProgressFn = Callable[[Progress], None]
_ENDED = re.compile(r"[.!?][\"')\]”’]?$")
_STARTED = re.compile(r"[\"“‘']?[A-Z0-9]")  # not a footnote's "(2) ..." nor a lowercase half
_BULLETS = re.compile(r"[•▪●◦■□➢►]")


@dataclass(frozen=True, slots=True)
class OutlineSentence:
    """A sentence of the document, verbatim, and the page (or section ordinal) it is on."""

    text: str
    page: int


@dataclass(frozen=True, slots=True)
class Section:
    """One heading: its title, its full heading path, its depth (0 = top), its first page, and
    its most central sentences in reading order (none for a heading with no text of its own)."""

    title: str
    path: str
    level: int
    page: int
    sentences: tuple[OutlineSentence, ...] = ()


@dataclass(frozen=True, slots=True)
class Outline:
    """A document's outline: its gist (the document's most central sentences) and sections."""

    path: str
    pages: int
    gist: tuple[OutlineSentence, ...]
    sections: tuple[Section, ...]
    headings: bool  # False: the sections are parts of a few pages, the document has no headings
    key: str = ""  # the document version and build it was made for
    seconds: float = 0.0  # what building it took (0 when it came from the cache)
    cached: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outline:
        def sentences(raw: Sequence[dict[str, Any]]) -> tuple[OutlineSentence, ...]:
            return tuple(OutlineSentence(str(s["text"]), int(s["page"])) for s in raw)

        return cls(
            path=str(data["path"]),
            pages=int(data["pages"]),
            gist=sentences(data["gist"]),
            sections=tuple(
                Section(
                    title=str(s["title"]),
                    path=str(s["path"]),
                    level=int(s["level"]),
                    page=int(s["page"]),
                    sentences=sentences(s["sentences"]),
                )
                for s in data["sections"]
            ),
            headings=bool(data["headings"]),
            key=str(data.get("key", "")),
            seconds=float(data.get("seconds", 0.0)),
        )

    def text(self) -> str:
        """The outline as plain text, each sentence followed by its page: "(p. 4)"."""
        mark = "p." if paginated(self.path) else "§"
        lines = [f"Outline of {os.path.basename(self.path)} ({self.pages} pages)", ""]
        if self.gist:
            lines.append("In short:")
            lines += [f"  {s.text} ({mark} {s.page})" for s in self.gist]
            lines.append("")
        for section in self.sections:
            indent = "  " * section.level
            lines.append(f"{indent}{section.title} ({mark} {section.page})")
            lines += [f"{indent}  - {s.text} ({mark} {s.page})" for s in section.sentences]
        return "\n".join(lines).rstrip() + "\n"


@dataclass
class _Part:
    """A section while it is built: its heading and the indices of its chunks."""

    title: str
    path: str
    level: int
    page: int
    chunks: list[int] = field(default_factory=list)


def _unit(v: NDArray[np.float32]) -> NDArray[np.float32]:
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v


def usable(sentence: str) -> bool:
    """Whether a sentence can stand in an outline: a whole sentence of words, neither a caption
    nor a run of a table's cells or a slide's bullets."""
    words = sentence.split()
    if not MIN_SENTENCE_WORDS <= len(words) <= MAX_SENTENCE_WORDS:
        return False
    if not _STARTED.match(sentence) or not _ENDED.search(sentence) or _BULLETS.search(sentence):
        return False
    chars = [c for c in sentence if not c.isspace()]
    letters = sum(c.isalpha() for c in chars)
    numbers = sum(any(c.isdigit() for c in w) for w in words)
    return letters >= MIN_LETTER_SHARE * len(chars) and numbers <= MAX_NUMBER_SHARE * len(words)


def parts_of(rows: Sequence[dict[str, Any]], pages: int) -> tuple[list[_Part], bool]:
    """The sections of a document's chunk rows (in reading order), and whether they come from
    headings. Every prefix of a heading path is a section, so a chapter whose text all falls
    under its subsections still shows; chunks before the first heading form a "Beginning"."""
    if any(str(r.get("section") or "").strip() for r in rows):
        parts: list[_Part] = []
        open_: list[_Part] = []  # the sections in force, outermost first
        for i, row in enumerate(rows):
            path = str(row.get("section") or "").strip()
            titles = [t.strip() for t in path.split(SEPARATOR) if t.strip()] or ["Beginning"]
            # The sections still open are those the chunk's path shares from the top; a
            # title met again after another is a new section (a report's second "Results").
            same = 0
            while same < min(len(open_), len(titles)) and open_[same].title == titles[same]:
                same += 1
            del open_[same:]
            for depth in range(same, len(titles)):
                if len(parts) >= MAX_SECTIONS:
                    break
                part = _Part(
                    titles[depth], SEPARATOR.join(titles[: depth + 1]), depth, int(row["page"])
                )
                parts.append(part)
                open_.append(part)
            if len(open_) == len(titles):
                open_[-1].chunks.append(i)
        return parts, True
    last = max((int(r["page"]) for r in rows), default=pages) or 1
    count = max(1, math.ceil(last / PAGES_PER_PART))
    size = math.ceil(last / count)
    parts = []
    for n in range(count):
        lo, hi = n * size + 1, min(last, (n + 1) * size)
        title = f"Pages {lo}–{hi}" if hi > lo else f"Page {lo}"
        parts.append(_Part(title if count > 1 else "Whole document", title, 0, lo))
    for i, row in enumerate(rows):
        parts[min(count - 1, (int(row["page"]) - 1) // size)].chunks.append(i)
    return parts, False


def parts_of_headings(
    rows: Sequence[dict[str, Any]], headings: Sequence[tuple[int, str, int]]
) -> list[_Part]:
    """The sections of a document that has bookmarks ((level, title, page) in reading order):
    one per bookmark, so a section that starts inside another's chunk still shows. A chunk
    belongs to the next bookmark on or before its page whose title is its heading's, else to
    the one it follows; chunks before the first bookmark form a "Beginning"."""
    parts = [
        _Part(title, title, min(max(level, 0), MAX_DEPTH), max(page, 1))
        for level, title, page in headings[:MAX_SECTIONS]
    ]
    if rows and (not parts or int(rows[0]["page"]) < parts[0].page):
        parts.insert(0, _Part("Beginning", "Beginning", 0, int(rows[0]["page"])))
    current = 0
    for i, row in enumerate(rows):
        page = int(row["page"])
        leaf = str(row.get("section") or "").rsplit(SEPARATOR, 1)[-1].strip()
        ahead = current
        while ahead < len(parts) and parts[ahead].page <= page:
            if parts[ahead].title == leaf:
                current = ahead
                break
            ahead += 1
        else:
            # No bookmark of this title: the chunk stays with its section, unless that one
            # ended pages ago (then it goes to the last one started on or before its page).
            while (
                current + 1 < len(parts)
                and parts[current + 1].page <= page
                and (parts[current].page < page)
            ):
                current += 1
        parts[current].chunks.append(i)
    return parts


class _Builder:
    """Embeds sentences on demand, once each, and picks the central ones."""

    def __init__(
        self,
        rows: Sequence[dict[str, Any]],
        embedder: Embedder,
        cancel: threading.Event | None,
    ) -> None:
        self.rows = rows
        self.embedder = embedder
        self.cancel = cancel
        self.vectors = np.stack(
            [_unit(np.asarray(r["vector"], dtype=np.float32)) for r in rows]
        ) if rows else np.zeros((0, 1), dtype=np.float32)  # fmt: skip
        self._sentences: dict[int, list[tuple[int, str]]] = {}  # chunk -> (order, text)
        self._seen: dict[str, int] = {}  # a sentence's text -> its order (chunks overlap)
        self._vectors: dict[str, NDArray[np.float32]] = {}
        self.embedded = 0

    def sentences(self, chunk: int) -> list[tuple[int, str]]:
        if chunk not in self._sentences:
            out: list[tuple[int, str]] = []
            pieces = split_sentences(" ".join(str(self.rows[chunk]["text"]).split()))
            for text in pieces:
                # A chunk is cut from its page by tokens, and a page break or a figure cuts a
                # sentence too: halves of sentences are not whole sentences (usable()).
                if not usable(text):
                    continue
                order = self._seen.setdefault(text, chunk * 1000 + len(out))
                out.append((order, text))
            self._sentences[chunk] = out
        return self._sentences[chunk]

    def _embed(self, texts: Sequence[str]) -> None:
        todo = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        for i in range(0, len(todo), EMBED_BATCH):
            if self.cancel is not None and self.cancel.is_set():
                raise Cancelled("The outline was stopped before it was finished; nothing is kept.")
            batch = todo[i : i + EMBED_BATCH]
            for text, v in zip(batch, self.embedder.embed(batch), strict=True):
                self._vectors[text] = _unit(np.asarray(v, dtype=np.float32))
            self.embedded += len(batch)

    def mean(self, chunks: Sequence[int]) -> NDArray[np.float32]:
        return _unit(self.vectors[list(chunks)].mean(axis=0))

    def central(
        self,
        chunks: Sequence[int],
        n: int,
        candidates: int,
        mean: NDArray[np.float32] | None = None,
    ) -> list[OutlineSentence]:
        """The n sentences of these chunks nearest their mean (or `mean`), each unlike those
        kept before."""
        if not chunks or n <= 0:
            return []
        if mean is None:
            mean = self.mean(chunks)
        # The chunks nearest the mean that hold whole sentences (a table holds none).
        near: list[int] = []
        for c in sorted(chunks, key=lambda c: -float(self.vectors[c] @ mean)):
            if len(near) >= candidates:
                break
            if self.sentences(c):
                near.append(c)
        pool: dict[str, tuple[int, int]] = {}  # text -> (order, page)
        for c in sorted(near):
            for order, text in self.sentences(c):
                pool.setdefault(text, (order, int(self.rows[c]["page"])))
        if not pool:
            return []
        texts = list(pool)
        self._embed(texts)
        matrix = np.stack([self._vectors[t] for t in texts])
        closeness = matrix @ mean
        kept: list[int] = []
        while len(kept) < min(n, len(texts)):
            likeness = (matrix @ matrix[kept].T).max(axis=1) if kept else np.zeros(len(texts))
            score = MMR_LAMBDA * closeness - (1 - MMR_LAMBDA) * likeness
            score[kept] = -np.inf
            score[likeness > MAX_LIKENESS] = -np.inf  # a near copy says nothing new
            best = int(np.argmax(score))
            if not np.isfinite(score[best]):
                break
            kept.append(best)
        chosen = sorted(kept, key=lambda i: pool[texts[i]][0])
        return [OutlineSentence(texts[i], pool[texts[i]][1]) for i in chosen]


def build_outline(
    rows: Sequence[dict[str, Any]],
    embedder: Embedder,
    *,
    path: str = "",
    pages: int = 0,
    gist_sentences: int = GIST_SENTENCES,
    section_sentences: int = SECTION_SENTENCES,
    headings: Sequence[tuple[int, str, int]] = (),
    on_progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> Outline:
    """The outline of one document from its chunk rows (text, page, section, vector; in reading
    order; navigation pages are left out) and its bookmarks, if it has any ((level, title,
    page) in reading order). Raises Cancelled when `cancel` is set."""
    started = time.monotonic()
    rows = [r for r in rows if not r.get("nav")]
    pages = pages or max((int(r["page"]) for r in rows), default=0)
    if headings:
        parts, titled = parts_of_headings(rows, headings), True
    else:
        parts, titled = parts_of(rows, pages)
    builder = _Builder(rows, embedder, cancel)

    def report(done: int, message: str) -> None:
        if on_progress is not None:
            elapsed = time.monotonic() - started
            eta = elapsed / done * (len(parts) + 1 - done) if done else None
            on_progress(
                Progress(
                    "outline",
                    files_done=done,
                    files_total=len(parts) + 1,
                    current=path,
                    elapsed_s=elapsed,
                    eta_s=eta,
                    message=message,
                )
            )

    report(0, "the document's gist")
    # The gist is near the mean of the sections' means: a long appendix (a filing's exhibits)
    # weighs as one section, not as half the document.
    means = [builder.mean(p.chunks) for p in parts if p.chunks]
    centre = _unit(np.mean(means, axis=0)) if titled and len(means) > 1 else None
    gist = builder.central(range(len(rows)), gist_sentences, GIST_CANDIDATE_CHUNKS, centre)
    sections = []
    for done, part in enumerate(parts, start=1):
        report(done, part.title)
        if cancel is not None and cancel.is_set():
            raise Cancelled("The outline was stopped before it was finished; nothing is kept.")
        sentences = builder.central(part.chunks, section_sentences, CANDIDATE_CHUNKS)
        sections.append(Section(part.title, part.path, part.level, part.page, tuple(sentences)))
    report(len(parts) + 1, "done")
    log.info(
        "outline of %s: %d sections, %d sentences embedded in %.2f s",
        path,
        len(sections),
        builder.embedded,
        time.monotonic() - started,
    )
    return Outline(
        path=path,
        pages=pages,
        gist=tuple(gist),
        sections=tuple(sections),
        headings=titled,
        seconds=round(time.monotonic() - started, 3),
    )


class OutlineService:
    """Outlines of indexed documents, kept per document version under `folder`."""

    def __init__(
        self,
        store: Any,
        embedder: Embedder,
        folder: Path,
        bookmarks: Callable[[str], Sequence[tuple[int, str, int]]] | None = None,
    ) -> None:
        self.store = store  # a LanceStore: documents() and chunk_rows(doc_id)
        self.embedder = embedder
        self.folder = folder
        # A file's bookmarks as (level, title, page); ingest reads them, and query may not
        # import ingest, so whoever wires the service passes its reader in.
        self.bookmarks = bookmarks

    def document(self, path: str) -> DocumentRecord:
        """The indexed document at a path; UsageError when it is not in the index."""
        wanted = os.path.abspath(os.path.expanduser(path))
        for record in self.store.documents():
            if os.path.abspath(record.path) == wanted and record.chunks > 0:
                return record
        raise UsageError(f"{path} is not in the index (index it first)")

    def key(self, record: DocumentRecord) -> str:
        version = record.sha256 or f"{record.size}:{record.mtime_ns}"
        return f"{record.doc_id}:{version}:{self.embedder.model_id}:{OUTLINE_VERSION}"

    def _file(self, key: str) -> Path:
        doc_id = key.split(":", 1)[0]
        return self.folder / f"{doc_id}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"

    def cached(self, record: DocumentRecord) -> Outline | None:
        key = self.key(record)
        try:
            data = json.loads(self._file(key).read_text(encoding="utf-8"))
            if data.get("key") != key:
                return None
            outline = Outline.from_json(data)
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return replace(outline, cached=True, seconds=0.0)

    def outline(
        self,
        path: str,
        on_progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> Outline:
        """The outline of an indexed document: from the cache if this version's is kept, else
        built (and kept). Raises Cancelled if cancelled, UsageError if it is not indexed."""
        record = self.document(path)
        found = self.cached(record)
        if found is not None:
            return found
        rows = self._rows(record.doc_id)
        rows.sort(key=lambda r: (int(r["page"]), int(r["start"])))
        headings = self.bookmarks(record.path) if self.bookmarks is not None else ()
        built = build_outline(
            rows,
            self.embedder,
            path=record.path,
            pages=record.pages,
            headings=headings,
            on_progress=on_progress,
            cancel=cancel,
        )
        key = self.key(record)
        outline = replace(built, key=key)
        self._keep(key, outline)
        return outline

    def _rows(self, doc_id: str) -> list[dict[str, Any]]:
        """A document's chunk rows, each vector a row of one array (see LanceStore.chunk_table:
        made into Python floats, they would hold the GIL, and stall the window, for long)."""
        table_of = getattr(self.store, "chunk_table", None)
        if table_of is None:
            return list(self.store.chunk_rows(doc_id))
        table = table_of(doc_id)
        if table.num_rows == 0:
            return []
        column = table.column("vector").combine_chunks()
        vectors = column.flatten().to_numpy(zero_copy_only=False).reshape(table.num_rows, -1)
        rows: list[dict[str, Any]] = table.drop_columns(["vector"]).to_pylist()
        for row, vector in zip(rows, vectors, strict=True):
            row["vector"] = vector
        return rows

    def _keep(self, key: str, outline: Outline) -> None:
        path = self._file(key)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_json(path, outline.to_json())
            # The document's earlier versions' outlines will not be asked for again.
            for old in self.folder.glob(f"{key.split(':', 1)[0]}-*.json"):
                if old != path:
                    old.unlink(missing_ok=True)
        except OSError as exc:  # a read-only data dir only costs building it again next time
            log.info("could not keep the outline of %s: %s", outline.path, exc)


INDENT = "\u00a0" * 4  # a level deeper (non-breaking: the chat's HTML keeps them)
# A paper's own reference marks ("… the retina [1, 2] ."), with the space they leave before
# the stop: in the outline they would read as its citations, [n] of its sources.
_REFERENCE_MARK = re.compile(r"\s*\[\d+(?:\s*[,;–-]\s*\d+)*\](?:\s+(?=[.,;:)]))?")


def unmarked(sentence: str) -> str:
    """A sentence as the outline shows it: without the document's own reference marks."""
    return _REFERENCE_MARK.sub("", sentence)


def outline_events(outline: Outline, cancelled: bool = False) -> list[AnswerEvent]:
    """The outline as an answer's events, so a front end shows it like one: each page it cites
    a numbered source (its sentences the source's quotes, to mark on the page), the outline
    the answer's text with [n] after each heading and sentence, made of the document's own
    sentences (mode "outline")."""
    sources: dict[int, int] = {}  # page -> n
    texts: dict[int, list[str]] = {}  # n -> what the outline quotes of that page
    sections: dict[int, str] = {}  # n -> the section its page is cited in first
    quotes: list[Quote] = []

    def cite(page: int, section: str, sentence: str = "") -> str:
        n = sources.setdefault(page, len(sources) + 1)
        sections.setdefault(n, section)
        if sentence and sentence not in texts.setdefault(n, []):
            texts[n].append(sentence)
            quotes.append(Quote(n, outline.path, page, sentence, 1.0))
        texts.setdefault(n, [])
        return f"[{n}]"

    mark = "pages" if paginated(outline.path) else "sections"
    lines = [f"Outline of {os.path.basename(outline.path)} ({outline.pages} {mark})", ""]
    if outline.gist:
        gist = " ".join(f"{unmarked(s.text)} {cite(s.page, '', s.text)}" for s in outline.gist)
        lines += [f"In short: {gist}", ""]
    for section in outline.sections:
        indent = INDENT * section.level
        lines.append(f"{indent}{section.title} {cite(section.page, section.path)}")
        for sentence in section.sentences:
            ref = cite(sentence.page, section.path, sentence.text)
            lines.append(f"{indent}{INDENT}• {unmarked(sentence.text)} {ref}")
    if not outline.sections and not outline.gist:
        lines.append("This document has no sentences to outline (its pages hold figures only).")
    answer = "\n".join(lines).rstrip()
    by_n = {n: page for page, n in sources.items()}
    found = tuple(
        Source(
            n=n,
            path=outline.path,
            page=by_n[n],
            score=0.0,
            text=" … ".join(texts[n]) or sections[n].rsplit(SEPARATOR, 1)[-1],
            section=sections[n],
        )
        for n in sorted(by_n)
    )
    timings = Timings(total_s=outline.seconds)
    return [
        SourcesEvent(found),
        QuotesEvent(tuple(quotes)),
        TokenEvent(answer),
        DoneEvent(
            answer=answer,
            cited=tuple(sorted(by_n)),
            timings=timings,
            cancelled=cancelled,
            mode=AnswerMode.OUTLINE,
        ),
    ]
