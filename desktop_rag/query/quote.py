"""Quote first: the sentences of the sources that best answer the question, word for word.

A 270M model's paraphrase may be wrong; the page's own words are what a reader can trust at a
glance. Each sentence of the top sources is scored by the embedder (cosine to the question) and
by a BM25 term match against the question's content words; the best one or two are shown with
their [n] and page before the model has written anything.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from desktop_rag.engines.embed import Embedder
from desktop_rag.store.grams import grams, has_cjk
from desktop_rag.types import Hit, Quote, Source

if TYPE_CHECKING:
    from numpy.typing import NDArray

# Only the best-ranked sources are read: the answer is nearly always in them. Their sentences
# are ranked by the question's words first, which costs nothing, and only the best PRESELECT
# are embedded: embedding every sentence of three sources took 0.5 s on two busy cores.
TOP_SOURCES = 3
MAX_SENTENCES = 36
PRESELECT = 8
# Retrieval re-ranks its first sources by their best sentence (query/retrieve.py): the
# sentences of five sources sharing most of the question's words are embedded. Fewer ranked
# the tuning halves lower; more ranked them the same (bench/tune/rerank_sweep.py).
RERANK_PRESELECT = 12
# Shorter than this is a heading or a cut-off fragment; longer is a table run together, cut
# into pieces of at most MAX_WORDS words.
MIN_WORDS = 4
MAX_WORDS = 60
# The second quote is shown only when it scores nearly as well as the first.
SECOND_RATIO = 0.85
# Weights of the two scores (each in 0..1): meaning, and the question's own words.
VECTOR_WEIGHT = 0.6
TERM_WEIGHT = 0.4
BM25_K1 = 1.2
BM25_B = 0.75

# What may open a sentence after a stop: a digit or a capital of any alphabet (Latin with its
# accents, Greek, Cyrillic: "Étape", "Über"), or a letter of a script without capitals
# (Chinese, Japanese, Korean).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CAPITAL = (
    "A-Z0-9" + "".join(re.escape(chr(c)) for c in range(0xC0, 0x530) if chr(c).isupper()) + _CJK
)
# Chinese and Japanese end a sentence with a full-width stop and no space after it; the words
# have no spaces between them either: such a run counts a word for every two characters.
_CJK_STOPS = "。！？"
_CJK_CLOSERS = "」』）】〕”’"
_CJK_CHAR = re.compile(f"[{_CJK}]")
# A stop with the closing quotes or brackets after it, in either kind of script.
_STOP_MARK = rf"(?:[.!?][\"”')\]]*|[{_CJK_STOPS}][{_CJK_CLOSERS}]*)"
# A sentence ends at . ! or ? followed by a space and a capital, digit or opening mark; not
# after a lone capital or a common abbreviation ("e.g. The", "Fig. 3", "J. Smith", German's
# "z. B. Die", "d. h.", "Nr. 5"; a lone small letter is often a unit: "for 45 s. The"); or at
# 。！？ unless a closing mark follows ("「…。」と言った").
_SENTENCE_END = re.compile(
    r"(?<!\b[A-Z]\.)(?<!\bz\.)(?<!\bd\.)(?<!\bu\.)(?<!\bo\.)"
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bFig\.)(?<!\bfig\.)"
    r"(?<!\bal\.)(?<!\bvs\.)(?<!\bNo\.)(?<!\bNr\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bSt\.)"
    r"(?<!\bvgl\.)(?<!\bbzw\.)(?<!\bca\.)(?<!\bAbs\.)(?<!\bArt\.)"
    rf"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=[\"'(\[«„“]?[{_CAPITAL}])"
    rf"|(?<=[{_CJK_STOPS}])(?![{_CJK_CLOSERS}])\s*"
)
_GAP = " … "
_WORD = re.compile(r"[A-Za-z0-9]+(?:[-'][A-Za-z0-9]+)*")

# Words that say nothing of a question's subject.
_STOPWORDS_TEXT = """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    out over own same she should so some such than that the their theirs them then there these
    they this those through to too under until up very was we were what when where which while
    who whom why will with would you your yours many much tell show give list describe explain
    according please say says said use used using get"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


@dataclass(frozen=True, slots=True)
class Sentence:
    n: int  # the source it comes from
    text: str


