"""The only prompt text in the app, and fitting the sources into the model's context."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from desktop_rag.engines.llm import Prompt
from desktop_rag.languages import (
    FRENCH,
    GERMAN,
    ITALIAN,
    PORTUGUESE,
    SPANISH,
    language_of,
)
from desktop_rag.locations import SEPARATOR, paginated, section_mark
from desktop_rag.types import Hit, Quote, Source, Turn

# What the model is asked to say when the sources do not answer, and what the service says when
# retrieval finds nothing relevant (the model is not even asked then).
MODEL_NOT_FOUND = "The sources do not say."
NOTHING_RELEVANT = (
    "I found nothing about this in your documents, so I won't guess. Try other words, or add "
    "the documents that cover it to your library."
)
# Passages on the subject were found, but no sentence of them answers the question (the
# cross-encoder's judgement): said plainly, with the passages shown as the closest ones.
DOCUMENTS_DO_NOT_SAY = (
    "Your documents don't seem to say. The passages closest to your question are listed as "
    "sources, in case one of them helps."
)


# The refusals in the question's language when it is clearly German, French, Spanish, Italian
# or Portuguese (desktop_rag/languages.py); any other question gets the English ones above,
# word for word.
_NOTHING_RELEVANT = {
    GERMAN: (
        "Ich habe in Ihren Dokumenten nichts dazu gefunden, also rate ich nicht. Versuchen Sie "
        "es mit anderen Wörtern, oder fügen Sie Ihrer Bibliothek die Dokumente hinzu, die das "
        "Thema behandeln."
    ),
    FRENCH: (
        "Je n’ai rien trouvé à ce sujet dans vos documents, donc je ne vais pas deviner. "
        "Essayez d’autres mots, ou ajoutez à votre bibliothèque les documents qui en traitent."
    ),
    SPANISH: (
        "No he encontrado nada sobre esto en sus documentos, así que no voy a adivinar. Pruebe "
        "con otras palabras o añada a su biblioteca los documentos que traten el tema."
    ),
    ITALIAN: (
        "Non ho trovato nulla su questo argomento nei suoi documenti, quindi non provo a "
        "indovinare. Provi con altre parole, oppure aggiunga alla sua biblioteca i documenti che "
        "ne parlano."
    ),
    PORTUGUESE: (
        "Não encontrei nada sobre este assunto nos seus documentos, por isso não vou tentar "
        "adivinhar. Tente outras palavras ou adicione à sua biblioteca os documentos que tratam "
        "dele."
    ),
}
_DOCUMENTS_DO_NOT_SAY = {
    GERMAN: (
        "Ihre Dokumente scheinen das nicht zu sagen. Die Textstellen, die Ihrer Frage am "
        "nächsten kommen, sind als Quellen aufgeführt, falls eine davon hilft."
    ),
    FRENCH: (
        "Vos documents ne semblent pas le dire. Les passages les plus proches de votre question "
        "sont indiqués comme sources, au cas où l’un d’eux vous aiderait."
    ),
    SPANISH: (
        "Sus documentos no parecen decirlo. Los pasajes más cercanos a su pregunta aparecen "
        "como fuentes, por si alguno le sirve."
    ),
    ITALIAN: (
        "I suoi documenti non sembrano dirlo. I passi più vicini alla sua domanda sono elencati "
        "come fonti, nel caso uno di essi le sia utile."
    ),
    PORTUGUESE: (
        "Os seus documentos não parecem dizê-lo. Os trechos mais próximos da sua pergunta "
        "aparecem como fontes, caso algum deles ajude."
    ),
}
_DO_NOT_MENTION = {
    GERMAN: (
        "Ihre Dokumente scheinen {names} nicht zu erwähnen. Die Textstellen, die Ihrer Frage am "
        "nächsten kommen, sind als Quellen aufgeführt, falls eine davon hilft."
    ),
    FRENCH: (
        "Vos documents ne semblent pas mentionner {names}. Les passages les plus proches de "
        "votre question sont indiqués comme sources, au cas où l’un d’eux vous aiderait."
    ),
    SPANISH: (
        "Sus documentos no parecen mencionar {names}. Los pasajes más cercanos a su pregunta "
        "aparecen como fuentes, por si alguno le sirve."
    ),
    ITALIAN: (
        "I suoi documenti non sembrano menzionare {names}. I passi più vicini alla sua domanda "
        "sono elencati come fonti, nel caso uno di essi le sia utile."
    ),
    PORTUGUESE: (
        "Os seus documentos não parecem mencionar {names}. Os trechos mais próximos da sua "
        "pergunta aparecem como fontes, caso algum deles ajude."
    ),
}


def nothing_relevant(question: str = "") -> str:
    """NOTHING_RELEVANT, in the question's language."""
    return _NOTHING_RELEVANT.get(language_of(question), NOTHING_RELEVANT)


