"""No claim without its source: an answer's names, terms and figures must be in what it cites.

A 270M model asked about something its sources do not cover still answers, and cites [1]:
"According to [1], the capital of France is Paris." over a page of a manual. Each content word
of the answer is looked for in the sources it cites (as a stem, so "vaccines" finds "vaccine";
figures by value, as query/figures.py reads them). The words that carry the claim, names
(capitalised), figures and terms rare in the library (by IDF), are named when missing, so the
reader is told to check them; when the answer's words, each weighted by its rarity, are mostly
missing, nothing in the answer comes from its sources and the service refuses instead. An
everyday word in lower case ("ensure", "completely"), or opening a sentence ("However"), however
rare in a library of manuals, is a model's own wording in an answer its sources otherwise back
(PARAPHRASED): weighed, not named.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from desktop_rag.query.figures import numbers as figures_in
from desktop_rag.query.figures import telling, unsupported_numbers
from desktop_rag.query.prompt import CITATION
from desktop_rag.query.quote import STOPWORDS

# A word in at most 5% of the library's passages (IDF log(1/0.05) = 3.0) is a term of the
# subject, worth naming when the cited sources lack it, even in lower case.
RARE_IDF = 3.0
# Below this share of what the answer adds to its question (each word weighted by 1 + its
# IDF) found in the cited sources, the answer is not from them: the service withholds it when
# its sources are only a weak match for the question (best cosine below WEAK_MATCH), and flags
# it otherwise. Chosen by bench/answer_quality.py on the tune halves of covid-qa's and
# financebench's questions and the off-topic ones: off-topic answers borrow a common word or
# a figure of the page they cite ("the wild cat" over a page on wild animals; "between 20°S
# and 30°S" over a page holding a 20) and score up to a half, while on-topic answers with
# little support (a figure of their own) came from sources nearer the question (cosine 0.42
# and above, most above 0.5). So an answer must be more than half backed.
REFUSE_BELOW = 0.55
WEAK_MATCH = 0.4
# ... and from near sources too when at least this share of what the answer adds is words
# that none of the sources the model read holds: in a library of 80,000 passages an everyday
# question finds passages as near as that ("the currency of Japan is the yen [1]" over a 3M
# page naming Japan and currency, cosine 0.5), and the answer is the model's own. An on-topic
# answer with little support from its cited source took its words from another source (the
# model cites [1] for what it read in [2]) or added a figure of its own: neither counts here.
OWN_WORDS = 0.9
# Searching by words only (an index of another embedder) there is no cosine to tell near
# sources from weak ones, so every unbacked answer counts as from weak ones, and the bar is
# lower: an on-topic answer citing the wrong page of the right document ("blue because of
# hemocyanin" over the octopus page on hearts, support 0.29) is flagged, not withheld. Not
# tuned on a words-only run: the threshold every search had before the vector path's own.
REFUSE_BELOW_WORDS_ONLY = 0.05
# An answer whose sources hold at least this share of what it adds says it in its own everyday
# words where they lack one: on the 1.5B model's written answers to the tune halves of
# bench/answer_facts.py's manual and covid-qa questions, such answers were backed 0.77-0.90
# ("ensure", "modifying", "implemented", "various"), while an answer of the model's own
# borrowing a page's words ("the wild cat" over a page on wild animals) is backed 0.4.
PARAPHRASED = 0.75
# A figure weighs as a rare term: it is the claim.
FIGURE_WEIGHT = 1.0 + RARE_IDF
# What every answer says about its sources, not about the subject.
_FRAMING_TEXT = """according source sources document documents page pages passage passages answer
    question text say says said state states stated mention mentions mentioned based
    information provided"""
# A verdict on the question's own words ("the answer is yes"): no name or term of its own.
_VERDICTS = frozenset({"yes", "no"})
_FRAMING = frozenset(_FRAMING_TEXT.split()) | _VERDICTS
_WORD = re.compile(r"[^\W\d_][\w]*(?:['’][st])?", re.UNICODE)
_LEAD = re.compile(r"^\s*According to\s*", re.I)


@dataclass(frozen=True, slots=True)
class ClaimWord:
    text: str  # as the answer writes it
    stem: str
    named: bool  # capitalised: a name or a term, checked whatever its rarity
    opens: bool = False  # a sentence's first word ("However", capitalised as any would be)


@dataclass(frozen=True, slots=True)
class Claims:
    """What the check found: `support` is the weighted share of the answer's words that its
    cited sources hold (1.0 when it has none to check); `unsupported` the names, terms and
    figures they lack, in the answer's order (figures first); `adds_nothing` when every word
    of it is the question's (nothing to check); `refuse` when the answer is not from its
    sources at all, or adds nothing to its question; `words_lacking` the weighted share of
    what the answer adds that is words (not figures) its cited sources lack: "the yen" over
    a page that names Japan and currency scores 1.0, a figure of the model's own 0."""

    support: float
    unsupported: tuple[str, ...]
    refuse: bool
    adds_nothing: bool = False
    words_lacking: float = 0.0