def content_words(text: str) -> list[str]:
    """The words that carry meaning, lowercased, with a plural's s dropped ("vaccines" and
    "vaccine" match)."""
    out = []
    for word in _WORD.findall(text.lower()):
        word = word.removesuffix("'s")
        if word in STOPWORDS or len(word) < 2:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    # Chinese and Japanese words, as the full-text index reads them: pairs of characters.
    out.extend(pair for pair in grams(text).split() if has_cjk(pair))
    return out


def words_in(text: str) -> int:
    """How many words a sentence has: those between spaces, and one for every two characters
    of Chinese, Japanese or Korean, which puts no spaces between its words."""
    cjk = len(_CJK_CHAR.findall(text))
    if not cjk:
        return len(text.split())
    return len(_CJK_CHAR.sub(" ", text).split()) + cjk // 2


def split_sentences(text: str) -> list[str]:
    """The sentences of a source, verbatim; a run of words with no full stop is cut into
    pieces of at most MAX_WORDS words (a run of Chinese or Japanese, of 2 x MAX_WORDS
    characters)."""
    out: list[str] = []
    for part in text.split(_GAP):
        for sentence in _SENTENCE_END.split(part):
            sentence = sentence.strip().removesuffix("…").strip()
            words = sentence.split(" ")
            if len(words) == 1 and words_in(sentence) > MAX_WORDS:
                size = 2 * MAX_WORDS
                pieces = [sentence[i : i + size] for i in range(0, len(sentence), size)]
            else:
                pieces = [
                    " ".join(words[i : i + MAX_WORDS]) for i in range(0, len(words), MAX_WORDS)
                ]
            out.extend(piece for piece in pieces if words_in(piece) >= MIN_WORDS)
    return out


# A paper's front matter and a page's furniture: links, hashes, identifiers, labels.
_METADATA = re.compile(
    r"https?://|\bwww\.|\bdoi\.org\b|\b[0-9a-f]{32,}\b|\S+@\S+\.[a-z]{2,}\b|©|"
    r"\ball rights reserved\b|"
    r"\b(?:SHA|DOI|PMCID|PMID|ISSN|ISBN|Authors?|License|Licence|Keywords|Correspondence|"
    r"Received|Accepted|Published|Copyright|E-?mail)\s*:",
    re.I,
)
_NAME_SEPARATORS = re.compile(r"[,;]")
# Words a line that runs on into the next ends with; a heading never does.
_RUNS_ON_TEXT = """a an the of in on at to for from by with and or nor but as than that which
    who whose is are was were be been its their his her our this these those into onto over under
    between among via per"""
_RUNS_ON = frozenset(_RUNS_ON_TEXT.split())
# A capitalised word a line starts with where a sentence of another column or page comes in
# after a line that ran on ("… the leading causes of / The findings of our study …").
_STARTS_ANEW_TEXT = "The A An In This These We Our It Its However Although To For Here There"
_STARTS_ANEW = frozenset(_STARTS_ANEW_TEXT.split())
HEADING_WORDS = 16
# Abbreviations a sentence goes on after ("Ulta Beauty, Inc. (NASDAQ: ULTA) today …").
_GOES_ON = re.compile(r"(?:\b(?:Inc|Ltd|Corp|Co|Cos|Bros|Jr|Sr)|\b[ap]\.m)\.$")
# A reference number a page prints before a sentence ("22 For example, …").
_LABEL_END = re.compile(r"(?<=:)[ \t]*\n(?=[ \t]*[A-Z])")
_LEADING_MARK = re.compile(r"^\d{1,3} (?=[A-Z][a-z])")
_STOP = re.compile(rf"{_STOP_MARK}$")
_OPENS = re.compile(rf"^[\"“'(\[«„]?[{_CAPITAL}$€£]")


def metadata(text: str) -> bool:
    """A line of a paper's front matter or a page's furniture, not a statement: a link, a
    hash, a DOI, a licence, labelled fields ("Authors: …"), or a list of names."""
    if _METADATA.search(text):
        return True
    words = [w for w in text.split() if any(ch.isalpha() for ch in w)]
    capitals = sum(1 for w in words if w[0].isupper())
    return (
        len(words) >= 4
        and len(_NAME_SEPARATORS.findall(text)) >= 3
        and capitals >= 0.8 * len(words)
    )


