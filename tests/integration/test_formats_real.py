"""A folder of every format, indexed through the CLI with the real embedder and reader
processes, then searched and asked: each format's fact is found in its file and section."""

from __future__ import annotations

import json

import pytest

from tests.docgen import html_of, make_docx, make_epub, make_odt
from tests.helpers.cli import cli
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.slow


def _manual(fact: str) -> list[tuple[int, str, list[str]]]:
    return [
        (1, "1 Overview", ["This guide describes the workshop and its tools in general terms."]),
        (1, "2 Storage", []),
        (2, "2.3 Where things are kept", [fact]),
    ]


FACTS = {
    "tools.docx": "The torque wrench is kept in the blue Zanzibar cabinet.",
    "tools.odt": "The soldering iron is kept in the green Quillfeather drawer.",
    "tools.epub": "The laser level is kept in the yellow Marrowdale crate.",
    "tools.html": "The bench grinder is kept in the red Tolliver locker.",
    "tools.md": "The glue gun is kept in the orange Brackenby box.",
    "tools.rst": "The wire stripper is kept in the purple Hollowmere tray.",
    "tools.txt": "The chisel set is kept in the grey Windermoss bag.",
    "tools.pdf": "The hand plane is kept in the white Penrithal chest.",
}
SECTION = "2 Storage › 2.3 Where things are kept"


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    root = tmp_path_factory.mktemp("formats")
    lib = root / "workshop"
    lib.mkdir()
    for name, fact in FACTS.items():
        path = lib / name
        sections = _manual(fact)
        if name.endswith(".docx"):
            make_docx(path, sections)
        elif name.endswith(".odt"):
            make_odt(path, sections)
        elif name.endswith(".epub"):
            make_epub(path, [sections[:1], sections[1:]])
        elif name.endswith(".html"):
            path.write_text(html_of(sections), encoding="utf-8")
        elif name.endswith(".md"):
            body = [f"{'#' * level} {title}\n\n" + "\n\n".join(ps) for level, title, ps in sections]
            path.write_text("\n\n".join(body), encoding="utf-8")
        elif name.endswith(".rst"):
            marks = {1: "=", 2: "-"}
            body = [
                f"{title}\n{marks[level] * len(title)}\n\n" + "\n\n".join(ps)
                for level, title, ps in sections
            ]
            path.write_text("\n\n".join(body), encoding="cp1252")
        elif name.endswith(".txt"):
            path.write_text("Workshop notes.\n\n" + fact, encoding="utf-16")
        else:
            make_pdf(path, ["Workshop notes. " + sections[0][2][0], fact])
    (lib / "broken.epub").write_bytes(b"PK\x03\x04 truncated")
    data = root / "data"
    result = cli("index", str(lib), "--json", data_dir=data)
    return lib, data, result


def test_every_format_is_indexed_and_a_bad_one_gets_a_reason(library):
    _, _, result = library
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["indexed"] == len(FACTS)
    (failed,) = report["failed"]
    assert failed["path"].endswith("broken.epub") and "damaged" in failed["reason"]


def test_a_word_from_each_format_finds_its_file_and_section(library):
    _, data, _ = library
    names = list(FACTS)
    queries = "".join(f"where is the {FACTS[n].split()[1]} {FACTS[n].split()[2]}?\n" for n in names)
    result = cli("search", "-", "-k", "1", "--json", data_dir=data, stdin=queries)
    assert result.returncode == 0, result.stderr
    for name, line in zip(names, result.stdout.splitlines(), strict=True):
        (hit,) = json.loads(line)["hits"]
        assert hit["path"].endswith(name), (name, hit)
        assert FACTS[name].split()[-2] in hit["text"]
        assert set(hit) == {"path", "page", "section", "score", "text"}
        if name.endswith(".pdf"):
            assert (hit["page"], hit["section"]) == (2, "")
        elif name.endswith(".txt"):
            assert hit["section"] == ""
        else:
            assert hit["section"] == SECTION, name
    plain = cli("search", "Zanzibar cabinet", "-k", "1", data_dir=data)
    assert "tools.docx, § 2.3" in plain.stdout


def test_ask_cites_the_docx_by_its_section(library):
    _, data, _ = library
    result = cli("ask", "Where is the torque wrench kept?", "--json", "-k", "3", data_dir=data)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    first = answer["sources"][0]
    assert first["path"].endswith("tools.docx") and first["section"] == SECTION
    plain = cli("ask", "Where is the torque wrench kept?", "-k", "1", data_dir=data)
    assert "tools.docx, § 2.3" in plain.stdout
