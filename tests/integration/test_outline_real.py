"""`desktop-rag outline` with the real embedder and LanceDB on a real PDF with bookmarks (an
earnings release from the shared corpus), through the CLI, offline."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_rag.config import Settings
from desktop_rag.store.lance import LanceStore
from tests.helpers.cli import cli

pytestmark = pytest.mark.slow

AMCOR = "financebench/pdfs/AMCOR_2023Q4_EARNINGS.pdf"
# Its bookmarks, (title, first page), as pdfium reads them.
BOOKMARKS = [
    ("Highlights", 1),
    ("Key Financials", 2),
    ("Narrative", 2),
    ("Financial Results", 2),
    ("Outlook and Other", 5),
    ("Cautionary Statements", 6),
    ("GAAP Statement of Income", 8),
    ("GAAP Statement of Cash Flows", 9),
    ("GAAP Balance Sheet", 9),
    ("Pro Forma Statement of Income", 9),
    ("Recon of Non-GAAP Measures", 10),
]


@pytest.fixture(scope="module")
def outlined(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict, dict]:
    from tests.conftest import CORPUS

    pdf = CORPUS / AMCOR
    if not pdf.is_file():
        pytest.skip(f"{AMCOR} is not in ../shared/corpus")
    data = tmp_path_factory.mktemp("outline") / "data"
    first = cli("outline", str(pdf), "--json", data_dir=data)
    assert first.returncode == 0, first.stderr
    second = cli("outline", str(pdf), "--json", data_dir=data)
    assert second.returncode == 0, second.stderr
    return pdf, data, json.loads(first.stdout), json.loads(second.stdout)


def test_the_sections_are_the_pdfs_bookmarks_at_their_pages(outlined) -> None:
    _, _, outline, _ = outlined
    assert outline["headings"] is True
    assert [(s["title"], s["page"]) for s in outline["sections"]] == BOOKMARKS
    with_text = [s["title"] for s in outline["sections"] if s["sentences"]]
    for title in ("Highlights", "Narrative", "Outlook and Other", "Cautionary Statements"):
        assert title in with_text


def test_every_sentence_is_verbatim_on_its_cited_page_within_its_section(outlined) -> None:
    pdf, data, outline, _ = outlined
    settings = Settings(data_dir=str(data))
    store = LanceStore.open_as_built(settings.index_path)
    (doc,) = [d for d in store.documents() if d.path == str(pdf)]
    pages: dict[int, str] = {}
    for row in store.chunk_rows(doc.doc_id):
        pages[row["page"]] = pages.get(row["page"], "") + " " + " ".join(row["text"].split())
    sections = outline["sections"]
    for i, section in enumerate(sections):
        # A section runs to the page the next one with text starts on.
        end = next((s["page"] for s in sections[i + 1 :] if s["page"] > section["page"]), 99)
        for sentence in section["sentences"]:
            assert sentence["text"] in pages[sentence["page"]]
            assert section["page"] <= sentence["page"] <= end, (section["title"], sentence)
    assert outline["gist"]
    for sentence in outline["gist"]:
        assert sentence["text"] in pages[sentence["page"]]


def test_asking_again_reads_the_kept_outline(outlined) -> None:
    _, _, first, second = outlined
    assert first["cached"] is False and second["cached"] is True
    assert second["sections"] == first["sections"] and second["gist"] == first["gist"]
    assert second["key"] == first["key"] and first["key"]


def test_the_outline_is_built_with_no_network(outlined, tmp_path: Path) -> None:
    pdf, data, outline, _ = outlined
    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is not installed: cannot cut the network")
    if subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare -rn is not permitted here")
    fresh = tmp_path / "data"
    shutil.copytree(data / "index", fresh / "index")  # indexed, but no outline kept
    result = subprocess.run(
        ["unshare", "-rn", sys.executable, "-m", "desktop_rag", "outline", str(pdf), "--json",
         "--data-dir", str(fresh)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    offline = json.loads(result.stdout)
    assert offline["cached"] is False
    assert offline["sections"] == outline["sections"]


def test_a_file_that_cannot_be_indexed_or_is_missing_says_why(tmp_path: Path) -> None:
    fake = tmp_path / "fake.pdf"
    fake.write_text("<!doctype html><html>not a pdf</html>")
    result = cli("outline", str(fake), data_dir=tmp_path / "data")
    assert result.returncode == 1, result.stderr
    assert "fake.pdf" in result.stderr and "web page" in result.stderr
    assert result.stdout == ""
    missing = cli("outline", str(tmp_path / "nowhere.pdf"), data_dir=tmp_path / "data")
    assert missing.returncode == 2 and "is not a file" in missing.stderr
