"""Where a base model's answer ends: its own runaway patterns, not its first line break.

Stopped at "\n", an answer that starts a list ends on its colon. Let run on, the 270M base model
goes on to invent the rest of a prompt: a new "Question:", a source line ("[2] 630.pdf, page 5:
…"), or the same line over and over. The stop strings catch the first two where they start a
line; this watcher catches them inside a line, and repeated lines, as the answer streams. An
answer cut by the token limit loses its unfinished last sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterable

# Invented prompt parts: a source line, or a new turn of the worked example's format.
# A source line counts where a line or sentence starts: "According to [1] manual.pdf, page 7:"
# opening the answer is the model citing, not running on.
_INVENTED = re.compile(
    r"(?:(?<=\n)|(?<=[.!?:]\s)|(?<=\n- ))\[\d+\]\s+[^\[\]\n]{1,200}?,\s+page\s+\d+:"
    r"|\b(?:Question|Sources):"
    # The same source line without its number ("- 1565.pdf, page 2: …"), as a list item.
    r"|(?:(?<=\n)|(?<=\n- ))[\w.-]+\.[A-Za-z]{2,5},\s+page\s+\d+:"
)
# Pieces count tokens only roughly (llama.cpp holds back a possible stop string's start and
# yields it with the next token): a generation this close to its limit counts as at it, and
# cutting a complete answer back to its last sentence end changes nothing.
LIMIT_SLACK = 8
# A line shorter than this ("Yes.", "- 2") may well repeat in a real answer.
MIN_REPEAT_CHARS = 12
# The end of a sentence or of a list item: what an answer cut by the token limit keeps.
_END = re.compile(r"(?:[.!?][\"')\]]?(?:\s*\[\d+(?:\s*[,;–-]\s*\d+)*\])*)(?=\s|$)|\n")


# A list marker with nothing after it, left where the model ran on.
_DANGLING_ITEM = re.compile(r"\n\s*(?:[-*•]|\d+[.)])?\s*$")


def _key(line: str) -> str:
    return " ".join(re.sub(r"\W+", " ", line.lower()).split())


class Runaway:
    """Feed it the answer piece by piece; `stopped` turns True once the model runs on, and
    `answer()` is the text up to that point."""

    def __init__(self) -> None:
        self.text = ""
        self.stopped = False
        self._cut: int | None = None
        self._seen: set[str] = set()
        self._checked = 0  # lines of self.text already compared

    def feed(self, piece: str) -> str:
        """Add a piece; returns the part of it to show (all of it until the model runs on,
        then what comes before that point, and "" once `stopped`)."""
        if self.stopped:
            return ""
        before = len(self.text)
        self.text += piece
        invented = _INVENTED.search(self.text, max(0, before - 200))
        if invented:
            return self._stop(invented.start(), before)
        lines = self.text.split("\n")
        offset = sum(len(line) + 1 for line in lines[: self._checked])
        for line in lines[self._checked : -1]:  # complete lines only
            key = _key(line)
            if len(key) >= MIN_REPEAT_CHARS and key in self._seen:
                return self._stop(offset, before)
            if key:
                self._seen.add(key)
            offset += len(line) + 1
            self._checked += 1
        return piece

    def _stop(self, at: int, before: int) -> str:
        self.stopped = True
        self._cut = at
        return self.text[before:at] if at > before else ""

    def answer(self, hit_limit: bool = False) -> str:
        """The answer without what the model ran on into; cut by the token limit, without its
        unfinished last sentence (unless that is all there is)."""
        text = self.text if self._cut is None else self.text[: self._cut]
        text = _DANGLING_ITEM.sub("", text).rstrip()
        if hit_limit and not self.stopped:
            ends = [m.end() for m in _END.finditer(text)]
            if ends and ends[-1] < len(text):
                text = text[: ends[-1]].rstrip()
        return text


def at_limit(used: int, budget: int) -> bool:
    """Whether a generation of `used` tokens ran into its `budget` (LIMIT_SLACK)."""
    return used >= budget - LIMIT_SLACK


def shown_pieces(
    stream: Iterable[str],
    guard: Runaway,
    lead: str = "",
    heard: Callable[[], None] | None = None,
) -> Generator[str, None, None]:
    """A model's stream as it is shown: `lead` (what the prompt said already) before the first
    piece, else the first piece without its leading spaces, each piece through the guard,
    until the model runs on into a prompt of its own. The stream is closed at the end, which
    ends the generation and releases the model. `heard` is called for every piece, shown or
    not (the time of the first and last token)."""
    try:
        for piece in stream:
            if heard is not None:
                heard()
            if lead:
                piece, lead = lead + piece, ""
            elif not guard.text:
                piece = piece.lstrip()
            if not piece:
                continue
            shown = guard.feed(piece)
            if shown:
                yield shown
            if guard.stopped:
                break
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
