"""Whether a model writes answers or they are composed from the sources: a measured rule.

Each model is given the same eight questions over fixed sources (a fact in one of them, the
others near it), and answers them as it would answer the user. It writes the answers from then
on only when its own answers state the fact at least as often as the composed ones do and none
of them says anything its cited source lacks (the claims check). The verdict is kept per model
file (its size and modification time) in the cache dir, so a model is measured once. The
bundled 270M model fails the rule (tests/integration check it), so its answers are composed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from desktop_rag.engines.embed import Embedder
from desktop_rag.engines.llm import Llm
from desktop_rag.infra.keyed import KeyedJson
from desktop_rag.query import claims
from desktop_rag.query.compose import compose
from desktop_rag.query.prompt import Fitted, build_prompt, parse_citations
from desktop_rag.query.runaway import Runaway
from desktop_rag.types import Hit

log = logging.getLogger(__name__)

ANSWER_TOKENS = 160


@dataclass(frozen=True, slots=True)
class Probe:
    question: str
    sources: tuple[str, ...]
    must: tuple[str, ...]  # at least half of these in the answer: it states the fact


# The fact sits in a different source each time, phrased apart from the question, beside
# sources on the same subject that do not answer it.
PROBES = (
    Probe(
        "My router stopped working after I changed lots of settings. How do I get it back to "
        "how it came from the shop?",
        (
            "The guest network is off by default; turn it on under Settings, Wireless.",
            "To restore the factory configuration, hold the recessed button on the back with a "
            "paperclip for 15 seconds, until the light blinks orange.",
            "Firmware updates install automatically at 3 a.m. local time.",
        ),
        ("paperclip", "15 seconds"),
    ),
    Probe(
        "How long can the opened sauce stay in my fridge before I should throw it out?",
        (
            "Once opened, keep the sauce refrigerated and use it within 6 weeks.",
            "Unopened jars keep for two years in a cool, dry cupboard.",
            "The sauce contains mustard and celery.",
        ),
        ("6 weeks",),
    ),
    Probe(
        "Which command shows me which packages take up the most space on my disk?",
        (
            "The apt-get autoremove command removes packages that nothing depends on any more.",
            "To clean the package cache, run apt-get clean.",
            "Run dpigs to list the installed packages that use the most disk space, largest first.",
        ),
        ("dpigs",),
    ),
    Probe(
        "Is it safe to give the medicine to my six-year-old?",
        (
            "The tablets are not suitable for children under 12 years of age.",
            "Take one tablet every four hours, with water, and no more than four in 24 hours.",
            "Store below 25 degrees Celsius.",
        ),
        ("not suitable", "12"),
    ),
    Probe(
        "Who do I send my expense receipts to, and by when?",
        (
            "Travel must be booked through the company portal at least two weeks ahead.",
            "Meals are reimbursed up to 40 euros a day.",
            "Receipts go to the finance office, Room 214, no later than the 5th of the "
            "following month.",
        ),
        ("finance office", "5th"),
    ),
    Probe(
        "Why does my bread come out flat and dense?",
        (
            "Bake at 220 degrees for 35 minutes, then let the loaf cool on a rack.",
            "Dough that has risen too long collapses in the oven and bakes flat: shape it when "
            "it has doubled, not tripled.",
            "Whole wheat flour absorbs more water than white flour.",
        ),
        ("risen too long", "doubled"),
    ),
    Probe(
        "What is the maximum file size I can attach?",
        (
            "Attachments may be up to 25 MB each; larger files are shared as a link.",
            "Messages are kept for 90 days in the trash before they are deleted.",
            "You can attach files by dragging them onto the message.",
        ),
        ("25 MB",),
    ),
    Probe(
        "Can I get my deposit back if I cancel the booking?",
        (
            "Bookings can be changed free of charge up to 48 hours before arrival.",
            "Breakfast is served from 7 to 10 in the ground-floor restaurant.",
            "The deposit is not refundable, but it can be used for another stay within a year.",
        ),
        ("not refundable",),
    ),
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a model's probe answers showed, and so whether it writes."""

    writes: bool
    states: int  # its answers that state the fact
    composed_states: int  # composed answers that do
    invents: int  # its answers with a name, term or figure their cited source lacks
    probes: int
    model: str = ""


def states(answer: str, must: tuple[str, ...]) -> bool:
    low = " ".join(answer.lower().split())
    return sum(1 for m in must if m.lower() in low) * 2 >= len(must)


