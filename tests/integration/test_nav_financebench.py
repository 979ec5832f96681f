"""Pages of tables are not navigation: no financebench gold evidence page is demoted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_rag.cleaning import clean_text
from desktop_rag.ingest.nav import nav_reason

pytestmark = pytest.mark.slow  # every gold page of the financebench filings


def test_no_financebench_evidence_page_is_a_navigation_page(corpus: Path) -> None:
    import pypdfium2 as pdfium

    folder = corpus / "financebench" / "pdfs"
    gold: dict[str, set[int]] = {}
    with open(corpus / "financebench" / "financebench_open_source.jsonl", encoding="utf-8") as f:
        for line in f:
            for e in json.loads(line)["evidence"]:
                gold.setdefault(e["doc_name"], set()).add(int(e["evidence_page_num"]))
    checked = 0
    demoted = []
    for doc, pages in sorted(gold.items()):
        path = folder / f"{doc}.pdf"
        if not path.exists():
            continue
        pdf = pdfium.PdfDocument(str(path))
        try:
            for index in sorted(pages):
                page = pdf[index]
                textpage = page.get_textpage()
                text = clean_text(textpage.get_text_range())
                textpage.close()
                page.close()
                checked += 1
                if nav_reason(text):
                    demoted.append(f"{doc} page {index + 1}: {nav_reason(text)}")
        finally:
            pdf.close()
    assert checked > 100  # the corpus has 129 questions with their filing
    assert demoted == []
