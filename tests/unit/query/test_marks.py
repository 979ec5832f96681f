"""cleaning.py's clean_with_map (for query/marks.py) replays its clean_text (for the readers):
the two must agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.cleaning import clean_text, clean_with_map

CASES = [
    "plain words",
    "  lead and trail  \n",
    "ﬁne ligature and ﬂow",
    "windows\r\nline\rends\n",
    "hyphen-\u0002\nated and soft\u00ad\nhyphen",
    "a\u0007bell\x00nul\ttab",
    "many    spaces\u00a0and\f\vothers",
    "one\n\n\n\n\nmany blank lines\n\n",
    "cafe\u0301 and na\u0308ive: combining accents composed",
    "\u0301 a mark with nothing before it",
    "",
    "\n\n  \n",
]


@pytest.mark.parametrize("raw", CASES)
def test_the_replay_gives_clean_texts_text_and_a_map_into_raw(raw: str) -> None:
    text, where = clean_with_map(raw)
    assert text == clean_text(raw)
    assert len(where) == len(text)
    assert where == sorted(where) and all(0 <= i < len(raw) for i in where)


def test_the_replay_agrees_on_real_pages() -> None:
    import pypdfium2 as pdfium

    guide = Path(__file__).resolve().parents[3] / "resources" / "guide"
    pdfs = sorted(guide.glob("*.pdf"))
    assert pdfs, f"no PDF in {guide}"
    for pdf_path in pdfs:
        pdf = pdfium.PdfDocument(str(pdf_path))
        try:
            for page in pdf:
                raw = page.get_textpage().get_text_range()
                assert clean_with_map(raw)[0] == clean_text(raw), pdf_path.name
        finally:
            pdf.close()