def _hits(probe: Probe) -> list[Hit]:
    return [
        Hit(f"probe{i}", "probe", "probe.txt", i + 1, 0, len(t), t, 1.0 - i * 0.1, 0.5)
        for i, t in enumerate(probe.sources)
    ]


def write(llm: Llm, fitted: Fitted, cancel: threading.Event) -> str:
    """The model's answer to a probe's prompt, read as the answer service reads it."""
    guard = Runaway()
    lead = fitted.prompt.answer_prefix
    for piece in llm.stream(fitted.prompt, ANSWER_TOKENS, cancel):
        if lead:
            piece, lead = lead + piece, ""
        guard.feed(piece)
        if guard.stopped:
            break
    return guard.answer()


def measure(
    llm: Llm,
    embedder: Embedder,
    cancel: threading.Event | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> Verdict:
    """Ask the model the probes and apply the rule."""
    cancel = cancel or threading.Event()
    llm.load()
    wrote = composed = invented = 0
    for i, probe in enumerate(PROBES):
        if cancel.is_set():
            break
        # Prompted as the answer service prompts the model.
        fitted = build_prompt(
            probe.question,
            _hits(probe),
            llm,
            context_size=llm.context_size,
            answer_tokens=ANSWER_TOKENS,
            chat=llm.has_chat_template,
        )
        answer = write(llm, fitted, cancel)
        sources = fitted.sources
        made = compose(probe.question, sources, embedder)
        composed += states(made.text, probe.must)
        stated = states(answer, probe.must)
        wrote += stated
        cited = parse_citations(answer, len(sources))
        texts = [s.text for s in sources if s.n in cited] or [s.text for s in sources]
        found = claims.check(answer, texts, lambda w: 0.0, asked=[probe.question])
        invented += bool(found.unsupported) or found.refuse
        log.info("probe %d: states=%s unsupported=%s", i + 1, stated, found)
        if on_progress is not None:
            on_progress(i + 1, len(PROBES))
    done = len(PROBES) if not cancel.is_set() else 0
    writes = bool(done) and wrote >= composed and invented == 0
    return Verdict(writes, wrote, composed, invented, done, llm.name)


class Abilities:
    """The verdicts measured so far, keyed by the model file's path, size and mtime."""

    def __init__(self, path: Path) -> None:
        self.cache = KeyedJson(path)

    @staticmethod
    def key(model: Path) -> str:
        try:
            st = model.stat()
        except OSError:
            return ""
        return f"{model.resolve()}|{st.st_size}|{st.st_mtime_ns}"

    def get(self, model: Path) -> Verdict | None:
        raw = self.cache.get(self.key(model))
        try:
            return Verdict(**raw)
        except TypeError:
            return None

    def put(self, model: Path, verdict: Verdict) -> None:
        self.cache.put(self.key(model), asdict(verdict))


def describe(mode: str, model: str) -> str:
    """What the answer and Settings say of who wrote it."""
    if mode == "written":
        return f"Written by {model or 'the model'} from the sources"
    if mode == "listing":  # a library question (desktop_rag/routing.py)
        return "Listing documents"
    if mode == "outline":
        return "Outline of the document, in its own sentences"
    if mode == "summary":  # query/summary.py
        return (
            f"Summary written by {model or 'the model'}; below it, the outline in the "
            "document's own sentences"
        )
    return "From your documents' own sentences"


def settings_line(model_file: str, abilities: Abilities) -> str:
    """What Settings says of who writes the answers with this model ("" for the built-in)."""
    if not model_file:
        return (
            "Answers: from your documents' own sentences. The built-in model is small, so it "
            "does not write them; the sentences are put together loosely: check the cited "
            "pages."
        )
    path = Path(model_file).expanduser()
    found = abilities.get(path)
    if found is None:
        return (
            f"Answers: {path.name} is tried on eight questions the first time it answers. If "
            "its answers state the facts and claim nothing their sources lack, it writes them; "
            "if not, they come from your documents' own sentences."
        )
    tried = f"{found.states} of {found.probes} facts stated, {found.invents} answers " + (
        "with claims their sources lack"
    )
    if found.writes:
        return f"Answers: written by {path.name} from the sources (tried: {tried})."
    return f"Answers: from your documents' own sentences; {path.name} was tried ({tried})."
