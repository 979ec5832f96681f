"""A Word file converted from an HTML manual (Texinfo's layout, navigation lines and all),
indexed and searched through the CLI with the real embedder: the section that answers comes
first, not the navigation lines that name it ("Next: ..., Previous: ..., Up: ... [Contents]")."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.helpers.cli import cli

pytestmark = pytest.mark.slow

# The R FAQ's chapter 2 as `makeinfo --html` lays it out (nodes, titles and navigation as in
# the GNU manual; the answers shortened): each node opens with its navigation panel.
NODES = [
    ("2 R Basics", 2, "This chapter answers the questions people ask first about R."),
    ("2.1 What is R?", 3, "R is a system for statistical computation and graphics. It consists "
     "of a language plus a run-time environment with graphics, a debugger and access to "
     "certain system functions."),
    ("2.2 What machines does R run on?", 3, "R is being developed for the Unix-like, Windows "
     "and Mac families of operating systems."),
    ("2.3 What is the current version of R?", 3, "The current released version is 4.4.1. "
     "Based on this number, the development team releases a new version each spring."),
    ("2.4 How can R be obtained?", 3, "Sources, binaries and documentation for R can be "
     "obtained via CRAN, the Comprehensive R Archive Network, from its many mirrors."),
    ("2.5 How can R be installed?", 3, "Unpack the sources, run configure and make, then make "
     "install; binaries come with their own installer."),
    ("2.6 Are there Unix-like binaries for R?", 3, "Debian, Fedora, SUSE and Ubuntu package "
     "R; see the README files in the bin/linux directory on CRAN."),
    ("2.7 What documentation exists for R?", 3, "Online documentation for most of the "
     "functions and variables in R exists, and can be printed on-screen by typing help(name)."),
]  # fmt: skip


def texinfo_html() -> str:
    parts = ["<html><body>"]
    for i, (title, level, text) in enumerate(NODES):
        links = []
        if i + 1 < len(NODES):
            links.append(f'Next: <a href="#n{i + 1}">{NODES[i + 1][0]}</a>')
        if i > 0:
            links.append(f'Previous: <a href="#n{i - 1}">{NODES[i - 1][0]}</a>')
        links.append(f'Up: <a href="#n0">{NODES[0][0] if i else "Top"}</a>')
        nav = ", ".join(links)
        parts.append(
            f'<div class="nav-panel"><p>{nav} &nbsp; [<a href="#toc">Contents</a>]'
            f'[<a href="#idx">Index</a>]</p></div><hr>'
            f'<h{level} id="n{i}">{title}</h{level}><p>{text}</p>'
        )
    parts.append("</body></html>")
    return "".join(parts)


class _ToDocx(HTMLParser):
    """HTML headings to Word headings, paragraphs to paragraphs (what a converter keeps)."""

    def __init__(self) -> None:
        super().__init__()
        import docx

        self.doc = docx.Document()
        self.tag = ""
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in ("p", "h1", "h2", "h3", "h4"):
            self.tag, self.text = tag, []

    def handle_data(self, data: str) -> None:
        if self.tag:
            self.text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag != self.tag:
            return
        text = " ".join("".join(self.text).split())
        if tag == "p":
            self.doc.add_paragraph(text)
        else:
            self.doc.add_heading(text, int(tag[1]) - 1)
        self.tag = ""


def make_manual_docx(path: Path) -> Path:
    converter = _ToDocx()
    converter.feed(texinfo_html())
    converter.doc.save(str(path))
    return path


def test_the_section_outranks_the_navigation_lines_that_name_it(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    make_manual_docx(lib / "R-FAQ.docx")
    data = tmp_path / "data"
    indexed = cli("index", str(lib), "--json", data_dir=data)
    assert indexed.returncode == 0, indexed.stderr
    queries = ["How can R be obtained?", "What is the current version of R?"]
    result = cli("search", "-", "-k", "5", "--json", data_dir=data, stdin="\n".join(queries))
    assert result.returncode == 0, result.stderr
    for query, line in zip(queries, result.stdout.splitlines(), strict=True):
        hits = json.loads(line)["hits"]
        assert hits[0]["section"].endswith(query), (query, hits[0])
        for hit in hits:
            assert "Next:" not in hit["text"] and "[Contents]" not in hit["text"], (query, hit)
    plain = cli("search", "How can R be obtained?", "-k", "1", data_dir=data)
    assert "R-FAQ.docx, § 2.4 How can R be obtained?" in plain.stdout, plain.stdout
