"""A plain check of an answer against its sources: are its figures in them?

A small model's worst mistake is a confident wrong figure ("30,847 nucleotides" read as
"20,847"). Every number of two or more digits (or with a decimal point) in the answer should
appear in the sources it was given; the ones that do not are shown beside the answer, so the
reader knows to check the page instead of trusting the sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from desktop_rag.query.prompt import CITATION

# A number as written in prose: 1,234.5 or 12.5 or 2019; not the digits inside a word (CCR5,
# H1N1) or a citation mark ([3]).
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?(?!\w)")


def _value(text: str) -> float:
    return float(text.replace(",", ""))


def numbers(text: str) -> list[str]:
    """The numbers in text as written, citation marks left out."""
    return [m.group(0) for m in _NUMBER.finditer(CITATION.sub(" ", text))]


def telling(number: str) -> bool:
    """Single digits ("2 doses", "3 groups") are too common to tell anything."""
    return "." in number or len(number.replace(",", "")) >= 2


def unsupported_numbers(answer: str, sources: Iterable[str]) -> tuple[str, ...]:
    """The numbers of the answer that no source contains (by value: 1,200 matches 1200 and
    4.50 matches 4.5), each once, in the order the answer gives them."""
    found = {_value(n) for text in sources for n in numbers(text)}
    out: list[str] = []
    for number in numbers(answer):
        if telling(number) and _value(number) not in found and number not in out:
            out.append(number)
    return tuple(out)


def unsupported_note(figures: tuple[str, ...]) -> str:
    """What the reader is told about them."""
    listed = ", ".join(figures[:5]) + (" …" if len(figures) > 5 else "")
    verb = "does" if len(figures) == 1 else "do"
    return f"Check this answer: {listed} {verb} not appear in its sources."
