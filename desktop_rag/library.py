"""The user's library: the first-start folder with the guide, and files dropped onto the app."""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_rag.config import Settings, default_library_dir
from desktop_rag.infra.paths import is_under, normalize
from desktop_rag.ingest.extract import sha256_file
from desktop_rag.ingest.scan import is_candidate

if TYPE_CHECKING:
    from desktop_rag.store.lance import LanceStore

log = logging.getLogger(__name__)

GUIDE_NAME = "Desktop RAG User Guide.pdf"
GUIDE_QUESTION = "How do I add my own documents?"
GGUF_MAGIC = b"GGUF"


def bundled_guide() -> bytes:
    return (resources.files("desktop_rag.resources") / "guide" / GUIDE_NAME).read_bytes()


def first_start(settings: Settings, library: Path | None = None) -> bool:
    """On the very first start, create the library folder with the guide and watch it.

    Returns whether this was the first start. The caller saves the settings.
    Later starts leave the folder alone: a user who deleted the guide meant it.
    """
    if settings.first_run_done:
        return False
    library = library or default_library_dir()
    library.mkdir(parents=True, exist_ok=True)
    guide = library / GUIDE_NAME
    if not guide.exists():
        _write_new(guide, bundled_guide())
    folder = normalize(str(library))
    if not any(is_under(folder, normalize(f)) for f in settings.folders):
        settings.folders.append(folder)
    settings.first_run_done = True
    return True


def _write_new(path: Path, data: bytes) -> None:
    """Write under a hidden name, then rename: a watcher never sees half a file."""
    tmp = path.with_name(f".{path.name}.part")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def is_gguf(path: str | Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == GGUF_MAGIC
    except OSError:
        return False


@dataclass(slots=True)
class Drop:
    """What a set of dropped paths means: folders to watch, documents to copy (of any format
    the readers know), a model to use."""

    folders: list[str] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)
    model: str = ""
    ignored: list[tuple[str, str]] = field(default_factory=list)  # (path, why)


def classify_drop(paths: Iterable[str], watched: Iterable[str]) -> Drop:
    watched = [normalize(w) for w in watched]
    drop = Drop()
    for raw in paths:
        path = normalize(raw)
        name = os.path.basename(path)
        if os.path.isdir(path):
            if any(is_under(path, w) for w in watched):
                drop.ignored.append((path, "is already watched"))
            else:
                drop.folders.append(path)
        elif name.lower().endswith(".gguf"):
            if is_gguf(path):
                drop.model = path
            else:
                drop.ignored.append((path, "is not a GGUF model file"))
        elif is_candidate(name) and os.path.isfile(path):
            drop.documents.append(path)
        else:
            drop.ignored.append((path, "is not a document Desktop RAG reads"))
    return drop


@dataclass(frozen=True, slots=True)
class Copied:
    source: str
    dest: str
    already_there: bool = False


def _same_content(a: Path, b: Path) -> bool:
    try:
        if a.stat().st_size != b.stat().st_size:
            return False
    except OSError:
        return False
    return sha256_file(str(a)) == sha256_file(str(b))


def copy_into(paths: Iterable[str], library: Path) -> list[Copied]:
    """Copy files into the library; the originals are only read. A file already in the
    library (same name and content) is not copied twice; a name clash gets a number."""
    library.mkdir(parents=True, exist_ok=True)
    out = []
    for raw in paths:
        src = Path(normalize(raw))
        if is_under(str(src), normalize(str(library))):
            out.append(Copied(str(src), str(src), already_there=True))
            continue
        dest = library / src.name
        n = 2
        while dest.exists():
            if _same_content(src, dest):
                break
            dest = library / f"{src.stem} ({n}){src.suffix}"
            n += 1
        if dest.exists():
            out.append(Copied(str(src), str(dest), already_there=True))
            continue
        tmp = dest.with_name(f".{dest.name}.part")
        shutil.copyfile(src, tmp)  # contents only: the source's metadata is not ours to copy
        os.replace(tmp, dest)
        out.append(Copied(str(src), str(dest)))
    return out


