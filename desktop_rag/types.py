"""Plain frozen values passed between stages: pages, chunks, hits, progress, reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Status(StrEnum):
    """Where a document stands in the index."""

    QUEUED = "queued"
    INDEXING = "indexing"
    INDEXED = "indexed"
    FAILED = "failed"
    EXCLUDED = "excluded"  # removed by the user: stays out until indexed by name again


class FailKind(StrEnum):
    """Why a file could not be indexed; each has a user-facing explanation in ingest.extract."""

    PASSWORD = "password"
    CORRUPT = "corrupt"
    NOT_PDF = "not_pdf"
    NOT_FORMAT = "not_format"  # the content is not what the file's name says (a .docx not a ZIP)
    DRM = "drm"
    NO_TEXT = "no_text"
    EMPTY = "empty"
    TOO_LARGE = "too_large"
    UNREADABLE = "unreadable"
    TIMEOUT = "timeout"
    LOCKED = "locked"
    MEMORY = "memory"
    CHANGING = "changing"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class Page:
    """The text of one page; number is 1-based, as printed by viewers.

    Formats without pages (Word, HTML, EPUB, ...) give one Page per section: `number` is the
    section's ordinal and `section` its heading path ("3 Setup › 3.4 Choosing a printer").
    A page read with OCR has `ocr` set (even when OCR found nothing confident on it); one
    OCR could not read has `error`, the reason, and whatever text layer it had.
    """

    number: int
    text: str
    section: str = ""
    # Read with OCR: the word boxes of `text` ([start, end, x0, y0, x1, y1], see ingest/ocr.py).
    ocr: bool = False
    boxes: tuple[tuple[int, int, float, float, float, float], ...] = ()
    error: str = ""


@dataclass(frozen=True, slots=True)
class Chunk:
    """A passage of one page: text == page_text[start:end].

    `section` is the heading path of the passage ("" if none); `nav` marks a navigation
    page (contents, index); `boxes` holds the JSON word boxes of OCR'd text ("" otherwise).
    """

    chunk_id: str
    doc_id: str
    path: str
    page: int
    start: int
    end: int
    text: str
    section: str = ""
    nav: bool = False
    boxes: str = ""


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a passage ranks where it does (query/retrieve.py): its rank (1-based) and score in
    each list that found it (None: that list did not), the blended score, the reason it was
    demoted ("" if it was not), and the score of its best sentence where the first sources were
    re-ranked by it (None otherwise)."""

    text_rank: int | None = None
    text_score: float | None = None
    vector_rank: int | None = None
    similarity: float | None = None
    blended: float = 0.0
    demoted: str = ""
    sentence: float | None = None  # its best sentence's score, where the first few were re-ranked
    # The cross-encoder's probability that the passage answers the question (engines/rerank.py),
    # where the first candidates were re-ranked by it.
    answers: float | None = None

    def describe(self) -> str:
        """One line for people: "BM25 #2 (7.31) · vector #5 (0.612) · blended 0.6420"."""
        parts = [
            f"BM25 #{self.text_rank} ({self.text_score:.2f})"
            if self.text_rank is not None and self.text_score is not None
            else "BM25 —",
            f"vector #{self.vector_rank} ({self.similarity:.3f})"
            if self.vector_rank is not None and self.similarity is not None
            else "vector —",
            f"blended {self.blended:.4f}",
        ]
        if self.sentence is not None:
            parts.append(f"best sentence {self.sentence:.3f}")
        if self.answers is not None:
            parts.append(f"answers {self.answers:.2f}")
        if self.demoted:
            parts.append(f"demoted: {self.demoted}")
        return " · ".join(parts)

    def to_json(self) -> dict[str, object]:
        return {
            "bm25_rank": self.text_rank,
            "bm25_score": None if self.text_score is None else round(self.text_score, 4),
            "vector_rank": self.vector_rank,
            "similarity": None if self.similarity is None else round(self.similarity, 4),
            "blended": round(self.blended, 6),
            "demoted": self.demoted,
            "sentence": None if self.sentence is None else round(self.sentence, 4),
            "answers": None if self.answers is None else round(self.answers, 4),
        }


