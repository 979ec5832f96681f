"""Plain text and reStructuredText: the encoding found, headings made sections."""

from __future__ import annotations

import re

from desktop_rag.cleaning import clean_text
from desktop_rag.ingest.readers.base import decode, read_bytes
from desktop_rag.ingest.readers.sections import Outline
from desktop_rag.types import Page


def read_plain(path: str) -> list[Page]:
    """A text file; a form feed (as in old manuals and man pages) starts a new page."""
    text, _ = decode(read_bytes(path))
    parts = (clean_text(part) for part in text.split("\f"))
    return [Page(n, part) for n, part in enumerate(parts, start=1) if part]


# An RST section title is underlined (and maybe overlined) with one punctuation character
# repeated at least as long as the title; levels go by the order styles first appear.
_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}\s*$")


# Directives whose argument is a title (a rubric is an informal heading), ones whose argument
# is not text (images), and the options and comments that are markup, not prose.
_TITLE_DIRECTIVE = re.compile(r"^\s*\.\.\s+(?:rubric|topic|sidebar|title)::\s*(\S.*)$")
_DIRECTIVE = re.compile(r"^\s*\.\.\s+([\w:-]+)::\s*(.*)$")
# Admonitions may start their text on the directive's line; other arguments are class names,
# languages, paths.
_TEXT_DIRECTIVES = frozenset(
    {"note", "warning", "tip", "hint", "important", "caution", "attention", "danger", "error",
     "admonition", "seealso", "versionadded", "versionchanged", "deprecated"}
)  # fmt: skip
_OPTION = re.compile(r"^\s+:[\w-]+:(?:\s.*)?$")
_COMMENT = re.compile(r"^\s*\.\.(?:\s+[^:]*)?$|^\s*\.\.\s+_[^:]*:.*$|^\s*\.\.\s+\|[^|]+\|.*$")
_INLINE = (
    (re.compile(r"`([^`<]+?)\s*<[^>]+>`__?"), r"\1"),  # `text <url>`_
    (re.compile(r":[\w:-]+:`([^`]+)`"), r"\1"),  # :role:`text`
    (re.compile(r"``([^`]+)``"), r"\1"),
    (re.compile(r"`([^`]+)`_{0,2}"), r"\1"),
    (re.compile(r"\*\*([^*]+)\*\*"), r"\1"),
    (re.compile(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])"), r"\1"),
    (re.compile(r"\|([\w -]+)\|_?"), r"\1"),
)
RUBRIC_LEVEL = 99  # under the real sections, replacing only one another


def _rst_inline(line: str) -> str:
    for pattern, repl in _INLINE:
        line = pattern.sub(repl, line)
    return line


def read_rst(path: str) -> list[Page]:
    """reStructuredText read as a reader sees it: titles (underlined, overlined, rubrics) give
    sections; directive and option lines, comments and inline markup are left out."""
    text, _ = decode(read_bytes(path))
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    outline = Outline()
    styles: list[tuple[str, bool]] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            outline.text("\n".join(paragraph))
            paragraph.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        over = bool(_ADORNMENT.match(line))
        # Overline, title, underline.
        if (
            over
            and i + 2 < len(lines)
            and lines[i + 1].strip()
            and _ADORNMENT.match(lines[i + 2])
            and lines[i + 2].strip()[0] == line.strip()[0]
        ):
            title, style, i = lines[i + 1].strip(), (line.strip()[0], True), i + 3
        elif (
            line.strip()
            and not over
            and i + 1 < len(lines)
            and _ADORNMENT.match(lines[i + 1])
            and len(lines[i + 1].rstrip()) >= len(line.rstrip())
        ):
            title, style, i = line.strip(), (lines[i + 1].strip()[0], False), i + 2
        else:
            i += 1
            title_directive = _TITLE_DIRECTIVE.match(line)
            directive = _DIRECTIVE.match(line)
            if title_directive:
                flush()
                outline.heading(RUBRIC_LEVEL, _rst_inline(title_directive.group(1)))
            elif directive:
                flush()
                if directive.group(1) in _TEXT_DIRECTIVES and directive.group(2):
                    paragraph.append(_rst_inline(directive.group(2)))
            elif _OPTION.match(line) or _COMMENT.match(line):
                continue
            elif line.strip():
                paragraph.append(_rst_inline(line.strip()))
            else:
                flush()
            continue
        flush()
        if style not in styles:
            styles.append(style)
        outline.heading(styles.index(style) + 1, _rst_inline(title))
    flush()
    return outline.pages()