# Headings every paper or report has, which say nothing of what this one holds.
_GENERIC_TEXT = """abstract introduction background methods method materials results discussion
    conclusion conclusions references bibliography acknowledgements acknowledgments contents
    table appendix index figures tables funding keywords summary overview notes preface
    foreword glossary and of the"""
_GENERIC_WORDS = frozenset(_GENERIC_TEXT.split())
SUGGESTIONS = 3
# A longer heading reads as a headline, not as what a question asks about.
SUGGESTION_WORDS = 6
# A heading ending on one of these was a line cut mid-phrase.
_OPEN_ENDS_TEXT = "a an the of to in on at by for from with and or as that which"
_OPEN_ENDS = frozenset(_OPEN_ENDS_TEXT.split())
# A catalogue number or code ("NU50CK000410", "2023Q4"): no one asks about it.
_CODE = re.compile(r"[A-Za-z]+\d+[A-Za-z]+|\d+[A-Za-z]+\d+")


def heading_question(heading: str) -> str | None:
    """The question a person would ask about a heading ("Approved budget": "What should I
    know about the approved budget?"), or None for one that makes none: generic, longer than
    SUGGESTION_WORDS words, a fragment (cut mid-phrase, starting in lower case), a code, or a
    label ("Table 3")."""
    title = heading.strip()
    if title[:1].isdigit():
        title = title.split(" ", 1)[-1].strip()  # "2.3 Making the manuals": its words
    words = title.split()
    lower = [w.lower() for w in words]
    if not words or len(words) > SUGGESTION_WORDS or set(lower) <= _GENERIC_WORDS:
        return None
    if not words[0][:1].isupper() or lower[-1] in _OPEN_ENDS or words[-1][:1].isdigit():
        return None
    if _CODE.search(title) or re.search(r"[.;:,]\s|[.;:,]$", title):
        return None
    first = words[0]
    sentence_case = first[1:].islower() or len(first) == 1
    rest = [w for w in words[1:] if w.lower() not in _OPEN_ENDS]
    title_case = 2 * sum(w[:1].isupper() for w in rest) > len(rest)  # "Results of Operations"
    if sentence_case and not title_case:
        # "Approved budget" inside a sentence: "the approved budget"; a gerund takes none.
        if lower[0] in ("the", "a", "an"):
            words = words[1:]
        subject = " ".join([words[0].lower(), *words[1:]])
        if not subject.split()[0].endswith("ing"):
            subject = f"the {subject}"
    else:
        subject = title  # a name or a title: as written
    return f"What should I know about {subject}?"


def suggested_questions(store: LanceStore, limit: int = SUGGESTIONS) -> list[str]:
    """A few questions drawn from the library's own headings (the guide's left out), one per
    document, the most recently indexed documents first: what the welcome offers."""
    from desktop_rag.locations import SEPARATOR

    newest = sorted(
        (d for d in store.documents() if d.status == "indexed"),
        key=lambda d: -d.indexed_at,
    )
    order = {d.path: k for k, d in enumerate(newest) if os.path.basename(d.path) != GUIDE_NAME}
    headings: dict[str, list[str]] = {}
    for path, section in store.sections():
        if path not in order:
            continue
        question = heading_question(section.rsplit(SEPARATOR, 1)[-1])
        if question is not None and question not in headings.setdefault(path, []):
            headings[path].append(question)
    out: list[str] = []
    for path in sorted(headings, key=order.__getitem__):
        for question in headings[path]:
            if question not in out:
                out.append(question)
                break
        if len(out) == limit:
            return out
    # Fewer documents than questions: more headings of the same ones.
    for path in sorted(headings, key=order.__getitem__):
        for question in headings[path]:
            if len(out) < limit and question not in out:
                out.append(question)
    return out