def _heading(line: str, alone: bool, following: str | None) -> bool:
    """A line that names what follows: short, standing alone (after a sentence's end, a
    paragraph break or another heading), not running on into the next line, which starts
    afresh with a capital."""
    words = line.split()
    if not words or len(words) > HEADING_WORDS or not alone or not _OPENS.match(line):
        return False
    if line.endswith(":") and len(words) <= 3:
        return True  # a label ("Abstract:") before its text
    if re.search(r"[.!?,;:\-–—(/&]$", line) or words[-1].lower() in _RUNS_ON:
        return False
    if re.search(r"[a-z][.!?]\s", line):
        return False  # a sentence ends inside it: prose
    return following is not None and bool(_OPENS.match(following))


# A line of a manual that starts with a command or a name of code ("journalctl -b shows …",
# "make uninstall removes …"), or an entry of a list of options, its name and then what it does
# ("leqno Place equation numbers on the left."), is a sentence though it starts in lower case.
_ENTRY = (
    r"(?!(?:and|or|but|nor|of|in|on|at|to|by|for|from|with|as|the|a|an|that|which)\s)"
    r"[a-z][\w-]*[ \t]+[A-Z][a-z]+[ \t]+[a-z]"
)
_CODE_START = re.compile(rf"^(?:[a-z][\w.-]*(?:\(\)|\s+-{{1,2}}\w|[._-]\w)|{_ENTRY})")
# ... and such an entry starts a sentence of its own on its line.
_ENTRY_LINE = re.compile(rf"(?<=[.!?])[ \t]*\n(?=[ \t]*{_ENTRY})")


def _jump(before: str, after: str) -> bool:
    """A line break where the text jumps: a line that does not end its sentence, then a
    capitalised word that cannot continue it (two columns or two pages read across)."""
    words = before.split()
    first = after.split()[0] if after.split() else ""
    if not words or first not in _STARTS_ANEW or re.search(r"[.!?:;]$", words[-1]):
        return False
    return words[-1].lower() in _RUNS_ON or words[-1][:1].islower()


def answer_sentences(text: str, page_start: bool = True) -> list[str]:
    """The whole sentences of a source, verbatim but for its line breaks (made spaces), each
    from its capital to its stop: headings are set apart (left out); a sentence cut where a
    passage starts (`page_start` False: the chunker starts a passage a few words back, inside
    a sentence) or ends, or where the text jumps to another column, is left out; and so is
    front matter (`metadata`)."""
    return [sentence for block in answer_blocks(text, page_start) for sentence in block.sentences]


@dataclass(frozen=True, slots=True)
class Block:
    """The whole sentences between two headings, paragraph breaks or cuts; `closed` when a
    heading or a paragraph break ends it, not the end of the passage (a list announced in
    it is all there)."""

    sentences: tuple[str, ...]
    closed: bool
    # Sentences cut where the passage starts ("start") or ends ("end"), by their place in
    # `sentences`: kept, since the fact a manual's answer needs is often in one (leaving them
    # out cost the composed answer 6 of 44 manual questions), and shown as a fragment.
    cut: tuple[tuple[int, str], ...] = ()


def answer_blocks(text: str, page_start: bool = True, whole: bool = False) -> list[Block]:
    """`answer_sentences` by block; `whole`: each part of the text (a passage) starts and
    ends where a sentence does (`widen`), so none is cut."""
    out: list[Block] = []
    for k, part in enumerate(text.split(_GAP.strip())):
        out += _whole_sentences(part, cut=not whole and (k > 0 or not page_start))
    return [block for block in out if block.sentences]


# How far before or after a passage its cut sentence is looked for on the page: a sentence
# longer than this is too long to quote (MAX_WORDS) anyway.
WIDEN_REACH = 400
# Where a sentence or a paragraph ends on a page: a stop (with its closing quote or bracket)
# before white space and a capital (not "U.S. beauty") or the page's end, or an empty line.
_ENDS = re.compile(
    rf"[.!?][\"”')\]]*(?=\s+[\"“'(\[•«„]?[{_CAPITAL}]|\s*$)|\n[ \t]*\n"
    rf"|[{_CJK_STOPS}][{_CJK_CLOSERS}]*"
)
_ENDS_BEFORE = re.compile(rf"(?:{_STOP_MARK}|\n[ \t]*\n)\s*$")