@dataclass(frozen=True, slots=True)
class Hit:
    """A retrieved passage: `score` ranks (higher is better), `similarity` is the cosine
    similarity to the question where the vector search saw it (0 otherwise); `nav` marks a
    passage of a navigation page; `why` says how retrieval ranked it."""

    chunk_id: str
    doc_id: str
    path: str
    page: int
    start: int
    end: int
    text: str
    score: float
    similarity: float = 0.0
    section: str = ""
    nav: bool = False
    why: Explanation | None = None
    library: str = ""  # which library it came from: "" this desktop's, team.TEAM the team's
    whole: bool = False  # it starts and ends where sentences do (query/quote.py, widen)


@dataclass(frozen=True, slots=True)
class FileInfo:
    """What the file system says about a file, before reading it."""

    path: str
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    """One row of the documents table.

    An indexed document whose new version could not be read for a passing reason keeps its
    chunks, its size and mtime (so the next run tries again), and says why in `error`.
    `failures` counts the runs in a row that failed the same way on the same version of the
    file, `failed_size` and `failed_mtime_ns`: after a few, it waits until the file changes.
    """

    doc_id: str
    path: str
    size: int
    mtime_ns: int
    sha256: str
    pages: int
    chunks: int
    status: str
    error: str
    error_kind: str
    indexed_at: float
    format: str = "pdf"  # "pdf", "docx", "html", ...: the reader family that read it
    reader: str = ""  # the reader that produced its text (pdfium, pypdf, python-docx, ...)
    failures: int = 0
    failed_size: int = -1
    failed_mtime_ns: int = -1
    ocr: bool = False  # the user asked to read every page with OCR (its text layer is garbage)
    date_ns: int = 0  # its own date (a PDF's CreationDate, else ModDate); 0: it says none


@dataclass(frozen=True, slots=True)
class Failure:
    """A file that could not be indexed, and why, in words the user can act on."""

    path: str
    reason: str
    kind: str = FailKind.ERROR


@dataclass(frozen=True, slots=True)
class Progress:
    """A snapshot of a long job, for progress bars; eta_s is None until it can be guessed."""

    stage: str
    files_done: int = 0
    files_total: int = 0
    pages_done: int = 0
    chunks_done: int = 0
    current: str = ""
    elapsed_s: float = 0.0
    eta_s: float | None = None
    message: str = ""

    @property
    def eta_text(self) -> str:
        """The time left as people read it (45 s, 3 min 05 s, 2 h 10 min)."""
        return format_duration(self.eta_s)


def format_duration(seconds: float | None) -> str:
    """A duration as people read it; None: it cannot be guessed yet."""
    if seconds is None:
        return "estimating…"
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds} s"
    m, s = divmod(seconds, 60)
    if m < 60:
        return f"{m} min {s:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


@dataclass(frozen=True, slots=True)
class FileEvent:
    """The outcome for one file during indexing, so views can update row by row."""

    path: str
    status: str
    pages: int = 0
    chunks: int = 0
    error: str = ""
    reader: str = ""  # what read it, once indexed ("ocr": every page read with OCR)


@dataclass(slots=True)
class IndexReport:
    """What an index run did; `to_json` is the `index --json` contract."""

    indexed: int = 0
    unchanged: int = 0
    removed: int = 0
    renamed: int = 0
    failed: list[Failure] = field(default_factory=list)
    pages: int = 0
    chunks: int = 0
    seconds: float = 0.0
    cancelled: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "indexed": self.indexed,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "renamed": self.renamed,
            "failed": [{"path": f.path, "reason": f.reason, "kind": f.kind} for f in self.failed],
            "pages": self.pages,
            "chunks": self.chunks,
            "seconds": round(self.seconds, 3),
            "cancelled": self.cancelled,
        }


# -- answering ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Source:
    """A numbered passage given to the model; [n] in the answer refers to it."""

    n: int
    path: str
    page: int
    score: float
    text: str
    start: int = 0
    end: int = 0
    section: str = ""
    why: Explanation | None = None  # how retrieval ranked it (the sources pane can show it)
    boxes: str = ""  # an OCR'd passage's word boxes (Chunk.boxes), when known
    matches: int = 0  # a listed document's passages that match (routing's list of documents)
    library: str = ""  # "" this desktop's library, team.TEAM the team's (shown before the name)
    whole: bool = False  # its passages start and end where sentences do (query/quote.py, widen)