def documents_do_not_say(question: str = "") -> str:
    """DOCUMENTS_DO_NOT_SAY, in the question's language."""
    return _DOCUMENTS_DO_NOT_SAY.get(language_of(question), DOCUMENTS_DO_NOT_SAY)


def documents_do_not_mention(names: str, question: str = "") -> str:
    """The refusal when the question's name (quoted: query/unmentioned.quoted) is in no passage
    and no sentence of the closest ones surely answers it, in the question's language."""
    said = _DO_NOT_MENTION.get(language_of(question))
    if said is not None:
        return said.format(names=names)
    return (
        f"Your documents don't seem to mention {names}. The passages closest to your question "
        "are listed as sources, in case one of them helps."
    )


# Said while the index was made by another embedder, until the rebuild replaces it.
WORDS_ONLY = (
    "Searching by words only until the rebuild: the index was made with another embedder, so "
    "passages are found by the words they share with your question."
)

INSTRUCTIONS = (
    "Answer each question with a short quote from the numbered sources, and say which source "
    f"you used, like [1]. If the sources do not answer the question, reply: {MODEL_NOT_FOUND}"
)

# A base model (no chat template) learns the format from a worked example rather than from
# instructions; it sits in the fixed prefix, so llama.cpp evaluates it once per session. Only
# the refusal is shown, over three sources: given worked answers too, the small model copied one
# word for word as its answer, and over one source only it cited sources that did not exist
# (bench/answer_quality.py; README, "Answer quality"). The answer prefix below teaches the
# citation.
EXAMPLES = f"""Sources:
[1] manual.pdf, page 7: Press and hold the power button for ten seconds to reset the device.
[2] manual.pdf, page 8: The battery lasts about two days; charge it with the USB cable.
[3] manual.pdf, page 2: Keep the device away from water and direct sunlight.
Question: Who invented the device?
Answer: {MODEL_NOT_FOUND}

"""

MARK_OPEN, MARK_CLOSE = "<<", ">>"
CHAT_SYSTEM = (
    "You answer questions about the user's documents from the numbered sources given with "
    "each question. Answer in one or two short sentences, in the sources' own words where you "
    "can, and end each sentence with the number of its source in brackets, like [1]. The "
    f"sentences marked {MARK_OPEN}like this{MARK_CLOSE} were found to answer the question "
    "best; use them unless another sentence of the sources answers it better."
)

# A base model runs on into the prompt's next parts: a new question, or source lines ("[2]
# report.pdf, page 5: ..."). An answer may run over several lines (a list), so a line break
# alone does not end it; query/runaway.py catches the same patterns inside a line, and
# repeated lines.
COMPLETION_STOP = (
    "\nQuestion:",
    "\nAnswer:",
    "\nSources:",
    "\n[",
    "Question:",
    "Sources:",
    "<end_of_turn>",
    "<eos>",
)
# A 270M base model copies the examples' wording but rarely their citation. Starting its answer
# with these words leaves it only the choice of the number, so every answer cites a source.
COMPLETION_ANSWER_PREFIX = "According to ["

# A summary over a document's outline (query/summary.py), by a model able to write: the outline
# is the document's own central sentences, each numbered; the summary may say only what they do.
SUMMARY_INSTRUCTIONS = (
    "Below is the outline of a document: its headings and, under each, its own most central "
    "sentences, each followed by a number like [1]. Summarise the document in one short "
    "paragraph of at most five sentences, using only what these sentences say, and cite each "
    "sentence of your summary with their numbers, like [2]."
)
SUMMARY_STOP = ("\n\n", "\nOutline", "Outline of", "<end_of_turn>", "<eos>")

