"""Page-aware chunking sized in the embedder's own word pieces, so no chunk loses its tail."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from desktop_rag.locations import SEPARATOR
from desktop_rag.types import Chunk, Page

if TYPE_CHECKING:
    from desktop_rag.ingest.layout import PageLayout


class TokenOffsets(Protocol):
    """What chunking needs of a tokenizer: each word piece's character span in the text."""

    def offsets(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]: ...

    def count(self, text: str) -> int:
        """Word pieces in text, including the special tokens the model adds."""
        ...


@dataclass(frozen=True, slots=True)
class ChunkParams:
    """Chunk size and overlap in word pieces; part of the index metadata.

    128 pieces, the length all-MiniLM-L6-v2 was trained on, beat 200 on covid-qa, hybrid and
    vector-only (bench/retrieval.py; README, "Retrieval quality").
    """

    max_tokens: int = 128
    overlap: int = 24
    model_limit: int = 256  # the embedder truncates beyond this, special tokens included
    # Section-aware chunks: headings from the outline, navigation pages marked, running
    # headers and footers cut, and the document's title and section embedded with the text.
    # 0 is the chunking of indexes made before them (they open as built until rebuilt).
    sections: int = 1
    # Bounded chunks: a chunk ends where a section starts (needs `sections`). 0 is the chunking
    # of indexes made before them.
    bounded: int = 0
    # Navigation pages (contents, lists, indexes: ingest/nav.py) embedded by their document's
    # title and their heading alone, not their text: a list of titles and page numbers means
    # nothing as a whole, search demotes those pages anyway (query/retrieve.py NAV_FACTOR) and
    # BM25 still finds their words, while their dense lines were a seventh of the word pieces
    # of a library of manuals. 0: embedded like any page, as indexes made before it were.
    nav_headings: int = 1
    # What is embedded before a chunk's text (needs `sections`): 1 its document's title and its
    # section, as indexes made before this field; 0 nothing (the section still goes to the
    # heading BM25 field and to the hit).
    context: int = 1
    # Code and markup (issue 45): a chunk of more than `code_ratio` tenths of a word piece a
    # whitespace word (TeX, program listings: 2.7 a word against prose's 1.3-1.5) embeds its
    # first `code_head` word pieces, after its title and section; its whole text is stored,
    # searched by its words and shown. 0 (the default): every chunk embedded whole. Measured,
    # not turned on: 2.5x the plain loop on code-heavy manuals, but rank 1 lost on prose ones
    # (docs/performance.md, "Code chunks embedded by their head").
    code_ratio: int = 0
    code_head: int = 48

    def __post_init__(self) -> None:
        if not 0 <= self.overlap < self.max_tokens:
            raise ValueError("overlap must be smaller than the chunk size")
        if self.max_tokens + 2 > self.model_limit:
            raise ValueError("chunks must fit the embedder with its two special tokens")
        if self.code_ratio and not 0 < self.code_head <= self.max_tokens:
            raise ValueError("a code chunk's head must be part of a chunk")

    def to_json(self) -> dict[str, int]:
        out = {"max_tokens": self.max_tokens, "overlap": self.overlap}
        if self.sections:
            out["sections"] = self.sections
        if self.bounded:
            out["bounded"] = self.bounded
        if self.sections and self.nav_headings:  # pages are told apart only with sections
            out["nav_headings"] = self.nav_headings
        if self.sections and self.context != 1:  # 1 is what indexes made before it embed
            out["context"] = self.context
        if self.code_ratio:  # 0 is what indexes made before it embed
            out["code_ratio"] = self.code_ratio
            out["code_head"] = self.code_head
        return out


class WordPieceTokenizer:
    """The embedder's fast tokenizer (tokenizer.json), loaded without torch."""

    def __init__(self, tokenizer_json: Path) -> None:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(tokenizer_json))
        tok.no_truncation()
        tok.no_padding()
        self._tok = tok

    def offsets(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        encodings = self._tok.encode_batch(list(texts), add_special_tokens=False)
        return [list(enc.offsets) for enc in encodings]

    def count(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=True).ids)


@cache
def bundled_tokenizer() -> WordPieceTokenizer:
    from desktop_rag.engines.embed import bundled_model_dir

    return WordPieceTokenizer(bundled_model_dir() / "tokenizer.json")


_SENTENCE_END = ".?!:;"


def _break_score(text: str, prev_end: int, next_start: int) -> int:
    """How good a cut between two word pieces is: paragraph > sentence > word > inside a word."""
    if next_start <= prev_end:
        return 0  # no white space between them: inside a word or before punctuation
    gap = text[prev_end:next_start]
    if "\n\n" in gap:
        return 4
    if prev_end > 0 and text[prev_end - 1] in _SENTENCE_END:
        return 3
    if "\n" in gap:
        return 2
    return 1