def widen(hit: Hit, page: str) -> Hit:
    """The passage with the rest of the sentences it cuts at either end, read from its page's
    text (`whole` when both ends now fall where sentences do). A page's chunks overlap and are
    cut between sentences where they can be, but not always: "… downgrade a package, but makes
    it impossible …" was quoted as a fragment or left out."""
    if page[hit.start : hit.end] != hit.text:
        return hit  # not this page's text (an index older than the file): as it is
    start, end = hit.start, hit.end
    whole_start = start == 0 or (
        bool(_ENDS_BEFORE.search(page, max(0, start - 40), start))
        and bool(_OPENS.match(page, start))
    )
    if not whole_start:
        low = max(0, start - WIDEN_REACH)
        # (the look-ahead needs the characters after a stop: not cut off at the start)
        ends = [m for m in _ENDS.finditer(page, low, start + 60) if m.end() <= start]
        if ends or low == 0:
            start = ends[-1].end() if ends else 0
            while start < hit.start and page[start].isspace():
                start += 1
            whole_start = True
    whole_end = end >= len(page.rstrip()) or bool(_ENDS_BEFORE.search(page, max(0, end - 40), end))
    if not whole_end:
        found = _ENDS.search(page, end, end + WIDEN_REACH)
        if found or end + WIDEN_REACH >= len(page):
            if found is None:
                end = len(page)
            else:  # after a stop, or before an empty line
                end = found.start() if found.group(0).isspace() else found.end()
            while end > hit.end and page[end - 1].isspace():
                end -= 1
            whole_end = True
    return replace(hit, start=start, end=end, text=page[start:end], whole=whole_start and whole_end)


def _whole_sentences(text: str, cut: bool) -> list[Block]:
    lines = text.split("\n")
    blocks: list[tuple[list[str], bool, bool]] = []  # lines, cut at the start, cut at the end
    current: list[str] = []
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    cut_start = cut or not _OPENS.match(first)
    alone = not cut_start  # the first line stands alone when the passage starts the page
    nonblank = [i for i, ln in enumerate(lines) if ln.strip()]
    following = {a: lines[b].strip() for a, b in itertools.pairwise(nonblank)}
    for i, raw in enumerate(lines):
        line = raw.strip()
        if not line or _heading(line, alone, following.get(i)):
            if current:
                blocks.append((current, cut_start, False))
            current, cut_start, alone = [], False, True
            continue
        if current and _jump(current[-1], line):
            blocks.append((current, cut_start, True))
            current, cut_start = [], True
        current.append(raw)
        alone = bool(_STOP.search(line)) or line.endswith(":")
    if current:
        blocks.append((current, cut_start, not _STOP.search(current[-1].strip())))
    out: list[Block] = []
    for b, (block, cut_at_start, cut_at_end) in enumerate(blocks):
        whole: list[str] = []
        fragments: list[tuple[int, str]] = []
        body = "\n".join(block)
        parts = _rejoin([p.strip() for p in _SENTENCE_END.split(body) if p.strip()])
        # A line ending with a colon ends what it announces ("… three ways …:").
        parts = [q.strip() for p in parts for q in _LABEL_END.split(p) if q.strip()]
        parts = [q.strip() for p in parts for q in _ENTRY_LINE.split(p) if q.strip()]
        for k, sentence in enumerate(parts):
            side = (
                "start"
                if k == 0 and cut_at_start
                else "end"
                if k == len(parts) - 1 and cut_at_end
                else ""
            )
            sentence = _LEADING_MARK.sub("", sentence)
            if metadata(sentence) or not MIN_WORDS <= words_in(sentence) <= MAX_WORDS:
                continue
            if not side and not _OPENS.match(sentence) and not _CODE_START.match(sentence):
                continue
            if side:
                fragments.append((len(whole), side))
            whole.append(" ".join(sentence.split()))
        if whole and whole[-1].endswith(":") and not any(i == len(whole) - 1 for i, _ in fragments):
            whole.pop()  # what it announces (a table, a list of lines) is not a sentence
        # The last block runs to the end of the passage: what follows is not known.
        out.append(
            Block(tuple(whole), closed=b < len(blocks) - 1 and not cut_at_end, cut=tuple(fragments))
        )
    return out