# Follow-ups: at most this many earlier turns, each answer cut to this many tokens, and all of
# them together at most this share of the context.
MAX_TURNS = 3
TURN_ANSWER_TOKENS = 160
TURNS_SHARE = 0.25
# A source cut shorter than this is noise, not evidence: drop it instead.
MIN_SOURCE_TOKENS = 48
# Slack for the few tokens a chat template adds around each message, and rounding.
TEMPLATE_SLACK = 48


class Tokenizer(Protocol):
    def count_tokens(self, text: str) -> int: ...

    def truncate(self, text: str, max_tokens: int) -> str: ...


@dataclass(frozen=True, slots=True)
class Fitted:
    """A prompt ready to send, the sources in it (numbered from 1), and what was cut."""

    prompt: Prompt
    sources: tuple[Source, ...]
    dropped: int = 0  # retrieved passages left out for lack of room
    truncated: int = 0  # passages cut short to fit
    turns: int = 0  # earlier turns included


GAP = " … "


def merge_hits(hits: Sequence[Hit]) -> list[Hit]:
    """One source per page: passages of the same page are joined in page order, overlapping
    ones (chunks overlap by design) spliced, separate ones with " … " between them. A reader
    should not meet "[1] report.pdf, page 4" and "[3] report.pdf, page 4" as two sources, nor
    the model the same sentences twice. A page keeps the rank of its best passage."""
    groups: dict[tuple[str, str, int], list[Hit]] = {}
    for hit in hits:  # a team's copy of a file is another source than this desktop's
        groups.setdefault((hit.library, hit.path, hit.page), []).append(hit)
    merged: list[Hit] = []
    for group in groups.values():
        best = group[0]
        ordered = sorted(group, key=lambda h: (h.start, -h.end))
        text, end = ordered[0].text, ordered[0].end
        for hit in ordered[1:]:
            if hit.start <= end:
                if hit.end > end:
                    text += hit.text[end - hit.start :]
            else:
                text += GAP + hit.text
            end = max(end, hit.end)
        merged.append(
            Hit(
                chunk_id=best.chunk_id,
                doc_id=best.doc_id,
                path=best.path,
                page=best.page,
                start=ordered[0].start,
                end=end,
                text=text,
                score=max(h.score for h in group),
                similarity=max(h.similarity for h in group),
                section=best.section,
                nav=best.nav,
                why=best.why,
                library=best.library,
                whole=all(h.whole for h in group),
            )
        )
    return merged


# Reference marks inside the documents ("as shown [12]", "[3, 4]") would read as citations of
# our numbered sources: the model copies them, and they would then point at the wrong passage.
# [1], [1, 2], [1-3]: the shape of a citation, ours or a document's; the group holds the numbers.
CITATION = re.compile(r"\[(\d+(?:\s*[,;–-]\s*\d+)*)\]")
# With the space it leaves before a stop or a comma: "in 3 cases [5] ." reads "in 3 cases.".
_REFERENCE_MARK = re.compile(r"\s?" + CITATION.pattern + r"(?:\s+(?=[.,;:)]))?")


def clean(text: str) -> str:
    """One line of text: PDF line breaks and runs of spaces are noise to the model."""
    return " ".join(text.split())


def clean_source(text: str) -> str:
    return clean(_REFERENCE_MARK.sub("", text))


def source_line(n: int, path: str, page: int, text: str, section: str = "") -> str:
    if paginated(path):
        return f"[{n}] {os.path.basename(path)}, page {page}: {text}"
    # A section's title tells the model more than its number.
    where = section.rsplit(SEPARATOR, 1)[-1] if section else section_mark(section, page)
    return f"[{n}] {os.path.basename(path)}, {where}: {text}"


_LEAD_CITATION = re.compile(r"^According to \[\d+\],?\s*")


def earlier_answer(text: str) -> str:
    """An earlier answer without its [n]: those numbered the sources of another question."""
    return clean(_REFERENCE_MARK.sub("", _LEAD_CITATION.sub("", clean(text))))


def _turn_text(turn: Turn) -> str:
    return f"Question: {clean(turn.question)}\nAnswer: {turn.answer}\n"