def stem(word: str) -> str:
    """A word without its inflection, lower case: "Vaccine's", "vaccines" and "vaccine" share
    one; crude, but on both sides of the comparison alike."""
    w = word.lower().replace("’", "'")
    w = w.removesuffix("'s").removesuffix("'t").strip("'")
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith(("ses", "xes", "zes", "ches", "shes")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 4 and w.endswith("ied"):
        return w[:-3] + "y"
    for suffix in ("ations", "ation", "ings", "ing", "edly", "ed", "ions", "ion", "ly", "e"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


def claim_words(answer: str) -> list[ClaimWord]:
    """The answer's content words, each once, citations, its lead and stop words left out."""
    text = CITATION.sub(" ", _LEAD.sub("", answer))
    out: list[ClaimWord] = []
    seen: set[str] = set()
    for match in _WORD.finditer(text):
        raw = match.group(0)
        lower = raw.lower()
        base = lower.replace("’", "'").removesuffix("'s").removesuffix("'t")
        if base in STOPWORDS or base in _FRAMING or len(base) < 2:
            continue
        s = stem(raw)
        if s in seen:
            continue
        seen.add(s)
        before = text[: match.start()].rstrip(" \t\"'“‘(*`")
        opens = not before or before.endswith((".", "!", "?", ":", ";", "\n", "•", "-"))
        out.append(ClaimWord(raw, s, raw[0].isupper(), opens))
    return out


def stems_of(texts: Iterable[str]) -> set[str]:
    return {stem(m.group(0)) for text in texts for m in _WORD.finditer(text)}


def check(
    answer: str,
    sources: Sequence[str],
    rarity: Callable[[str], float],
    *,
    also_read: Sequence[str] = (),
    asked: Sequence[str] = (),
    refuse_below: float = REFUSE_BELOW,
    common: Collection[str] = frozenset(),
) -> Claims:
    """Check the answer against the texts of the sources it cites. `rarity(word)` is a word's
    IDF in the library (0 for the commonest), asked of the word in lower case. Figures may
    also come from `also_read` (the question asks about a year). `asked` is what the user
    asked: its words and figures, repeated, claim nothing, so the support is weighed over the
    rest, the answer's new information ("Paris" in "the capital of France is Paris"), which
    must come from the sources; nor are they named when the sources lack them: the user's
    "box" and "timestamps" are no claim of the answer's. `common` holds everyday words (in
    lower case, engines/embed.py, common_words): named only in an answer its sources back
    less than PARAPHRASED."""
    held = stems_of(sources)
    question = stems_of(asked)
    weighed = 0.0
    found = 0.0
    lacking = 0.0
    missing_words: list[str] = []
    everyday: set[str] = set()  # missing words that may be the answer's own wording
    for word in claim_words(answer):
        idf = max(0.0, rarity(word.text.lower()))
        weight = 1.0 + idf
        if word.stem in question:
            continue
        weighed += weight
        if word.stem in held:
            found += weight
            continue
        lacking += weight
        if word.named or idf >= RARE_IDF:
            missing_words.append(word.text)
            if (word.opens or not word.named) and word.text.lower() in common:
                everyday.add(word.text)
    missing_figures = unsupported_numbers(answer, [*sources, *also_read, *asked])
    repeated = set(figures_in(" ".join(asked)))
    figures = {n for n in figures_in(answer) if telling(n) and n not in repeated}
    weighed += FIGURE_WEIGHT * len(figures)
    found += FIGURE_WEIGHT * len(figures - set(missing_figures))
    support = found / weighed if weighed > 0 else 1.0
    if support >= PARAPHRASED:
        missing_words = [w for w in missing_words if w not in everyday]
    # An answer that only repeats its question ("the metal is liquid at room temperature")
    # says nothing its sources could back: the service withholds it as it withholds an
    # unbacked one (from weak sources only), however empty its list of missing words.
    adds_nothing = weighed == 0 and bool(asked)
    return Claims(
        support=support,
        unsupported=(*missing_figures, *missing_words),
        refuse=adds_nothing or (weighed > 0 and support < refuse_below),
        adds_nothing=adds_nothing,
        words_lacking=lacking / weighed if weighed > 0 else 0.0,
    )


def backing_source(
    answer: str,
    cited: Sequence[int],
    own: Claims,
    sources: Mapping[int, str],
    rarity: Callable[[str], float],
    *,
    also_read: Sequence[str] = (),
    asked: Sequence[str] = (),
    common: Collection[str] = frozenset(),
) -> tuple[int, Claims] | None:
    """The source that holds what an answer claims when the sources it cites do not.

    The bundled model cites [1] for what it read in [3] ("the currency of Japan is the Japanese
    yen [1]" over a 10-K whose page [3] names the yen), so the page a reader opens says nothing
    of it. `own` is the answer's check against the sources it cites (`check`, with the same
    `also_read` and `asked`). When they do not back it (they hold less than REFUSE_BELOW of
    what it adds, each word weighted by its rarity as `check` weighs them) and another source
    does (at least that share), holding every name, term and figure of it that the cited ones
    hold, that source's number comes back with its check: the answer is then cited to it
    (and still flagged for what that source lacks too). None when the cited sources back it,
    it cites nothing, or no other source does. The source holding the most wins; ties go to
    the one ranked higher (the lower number).

    Only a source that backs the answer takes its citation: on financebench, where most of the
    model's answers are its own figures and words, citing each to the source sharing the most
    of them moved citations off the gold page (bench/answer_quality.py).
    """
    if not cited or own.support >= REFUSE_BELOW:
        return None  # nothing cited, or the cited sources back it: their citation stands
    best: tuple[int, Claims] | None = None
    for n in sorted(sources):
        if n in cited:
            continue
        other = check(answer, [sources[n]], rarity, also_read=also_read, asked=asked, common=common)
        if other.support < REFUSE_BELOW or not set(other.unsupported) <= set(own.unsupported):
            continue
        if best is None or other.support > best[1].support:
            best = (n, other)
    return best


def recite(answer: str, n: int) -> str:
    """The answer with each of its citation marks made [n] (a run of them, one)."""
    marked = CITATION.sub(f"[{n}]", answer)
    return re.sub(rf"\[{n}\](?:\s*(?:and|,)?\s*\[{n}\])+", f"[{n}]", marked)


def recited_note(n: int, was: Sequence[int]) -> str:
    """What the reader is told when an answer is cited to another source than the model's."""
    model = ", ".join(f"[{m}]" for m in was)
    return f"Cited [{n}]: its words are there, not in {model} as the model wrote."
