"""Plain text, Markdown and reStructuredText: the encoding found, headings made sections."""

from __future__ import annotations

import codecs
import re
import unicodedata

from desktop_rag.ingest.extract import ExtractError, clean_text
from desktop_rag.ingest.readers.sections import Outline
from desktop_rag.types import FailKind, Page

MAX_TEXT_BYTES = 256 * 1024 * 1024  # a text file beyond this is a log or a data dump
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16: its BOM starts with UTF-16 LE's
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def read_bytes(path: str, limit: int = MAX_TEXT_BYTES) -> bytes:
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ExtractError(
            FailKind.TOO_LARGE,
            f"is larger than {limit // 2**20} MB of text; split it into smaller files.",
        )
    return data


def decode(data: bytes, declared: str | None = None) -> tuple[str, str]:
    """The text and the encoding it was read with.

    A byte-order mark decides; then a declared encoding (an HTML meta charset), then UTF-8,
    then Windows-1252 (what "ANSI" text from Windows is), then Latin-1, which decodes any
    byte. Text that still reads as control characters and NULs is not text: an ExtractError.
    """
    text: str | None = None
    encoding = ""
    for bom, name in _BOMS:
        if data.startswith(bom):
            text, encoding = _try(data, name), name
            break
    if text is None and _looks_utf16(data):
        for name in ("utf-16-le", "utf-16-be"):
            text = _try(data, name)
            if text is not None and not _is_binary(text):
                encoding = name
                break
            text = None
    candidates = [declared] if declared and _known(declared) else []
    for name in [*candidates, "utf-8", "cp1252", "latin-1"]:
        if text is not None:
            break
        text, encoding = _try(data, name), name
    if text is None or _is_binary(text):
        raise ExtractError(
            FailKind.NOT_FORMAT,
            "does not hold readable text (it looks like binary data with a text file's name). "
            "Open it in the program that made it and save it as text, PDF or Word.",
        )
    return text.lstrip("\ufeff"), encoding


def _try(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def _known(name: str) -> bool:
    try:
        codecs.lookup(name)
    except LookupError:
        return False
    return True


def _looks_utf16(data: bytes) -> bool:
    """UTF-16 without a mark: every other byte is NUL in Latin text."""
    sample = data[:4096]
    if len(sample) < 16:
        return False
    return max(sample[0::2].count(0), sample[1::2].count(0)) > 0.4 * len(sample) / 2


_NOT_TEXT = frozenset({"Cc", "Cn", "Co"})  # controls, unassigned and private-use characters


def _is_binary(text: str) -> bool:
    sample = text[:65536]
    if not sample:
        return False
    bad = sum(
        1
        for ch in sample
        if unicodedata.category(ch) in ("Cc", "Cn", "Co") and ch not in "\n\r\t\f"
    )
    return "\x00" in sample or bad > 0.05 * len(sample)


def read_plain(path: str) -> list[Page]:
    """A text file; a form feed (as in old manuals and man pages) starts a new page."""
    text, _ = decode(read_bytes(path))
    parts = (clean_text(part) for part in text.split("\f"))
    return [Page(n, part) for n, part in enumerate(parts, start=1) if part]


def read_markdown(path: str) -> list[Page]:
    """Markdown rendered by markdown-it-py (CommonMark, with tables), then read as HTML."""
    from markdown_it import MarkdownIt

    from desktop_rag.ingest.readers.html import read_html_text

    text, _ = decode(read_bytes(path))
    html = MarkdownIt("commonmark").enable("table").render(text)
    return read_html_text(html)


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