def mark(text: str, sentences: Sequence[str]) -> str:
    """A source's text (one line, as clean_source makes it) with these sentences of it marked
    <<like this>>; a sentence not in it word for word is left unmarked."""
    for sentence in sentences:
        plain = clean(sentence)
        if plain and plain in text:
            text = text.replace(plain, f"{MARK_OPEN}{plain}{MARK_CLOSE}", 1)
    return text


# A paginated source line's head ("report.pdf, page 4: "), which a model copies before a quote.
_SOURCE_HEAD = re.compile(r"(?:(?<=\s)|^)[^\s\[\]]+\.[A-Za-z0-9]{2,5}, page \d+: ")


def unechoed(answer: str) -> str:
    """The answer without the heads of source lines it copied: "R-admin.pdf, page 30: Some
    possible reasons …" claims no "30" or "pdf" of its own."""
    return _SOURCE_HEAD.sub("", answer)


def unmarked(pieces: Iterable[str]) -> Iterator[str]:
    """A model's stream without the marks its prompt showed it (a model copies "<<" with the
    sentence it quotes); the stream is closed when this one is."""
    held = ""
    try:
        for piece in pieces:
            text = (held + piece).replace(MARK_OPEN, "").replace(MARK_CLOSE, "")
            held = ""
            if text.endswith((MARK_OPEN[0], MARK_CLOSE[0])):
                held, text = text[-1], text[:-1]  # maybe the start of a mark
            if text:
                yield text
        if held:
            yield held
    finally:
        close = getattr(pieces, "close", None)
        if close is not None:
            close()


