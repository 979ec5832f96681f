"""HTML and XHTML pages: the text a reader sees, headings made sections, navigation left out.

selectolax (the Lexbor engine): an HTML5 parser in C, about ten times faster than
BeautifulSoup on lxml, tolerant of broken markup, and one small wheel with no dependencies.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from desktop_rag.ingest.readers.base import decode, read_bytes
from desktop_rag.ingest.readers.sections import Outline
from desktop_rag.types import Page

# Not what the page says: code, styling, menus and forms.
_SKIP = frozenset(
    {
        "script", "style", "noscript", "template", "nav", "head", "iframe", "svg", "canvas",
        "object", "embed", "select", "button", "math",
    }
)  # fmt: skip
# Elements that end a line of text: each is a block of its own for chunking.
_BLOCKS = frozenset(
    {
        "p", "div", "li", "dt", "dd", "tr", "pre", "blockquote", "section", "article", "main",
        "table", "ul", "ol", "dl", "figure", "figcaption", "caption", "address", "hr", "aside",
        "header", "footer", "details", "summary", "body", "center", "form", "fieldset",
        "legend", "thead", "tbody", "tfoot",
    }
)  # fmt: skip
_CELLS = frozenset({"td", "th"})
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_NAV_ROLES = frozenset({"navigation", "banner", "contentinfo", "search", "doc-toc"})
_WS = re.compile(r"\s+")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_HEADERLINK = re.compile(r"[¶#§]+$")  # Sphinx and others put a permalink sign after titles


def read_html(path: str) -> list[Page]:
    data = read_bytes(path)
    match = _META_CHARSET.search(data[:4096])
    declared = match.group(1).decode("ascii", "replace") if match else None
    text, _ = decode(data, declared)
    return read_html_text(text)


def read_html_text(html: str) -> list[Page]:
    """The sections of an HTML document, in reading order."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    root = tree.body or tree.root
    outline = Outline()
    if root is None:
        return outline.pages()
    title = tree.css_first("title")
    _walk(root, outline)
    pages = outline.pages()
    if pages and not any(p.section for p in pages) and title is not None:
        # A page with no headings is still known by its title (an EPUB chapter, a saved page).
        name = " ".join(title.text().split())
        if name:
            pages = [Page(p.number, p.text, name) for p in pages]
    return pages


def _children(node: Any) -> Iterator[Any]:
    return iter(node.iter(include_text=True))


def _skipped(node: Any) -> bool:
    if node.tag in _SKIP:
        return True
    attrs = node.attributes
    if "hidden" in attrs or attrs.get("aria-hidden") == "true":
        return True
    if (attrs.get("role") or "") in _NAV_ROLES:
        return True
    epub_type = attrs.get("epub:type") or ""
    return any(t in epub_type for t in ("toc", "landmarks", "page-list"))


def _walk(root: Any, outline: Outline) -> None:
    """Depth first without recursion: real pages nest deeper than Python's stack allows."""
    buf: list[str] = []

    def flush() -> None:
        if buf:
            outline.text("".join(buf))
            buf.clear()

    stack: list[tuple[Iterator[Any], str, bool]] = [(_children(root), root.tag or "", False)]
    while stack:
        children, tag, pre = stack[-1]
        node = next(children, None)
        if node is None:
            stack.pop()
            if tag in _BLOCKS and pre and tag != "pre":
                buf.append("\n")  # a block inside preformatted text keeps its line break
            elif tag in _BLOCKS:
                flush()
            continue
        if node.is_text_node:
            text = node.text_content or ""
            buf.append(text if pre else _WS.sub(" ", text))
            continue
        if not node.is_element_node or _skipped(node):
            continue
        name = node.tag
        if name in _HEADINGS:
            flush()
            title = _HEADERLINK.sub("", " ".join(node.text(deep=True).split())).strip()
            outline.heading(_HEADINGS[name], title)
            continue
        if name == "br":
            buf.append("\n")
            continue
        if name in _CELLS:
            buf.append(" ")
        elif name in _BLOCKS and not pre:
            flush()
        stack.append((_children(node), name, pre or name == "pre"))
    flush()