@dataclass(frozen=True, slots=True)
class Quote:
    """A sentence of source n, word for word, that best answers the question (query/quote.py);
    `score` ranks the quotes of one answer (higher is better)."""

    n: int
    path: str
    page: int
    text: str
    score: float


@dataclass(frozen=True, slots=True)
class Timings:
    retrieval_ms: float = 0.0
    ttft_s: float = 0.0
    tokens_per_s: float = 0.0
    total_s: float = 0.0


@dataclass(frozen=True, slots=True)
class Turn:
    """An earlier question and its answer, for follow-up questions."""

    question: str
    answer: str


@dataclass(frozen=True, slots=True)
class SourcesEvent:
    """First event of an answer: the passages the model will see (may be empty), and a
    notice for the user about how they were found (searching by words only), if any."""

    sources: tuple[Source, ...]
    notice: str = ""


@dataclass(frozen=True, slots=True)
class QuotesEvent:
    """Right after the sources, before the model's first token: the quotes (may be empty)."""

    quotes: tuple[Quote, ...]


@dataclass(frozen=True, slots=True)
class TokenEvent:
    """A piece of the answer as it streams."""

    text: str


class AnswerMode(StrEnum):
    """Who made an answer, or what it is (DoneEvent.mode; a str, as JSON and the saved
    conversations write it)."""

    COMPOSED = "composed"  # from the sources' own sentences (query/compose.py)
    WRITTEN = "written"  # by the model (query/answer.py)
    LISTING = "listing"  # a library question's list of documents (desktop_rag/routing.py)
    OUTLINE = "outline"  # a document question's outline (query/outline.py)
    SUMMARY = "summary"  # a model's summary over the outline (query/summary.py)


@dataclass(frozen=True, slots=True)
class DoneEvent:
    """Last event: the whole answer, the [n] it actually cites, and how long it took.

    `refused` when the answer says the documents do not say (retrieval found nothing
    relevant, or the model found nothing in the sources) instead of guessing; `cancelled`
    when the user stopped it; `unsupported` lists the names, terms and figures of the answer
    that the sources it cites lack, and `support` is the weighted share of its words they hold
    (query/claims.py). When nothing of the model's answer came from its sources, `answer` is
    the refusal and `withheld` what the model wrote. When the sources the model cited do not
    back the answer and another does (claims.backing_source), `cited` is that one, the
    answer's marks say so, and `recited_from` is what the model had cited.

    `mode` (an AnswerMode) says who wrote the answer: "composed" from the sources' own
    sentences (query/compose.py), or "written" by `model`. A written answer whose claims its
    cited sources do not back is replaced by the composed one: `mode` is then "composed",
    `withheld` what the model wrote, `unsupported` what of it the sources lack and `note`
    says so, in plain words (front ends show the note, not a check of the composed answer).
    An answer that is no passage's (desktop_rag/routing.py) says what it is instead:
    "listing" (documents) or "outline" (one document's, query/outline.py).
    """

    answer: str
    cited: tuple[int, ...]
    timings: Timings
    refused: bool = False
    cancelled: bool = False
    unsupported: tuple[str, ...] = ()
    support: float = 1.0
    withheld: str = ""
    # What the model cited when the answer's words are in another source, cited instead.
    recited_from: tuple[int, ...] = ()
    mode: str = AnswerMode.WRITTEN
    note: str = ""
    model: str = ""  # the model that wrote a written answer
    # How likely the best sentence of the sources answers the question (the cross-encoder's
    # probability, engines/rerank.py); None where it was not measured.
    answerable: float | None = None


AnswerEvent = SourcesEvent | QuotesEvent | TokenEvent | DoneEvent


@dataclass(frozen=True, slots=True)
class LanguageMix:
    """How much of a library is clearly in a language other than English (LanceStore's
    `languages`): its chunks, about how many of them are, and the most common such language
    ("de", "ja"...; "" when none is)."""

    chunks: int
    foreign: int
    language: str

    @property
    def share(self) -> float:
        return self.foreign / self.chunks if self.chunks else 0.0