def build_prompt(
    question: str,
    hits: Sequence[Hit],
    tokenizer: Tokenizer,
    *,
    context_size: int,
    answer_tokens: int,
    history: Sequence[Turn] = (),
    chat: bool = False,
    marked: Sequence[Quote] = (),
    max_sources: int | None = None,
    brief: Mapping[int, str] | None = None,
) -> Fitted:
    """Fixed instructions first (the cached prefix), then numbered sources, then recent turns
    and the question. Sources are fitted in rank order; the last one that does not fit whole is
    cut, and the ones after it are dropped, so prompt and answer always fit the context. The
    `marked` sentences (the cross-encoder's choice, numbered as these sources will be) are
    marked in the sources shown to a chat model; the sources kept are unmarked. At most
    `max_sources` sources (pages) are given, the first ones; a source numbered in `brief` is
    given by that sentence of it alone, followed by " …"."""
    question = clean(question)
    fixed = CHAT_SYSTEM if chat else f"{INSTRUCTIONS}\n\n{EXAMPLES}"
    prefix = "" if chat else COMPLETION_ANSWER_PREFIX
    tail = f"Question: {question}\nAnswer: {prefix}".rstrip()
    budget = context_size - answer_tokens - TEMPLATE_SLACK
    budget -= tokenizer.count_tokens(fixed) + tokenizer.count_tokens("Sources:\n")
    budget -= tokenizer.count_tokens(tail)
    if budget <= 0:
        # A question longer than the whole context: keep its start, and no sources at all.
        question = tokenizer.truncate(question, max(16, budget + tokenizer.count_tokens(question)))
        tail = f"Question: {question}\nAnswer: {prefix}".rstrip()
        budget = 0

    # Earlier turns, newest first, within their share; the question's own sources come first.
    turns: list[Turn] = []
    turn_budget = min(int(context_size * TURNS_SHARE), budget // 2)
    for turn in reversed(list(history)[-MAX_TURNS:]):
        answer = tokenizer.truncate(earlier_answer(turn.answer), TURN_ANSWER_TOKENS)
        short = Turn(turn.question, answer)
        cost = tokenizer.count_tokens(_turn_text(short))
        if cost > turn_budget:
            break
        turns.insert(0, short)
        turn_budget -= cost
        budget -= cost

    sources: list[Source] = []
    lines: list[str] = []
    truncated = 0
    merged = merge_hits(hits)[:max_sources]
    for hit in merged:
        n = len(sources) + 1
        text = clean_source(hit.text)
        if brief and n in brief:
            text = f"{clean_source(brief[n])} …"
        shown = mark(text, [q.text for q in marked if q.n == n]) if chat else text
        line = source_line(n, hit.path, hit.page, shown, hit.section)
        cost = tokenizer.count_tokens(line + "\n")
        if cost > budget:
            room = budget - (cost - tokenizer.count_tokens(text))
            if room < MIN_SOURCE_TOKENS:
                break
            text = tokenizer.truncate(text, room - 2).rstrip() + " …"
            line = source_line(n, hit.path, hit.page, text, hit.section)  # unmarked, cut
            cost = tokenizer.count_tokens(line + "\n")
            if cost > budget:
                break
            truncated += 1
        budget -= cost
        lines.append(line)
        sources.append(_source(n, hit, text))
    dropped = len(merged) - len(sources)

    source_block = "Sources:\n" + "".join(line + "\n" for line in lines)
    history_block = "".join(_turn_text(t) for t in turns)
    if chat:
        messages: list[tuple[str, str]] = [("system", CHAT_SYSTEM)]
        for turn in turns:
            messages.append(("user", clean(turn.question)))
            messages.append(("assistant", turn.answer))
        messages.append(("user", f"{source_block}\nQuestion: {question}"))
        prompt = Prompt(messages=tuple(messages))
    else:
        prompt = Prompt(
            text=f"{fixed}{source_block}{history_block}{tail}",
            stop=COMPLETION_STOP,
            answer_prefix=prefix,
        )
    return Fitted(prompt, tuple(sources), dropped, truncated, len(turns))


def _source(n: int, hit: Hit, text: str) -> Source:
    return Source(
        n=n,
        path=hit.path,
        page=hit.page,
        score=hit.score,
        text=text,
        start=hit.start,
        end=hit.end,
        section=hit.section,
        why=hit.why,
        library=hit.library,
        whole=hit.whole,
    )


def clean_lines(text: str) -> str:
    """A source's text with its reference marks dropped and its lines kept, each line's
    spaces evened out: where a line ends tells a heading from the sentence after it."""
    lines = (" ".join(line.split()) for line in _REFERENCE_MARK.sub("", text).split("\n"))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def number_sources(hits: Sequence[Hit]) -> tuple[Source, ...]:
    """The sources as build_prompt numbers them (one per page, reference marks dropped), for
    an answer no model reads: nothing is cut to fit a context, and the lines are kept, so the
    composed answer can leave headings out (query/quote.py, `answer_sentences`)."""
    return tuple(
        _source(n, hit, clean_lines(hit.text)) for n, hit in enumerate(merge_hits(hits), 1)
    )


def parse_citations(answer: str, n_sources: int) -> tuple[int, ...]:
    """The [n] the answer cites, in order of first mention, keeping only sources that exist.
    Accepts [1], [1][2], [1, 2] and [1-3]."""
    cited: list[int] = []
    for match in CITATION.finditer(answer):
        numbers: list[int] = []
        for part in re.split(r"\s*[,;]\s*", match.group(1)):
            bounds = re.split(r"\s*[–-]\s*", part)
            if len(bounds) == 2:
                lo, hi = int(bounds[0]), int(bounds[1])
                if 0 < hi - lo < 20:
                    numbers.extend(range(lo, hi + 1))
                    continue
            numbers.extend(int(b) for b in bounds[:1])
        for n in numbers:
            if 1 <= n <= n_sources and n not in cited:
                cited.append(n)
    return tuple(cited)


def summary_prompt(
    outline: str, tokenizer: Tokenizer, *, context_size: int, answer_tokens: int, chat: bool
) -> Prompt:
    """The prompt for a summary over an outline's text (its [n] as the answer cites them): the
    instructions first, then as much of the outline as fits (its start: the gist and the first
    sections)."""
    fixed = f"{SUMMARY_INSTRUCTIONS}\n\n"
    tail = "\nSummary:"
    budget = context_size - answer_tokens - TEMPLATE_SLACK
    budget -= tokenizer.count_tokens(fixed) + tokenizer.count_tokens(tail)
    text = tokenizer.truncate(outline, max(budget, 0)).rstrip()
    if chat:
        return Prompt(messages=(("system", SUMMARY_INSTRUCTIONS), ("user", text)))
    return Prompt(text=f"{fixed}{text}{tail}", stop=SUMMARY_STOP)
