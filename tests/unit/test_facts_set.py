"""bench/questions/manuals-facts.jsonl: the shape of the set, and each must-word on its page.

The set (issue 29) asks questions about the manuals of bench/manuals.py the way users do, each
with the page that states the fact and the words a right answer must hold. The page check reads
the manuals downloaded by `python bench/manuals.py` and is skipped when they are absent.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = REPO / "bench" / "questions"
MANUALS = REPO / "bench" / "data" / "manuals"
# An independent check is built from these two FAQs: nothing may be tuned on them.
EXCLUDED = ("R-FAQ", "debian-faq")
KINDS = {"howto", "what", "which", "why", "yesno", "number"}


def _rows() -> list[dict]:
    with open(QUESTIONS / "manuals-facts.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _splits() -> dict[str, list[str]]:
    with open(QUESTIONS / "splits.json", encoding="utf-8") as f:
        return json.load(f)["manuals"]


def test_set_has_both_halves_spread_over_the_manuals():
    rows = _rows()
    splits = _splits()
    assert len(rows) >= 70
    for row in rows:
        assert set(row) == {"pdf", "page", "question", "must", "split", "kind"}, row
        assert not any(x.lower() in row["pdf"].lower() for x in EXCLUDED), row
        expected = "tune" if row["pdf"] in splits["tune"] else "report"
        assert row["pdf"] in splits["tune"] + splits["held_out"], row
        assert row["split"] == expected, row
        assert row["kind"] in KINDS, row
        assert isinstance(row["page"], int) and row["page"] >= 1, row
        assert 1 <= len(row["must"]) <= 5, row
        # A must-word the question already holds would be found in any answer that echoes it.
        assert not any(m.lower() in row["question"].lower() for m in row["must"]), row
    by_split = Counter(r["split"] for r in rows)
    assert by_split["tune"] >= 35 and by_split["report"] >= 35, by_split
    by_pdf = Counter(r["pdf"] for r in rows)
    assert max(by_pdf.values()) <= 8, by_pdf
    pages = Counter((r["pdf"], r["page"]) for r in rows)
    assert max(pages.values()) == 1, [p for p, n in pages.items() if n > 1]
    assert len({r["question"] for r in rows}) == len(rows)


def _page_texts(pdf: Path, numbers: set[int]) -> dict[int, str]:
    """The pages as the app reads them: pdfium's text, cleaned by the ingest's clean_text."""
    import pypdfium2 as pdfium

    from desktop_rag.cleaning import clean_text

    doc = pdfium.PdfDocument(str(pdf))
    try:
        texts = {}
        for number in sorted(numbers):
            page = doc[number - 1]
            textpage = page.get_textpage()
            try:
                texts[number] = clean_text(textpage.get_text_range())
            finally:
                textpage.close()
                page.close()
        return texts
    finally:
        doc.close()


def test_every_must_word_is_on_its_page():
    rows = _rows()
    pdfs = sorted({r["pdf"] for r in rows})
    missing_pdfs = [p for p in pdfs if not (MANUALS / p).exists()]
    if missing_pdfs:
        pytest.skip(f"manuals not downloaded (python bench/manuals.py): {missing_pdfs[:3]}")
    wanted: dict[str, set[int]] = {}
    for row in rows:
        wanted.setdefault(row["pdf"], set()).add(row["page"])
    texts = {pdf: _page_texts(MANUALS / pdf, pages) for pdf, pages in wanted.items()}
    absent = [
        (row["pdf"], row["page"], word)
        for row in rows
        for word in row["must"]
        if word.lower() not in texts[row["pdf"]][row["page"]].lower()
    ]
    assert not absent
