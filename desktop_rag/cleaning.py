"""How readers clean a page's text, and the same cleaning replayed with a map back to the raw
characters (for the viewer to mark a passage on pdfium's text page, query/marks.py)."""

from __future__ import annotations

import re
import unicodedata

_SPACE_RE = re.compile(r"[ \t\f\v\u00a0]+")
_NEWLINES_RE = re.compile(r"\n{3,}")
_SPACES = frozenset(" \t\f\v\u00a0")


def clean_text(text: str) -> str:
    """Normalise what readers return: NFKC (ligatures), one kind of newline, no stray controls."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # pdfium marks a hyphen at a line break with U+0002; rejoin the word.
    text = re.sub(r"[\u0002\u00ad]\n?", "", text)
    text = "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch)[0] != "C")
    text = _SPACE_RE.sub(" ", text)
    text = _NEWLINES_RE.sub("\n\n", text)
    return text.strip()


# clean_with_map replays clean_text character by character: slower, so readers use clean_text,
# and tests/unit/test_marks_clean.py holds the two to the same result.
def clean_with_map(raw: str) -> tuple[str, list[int]]:
    """`clean_text(raw)` and, for each of its characters, the index in raw of the
    character it came from."""
    # NFKC per cluster (a character and the combining marks after it), as a whole-text NFKC
    # composes them: "e" + U+0301 is one "é", from the index of its "e".
    chars: list[tuple[str, int]] = []
    start = 0
    for i in range(1, len(raw) + 1):
        if i == len(raw) or not unicodedata.combining(raw[i]):
            for c in unicodedata.normalize("NFKC", raw[start:i]):
                chars.append((c, start))
            start = i
    # One kind of newline.
    step: list[tuple[str, int]] = []
    for k, (c, i) in enumerate(chars):
        if c == "\r":
            if k + 1 < len(chars) and chars[k + 1][0] == "\n":
                continue
            c = "\n"
        step.append((c, i))
    # A hyphen marked at a line break (U+0002, or a soft hyphen) goes, with its newline.
    chars, step = step, []
    skip_newline = False
    for c, i in chars:
        if skip_newline:
            skip_newline = False
            if c == "\n":
                continue
        if c in "\u0002\u00ad":
            skip_newline = True
            continue
        step.append((c, i))
    # No control characters but newline and tab.
    chars = [(c, i) for c, i in step if c in "\n\t" or unicodedata.category(c)[0] != "C"]
    # Runs of spaces become one space (every " " kept so far stands for such a run).
    step = []
    for c, i in chars:
        if c in _SPACES:
            if step and step[-1][0] == " ":
                continue
            c = " "
        step.append((c, i))
    # Runs of three or more newlines become two.
    out: list[tuple[str, int]] = []
    run = 0
    for c, i in step:
        run = run + 1 if c == "\n" else 0
        if run <= 2:
            out.append((c, i))
    text = "".join(c for c, _ in out)
    lead = len(text) - len(text.lstrip())
    trail = len(text.rstrip())
    kept = out[lead:trail] if trail > lead else []
    return "".join(c for c, _ in kept), [i for _, i in kept]
