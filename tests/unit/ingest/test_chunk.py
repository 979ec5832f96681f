"""Chunking: page boundaries, overlap, spans, and the embedder's 256-word-piece limit."""

from __future__ import annotations

import itertools

import pytest

from desktop_rag.ingest.chunk import (
    ChunkParams,
    bundled_tokenizer,
    chunk_pages,
    embedded_text,
    split_page,
)
from desktop_rag.types import Chunk, Page
from tests.fakes import WordTokenizer


def _words(n: int, prefix: str = "w") -> str:
    return " ".join(f"{prefix}{i}" for i in range(n))


def test_chunks_never_cross_pages_and_know_their_page():
    pages = [Page(1, _words(30, "a")), Page(2, ""), Page(3, _words(30, "c"))]
    chunks = chunk_pages("d", "/x.pdf", pages, WordTokenizer(), ChunkParams(20, 5))
    assert {c.page for c in chunks} == {1, 3}
    for c in chunks:
        prefix = "a" if c.page == 1 else "c"
        assert all(w.startswith(prefix) for w in c.text.split())


def test_span_is_the_text_on_the_page():
    text = "First sentence here. " * 40
    pages = [Page(7, text)]
    for c in chunk_pages("d", "/x.pdf", pages, WordTokenizer(), ChunkParams(25, 5)):
        assert text[c.start : c.end] == c.text
        assert c.page == 7


def test_neighbours_overlap_and_cover_everything():
    text = _words(500)
    params = ChunkParams(50, 10)
    spans = split_page(text, WordTokenizer().offsets([text])[0], params)
    assert len(spans) > 1
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    for (s1, e1), (s2, _e2) in itertools.pairwise(spans):
        assert s2 < e1, "consecutive chunks must overlap"
        assert s2 > s1, "every chunk must move forward"
        overlap_words = len(text[s2:e1].split())
        assert 5 <= overlap_words <= 12


def test_prefers_sentence_boundaries():
    sentence = "The quick brown fox jumps over the lazy dog. "
    text = sentence * 30
    spans = split_page(text, WordTokenizer().offsets([text])[0], ChunkParams(40, 8))
    for start, end in spans[:-1]:
        assert text[start:end].endswith(".")


def test_ids_are_stable_and_unique():
    pages = [Page(1, _words(300))]
    a = chunk_pages("doc", "/x.pdf", pages, WordTokenizer(), ChunkParams(50, 10))
    b = chunk_pages("doc", "/x.pdf", pages, WordTokenizer(), ChunkParams(50, 10))
    assert [c.chunk_id for c in a] == [c.chunk_id for c in b]
    assert len({c.chunk_id for c in a}) == len(a)


def test_params_must_fit_the_model():
    with pytest.raises(ValueError):
        ChunkParams(max_tokens=255)
    with pytest.raises(ValueError):
        ChunkParams(max_tokens=50, overlap=50)


def test_real_wordpieces_never_exceed_the_model_limit():
    """With the real tokenizer: dense numbers, long words and URLs split into many pieces."""
    tok = bundled_tokenizer()
    text = " ".join(
        [
            "Revenue 2023: $1,234,567.89 (up 12.5%) vs. $1,097,345.12;",
            "pneumonoultramicroscopicsilicovolcanoconiosis",
            "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC2752805/",
            "antidisestablishmentarianism électroencéphalographie",
        ]
        * 60
    )
    params = ChunkParams()
    chunks = chunk_pages("d", "/x.pdf", [Page(1, text)], tok, params)
    assert len(chunks) > 3
    for c in chunks:
        assert tok.count(c.text) <= params.model_limit
        # The whole chunk is what the embedder sees: its count (with [CLS] and [SEP]) fits.
        assert tok.count(c.text) <= params.max_tokens + 2


def _chunk(text: str, section: str = "", nav: bool = False) -> Chunk:
    return Chunk("d:000000", "d", "/lib/R_exts.pdf", 3, 0, len(text), text, section, nav)


def test_context_is_embedded_before_the_text_unless_turned_off():
    chunk = _chunk("Use R CMD check.", "Creating R packages")
    assert embedded_text(chunk, ChunkParams()) == "R exts › Creating R packages\nUse R CMD check."
    assert embedded_text(chunk, ChunkParams(context=0)) == "Use R CMD check."
    # A navigation page is still embedded by its heading alone: its text is no passage.
    nav = _chunk("1 Intro . . . 3\n2 Setup . . . 9", "Contents", nav=True)
    assert embedded_text(nav, ChunkParams(context=0)) == "R exts › Contents"


def test_context_is_in_the_index_metadata_only_when_it_changes_what_is_embedded():
    # Indexes made before the field embed the context: their metadata must still match.
    assert "context" not in ChunkParams().to_json()
    assert ChunkParams(context=0).to_json()["context"] == 0
    assert ChunkParams(context=0).to_json() != ChunkParams().to_json()


_TEX = (
    r"\begin{tabular}{|l|c|r|}\hline \multicolumn{2}{c}{\textbf{x}} & "
    r"\verb|\attachfile[icon=Paperclip]{a.tex}| \\ \hline \end{tabular} "
)


def test_a_code_chunk_embeds_its_head_and_keeps_its_whole_text():
    tok = bundled_tokenizer()
    params = ChunkParams(code_ratio=20, code_head=48)
    [chunk] = chunk_pages("d", "/lib/R_exts.pdf", [Page(3, _TEX + _TEX[:100])], tok, params)
    assert tok.count(chunk.text) > 100  # the chunk itself is whole: stored and searched so
    head = embedded_text(chunk, params)
    title, body = head.split("\n", 1)
    assert title == "R exts"
    assert chunk.text.startswith(body)
    assert tok.count(body) == 48 + 2  # its first 48 word pieces, and [CLS], [SEP]
    # Without the cap (the default, as indexes made before it), all of it.
    assert embedded_text(chunk, ChunkParams()) == f"R exts\n{chunk.text}"


def test_prose_and_short_code_are_embedded_whole():
    tok = bundled_tokenizer()
    params = ChunkParams(code_ratio=20, code_head=48)
    prose = "Use R CMD check before you submit a package to CRAN. " * 8
    short = _TEX[:60]
    assert tok.count(prose) > 48 + 2  # long enough to be cut, were it code
    assert 10 * tok.count(short) > 20 * len(short.split())  # code, too short to be cut
    for text in (prose, short):
        assert embedded_text(_chunk(text), params) == f"R exts\n{text}"


def test_the_code_cap_is_in_the_index_metadata_only_when_on():
    assert "code_ratio" not in ChunkParams(code_ratio=0).to_json()
    capped = ChunkParams(code_ratio=20, code_head=48).to_json()
    assert (capped["code_ratio"], capped["code_head"]) == (20, 48)
    with pytest.raises(ValueError):
        ChunkParams(code_ratio=20, code_head=0)