def split_page(
    text: str, offsets: Sequence[tuple[int, int]], params: ChunkParams
) -> list[tuple[int, int]]:
    """Character spans of the chunks of one page, each at most params.max_tokens word pieces."""
    n = len(offsets)
    spans: list[tuple[int, int]] = []
    start = 0
    size = params.max_tokens
    while start < n:
        end = min(start + size, n)
        if end < n:
            # Cut at the best boundary in the last 40% of the window.
            best, best_score = end, _break_score(text, offsets[end - 1][1], offsets[end][0])
            for cut in range(end - 1, start + int(size * 0.6), -1):
                score = _break_score(text, offsets[cut - 1][1], offsets[cut][0])
                if score > best_score:
                    best, best_score = cut, score
                    if score == 4:
                        break
            end = best
        spans.append((offsets[start][0], offsets[end - 1][1]))
        if end >= n:
            break
        # The next chunk starts `overlap` pieces back, at the start of a word.
        nxt = max(end - params.overlap, start + 1)
        while nxt < end and _break_score(text, offsets[nxt - 1][1], offsets[nxt][0]) == 0:
            nxt += 1
        start = nxt
    return spans


def _spans(
    text: str,
    offsets: Sequence[tuple[int, int]],
    params: ChunkParams,
    layout: PageLayout | None,
) -> list[tuple[int, int]]:
    """A page's chunk spans; with bounded chunks, cut apart where a section starts, so that no
    chunk holds the end of one section and the start of the next."""
    if not params.bounded or layout is None or not layout.starts:
        return split_page(text, offsets, params)
    cuts = sorted({start for start, _ in layout.starts if start > 0})
    spans: list[tuple[int, int]] = []
    group: list[tuple[int, int]] = []
    at = 0
    for piece in offsets:
        while at < len(cuts) and piece[0] >= cuts[at]:
            if group:
                spans.extend(split_page(text, group, params))
            group = []
            at += 1
        group.append(piece)
    if group:
        spans.extend(split_page(text, group, params))
    return spans


def chunk_pages(
    doc_id: str,
    path: str,
    pages: Sequence[Page],
    tokenizer: TokenOffsets,
    params: ChunkParams | None = None,
    layouts: Sequence[PageLayout] | None = None,
) -> list[Chunk]:
    """Split every page into overlapping chunks that never cross a page boundary.

    With `layouts` (ingest/layout.py), a page is cut only within its body (its running
    headers and footers are left out), each chunk gets the heading in force at its middle,
    and the chunks of a navigation page are marked `nav`.
    """
    params = params or ChunkParams()
    texts = [p.text for p in pages]
    chunks: list[Chunk] = []
    all_offsets = tokenizer.offsets(texts) if texts else []
    for i, (page, offsets) in enumerate(zip(pages, all_offsets, strict=True)):
        layout = layouts[i] if layouts is not None else None
        if layout is not None and layout.body is not None:
            lo, hi = layout.body
            offsets = [o for o in offsets if o[0] >= lo and o[1] <= hi]
        if not offsets:
            continue
        for start, end in _spans(page.text, offsets, params, layout):
            section = page.section
            if layout is not None:
                section = layout.section_at((start + end) // 2)
            chunks.append(
                Chunk(
                    chunk_id=f"{doc_id}:{len(chunks):06d}",
                    doc_id=doc_id,
                    path=path,
                    page=page.number,
                    start=start,
                    end=end,
                    text=page.text[start:end],
                    section=section,
                    nav=bool(layout is not None and layout.nav),
                )
            )
    return chunks


MAX_CONTEXT_CHARS = 200  # of title and section before a chunk's text: context, not content


def document_title(path: str) -> str:
    """A document's title as its file name says it ("3M 2018 10K" for 3M_2018_10K.pdf)."""
    stem = Path(path).stem
    return " ".join(stem.replace("_", " ").split())


def embedded_body(text: str, params: ChunkParams) -> str:
    """What the embedder reads of a chunk's own text: all of it, or of code and markup (more
    word pieces a word than ChunkParams.code_ratio allows) its first code_head word pieces,
    cut where a piece ends."""
    if not params.code_ratio:
        return text
    offsets = bundled_tokenizer().offsets([text])[0]  # the embedder's own word pieces
    if len(offsets) <= params.code_head or 10 * len(offsets) <= params.code_ratio * len(
        text.split()
    ):
        return text
    return text[: offsets[params.code_head - 1][1]]


def embedded_text(chunk: Chunk, params: ChunkParams) -> str:
    """What the embedder reads of a chunk: with section-aware chunking, its document's title
    and its section first, so a passage is matched with the heading it falls under; of a
    navigation page's chunk, those alone (ChunkParams.nav_headings); of code, its head
    (embedded_body)."""
    if not params.sections or (not params.context and not chunk.nav):
        return embedded_body(chunk.text, params)
    context = document_title(chunk.path)
    if chunk.section:
        context = f"{context}{SEPARATOR}{chunk.section}"
    if chunk.nav and params.nav_headings:
        return context[:MAX_CONTEXT_CHARS]
    return f"{context[:MAX_CONTEXT_CHARS]}\n{embedded_body(chunk.text, params)}"


def rechunk_ids(chunks: Iterable[Chunk], doc_id: str, path: str) -> list[Chunk]:
    """The same passages under another document id and path (a renamed or copied file)."""
    return [
        replace(c, chunk_id=f"{doc_id}:{i:06d}", doc_id=doc_id, path=path)
        for i, c in enumerate(chunks)
    ]