def _rejoin(parts: list[str]) -> list[str]:
    """Sentences split after a company's "Inc." or a time's "p.m." made one again."""
    out: list[str] = []
    for part in parts:
        if out and _GOES_ON.search(out[-1]):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def sentences_of(sources: Sequence[Source]) -> list[Sentence]:
    out: list[Sentence] = []
    for source in sources[:TOP_SOURCES]:
        for text in split_sentences(source.text):
            if len(out) >= MAX_SENTENCES:
                return out
            out.append(Sentence(source.n, text))
    return out


def term_scores(question: str, texts: Sequence[str]) -> list[float]:
    """BM25 of each text against the question's content words, the statistics taken over
    these texts; scaled so the best is 1 (all 0 when none shares a word)."""
    terms = set(content_words(question))
    docs = [Counter(content_words(t)) for t in texts]
    if not terms or not docs:
        return [0.0] * len(texts)
    n = len(docs)
    avg = sum(sum(d.values()) for d in docs) / n or 1.0
    df = {t: sum(1 for d in docs if t in d) for t in terms}
    scores = []
    for d in docs:
        length = sum(d.values())
        score = 0.0
        for t in terms:
            f = d.get(t, 0)
            if not f:
                continue
            idf = math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5))
            score += idf * f * (BM25_K1 + 1) / (f + BM25_K1 * (1 - BM25_B + BM25_B * length / avg))
        scores.append(score)
    best = max(scores)
    return [s / best if best > 0 else 0.0 for s in scores]


def _scored(
    question: str,
    sentences: Sequence[str],
    question_vector: NDArray[np.float32],
    embedder: Embedder,
    preselect: int,
) -> list[tuple[float, int]]:
    """The `preselect` sentences sharing most of the question's words (in reading order when
    none does), each scored VECTOR_WEIGHT × cosine + TERM_WEIGHT × term score, best first."""
    terms = term_scores(question, sentences)
    chosen = sorted(range(len(sentences)), key=lambda i: (-terms[i], i))[:preselect]
    q = np.asarray(question_vector, dtype=np.float32).reshape(-1)
    vectors = np.asarray(embedder.embed([sentences[i] for i in chosen]), dtype=np.float32)
    cosine = vectors @ q
    scored = [
        (VECTOR_WEIGHT * max(0.0, float(c)) + TERM_WEIGHT * terms[i], i)
        for i, c in zip(chosen, cosine, strict=True)
    ]
    scored.sort(key=lambda x: (-x[0], x[1]))
    return scored


def best_sentences(
    question: str,
    texts: Sequence[str],
    question_vector: NDArray[np.float32],
    embedder: Embedder,
    preselect: int = RERANK_PRESELECT,
) -> list[float]:
    """Each text's best sentence, scored as a quote is (the term statistics over all these
    texts' sentences): 0 for a text none of whose sentences was among the preselected."""
    sentences: list[str] = []
    owner: list[int] = []
    for n, text in enumerate(texts):
        for sentence in split_sentences(text):
            sentences.append(sentence)
            owner.append(n)
    best = [0.0] * len(texts)
    if not sentences or not question.strip():
        return best
    for score, i in _scored(question, sentences, question_vector, embedder, preselect):
        best[owner[i]] = max(best[owner[i]], score)
    return best


def pick_quotes(
    question: str,
    sources: Sequence[Source],
    embedder: Embedder,
    *,
    limit: int = 2,
) -> tuple[Quote, ...]:
    """The one or two sentences of the top sources that best answer the question, best first."""
    sentences = sentences_of(sources)
    if not sentences or not question.strip():
        return ()
    q = np.asarray(embedder.embed_query(question), dtype=np.float32)
    scored = _scored(question, [s.text for s in sentences], q, embedder, PRESELECT)
    by_n = {s.n: s for s in sources}
    quotes: list[Quote] = []
    for score, i in scored[:limit]:
        if quotes and score < SECOND_RATIO * quotes[0].score:
            break
        sentence = sentences[i]
        source = by_n[sentence.n]
        quotes.append(Quote(sentence.n, source.path, source.page, sentence.text, score))
    return tuple(quotes)
