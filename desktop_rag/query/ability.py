"""Whether a model writes answers or they are composed from the sources: a measured rule.

Each model is given the same twenty questions over fixed sources (a fact in one of them, the
others near it), of the kinds users ask: steps, figures, reasons, names, yes or no. It answers
them as it would answer the user. It writes the answers from then on only when its own answers
state the fact more often than the composed ones do, and at most one in twenty
(INVENTS_AT_MOST) says something its cited source lacks (the claims check, which would replace
such an answer with the composed one). The verdict is kept per model file (its size and
modification time) in the cache dir, so a model is measured once. The bundled 270M model fails
the rule (tests/integration check it), so its answers are composed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from desktop_rag.engines.llm import Llm
from desktop_rag.infra.keyed import KeyedJson
from desktop_rag.query import claims
from desktop_rag.query.compose import Composed
from desktop_rag.query.prompt import (
    Fitted,
    build_prompt,
    number_sources,
    parse_citations,
    unmarked,
)
from desktop_rag.query.runaway import Runaway
from desktop_rag.types import AnswerMode, Hit, Source

# The composed answer to a question from these sources, as the answer service makes it.
Composer = Callable[[str, Sequence[Source]], Composed]

log = logging.getLogger(__name__)

ANSWER_TOKENS = 160
# The share of its probe answers a model that writes may have the claims check catch.
INVENTS_AT_MOST = 0.05


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
    Probe(
        "How do I get the printer to use both sides of the paper?",
        (
            "Paper jams are cleared from the rear door; never pull a sheet out from the front.",
            "In the print dialog, open Layout and set Two-sided to Long edge; the printer then "
            "turns each sheet over by itself.",
            "Recycled paper of 80 g/m2 works in both trays.",
        ),
        ("Layout", "Two-sided"),
    ),
    Probe(
        "How much will renewing my passport cost me?",
        (
            "Renewals take three weeks; allow longer before the summer holidays.",
            "Your old passport is returned to you with its corner cut off.",
            "An adult renewal is 88.50 pounds when you apply online and 100 pounds on a paper "
            "form.",
        ),
        ("88.50",),
    ),
    Probe(
        "Why is the fan of my laptop so loud all the time?",
        (
            "Dust in the air vents makes the fan spin faster to keep the processor cool; blow "
            "the vents clean with compressed air.",
            "The battery charges to 80% only when Battery Care is on.",
            "The keyboard backlight turns off after 30 seconds without a key press.",
        ),
        ("dust", "vents"),
    ),
    Probe(
        "Who do I ring when the heating breaks down in the middle of the night?",
        (
            "Radiators should be bled once a year, before the winter.",
            "Outside office hours, faults are handled by Northside Heating on 0800 555 0199, "
            "every day of the year.",
            "The boiler is serviced each September by the landlord's engineer.",
        ),
        ("Northside", "0800 555 0199"),
    ),
    Probe(
        "How can I stop the program from opening every time I log in?",
        (
            "Untick Launch at startup under Preferences, General, and it waits until you open "
            "it yourself.",
            "Updates are checked once a day and installed when you quit.",
            "Your settings are kept in a file in your home folder.",
        ),
        ("Launch at startup",),
    ),
    Probe(
        "How many days off do I get in my first year?",
        (
            "Sick leave must be reported to your manager before 10 a.m.",
            "Staff start with 23 days of paid annual leave, rising by one day for each year of "
            "service up to 28.",
            "Unused leave cannot be carried into the next year.",
        ),
        ("23 days",),
    ),
    Probe(
        "Why did my parcel go back to the sender?",
        (
            "Parcels that nobody collects from the depot within 14 days are returned to the "
            "sender.",
            "Tracking numbers start with two letters and end with GB.",
            "Deliveries are made between 8 a.m. and 6 p.m. on weekdays.",
        ),
        ("collect", "14 days"),
    ),
    Probe(
        "Which file do I need to edit to change the port the server listens on?",
        (
            "Log files rotate weekly and are kept for a month.",
            "Restart the service after any change with systemctl restart webapp.",
            "The listening port is the value of listen_port in /etc/webapp/server.toml.",
        ),
        ("server.toml",),
    ),
    Probe(
        "My project stopped building after the upgrade. What should I try first?",
        (
            "After an upgrade, delete the build folder and run make distclean before building "
            "again: old objects do not link with the new compiler.",
            "The test suite takes about ten minutes on a laptop.",
            "Contributions are sent as pull requests against the main branch.",
        ),
        ("distclean",),
    ),
    Probe(
        "Can I take my dog with me on the train?",
        (
            "Bicycles travel free outside rush hours, in the marked coaches only.",
            "Dogs travel free on a lead or in a carrier, as long as they do not take up a seat.",
            "Food and drink are sold in the buffet car on long-distance trains.",
        ),
        ("lead", "carrier"),
    ),
    Probe(
        "At what temperature should I wash my wool jumper?",
        (
            "Dry knitwear flat on a towel, away from the radiator.",
            "Wool is washed by hand or on the wool cycle at no more than 30 degrees.",
            "Cotton shirts can go in at 40 degrees with like colours.",
        ),
        ("30 degrees",),
    ),
    Probe(
        "Where do I go if I lose my staff badge?",
        (
            "Badges open the doors of your own floor and the car park.",
            "A lost badge is reported at the security desk in the main reception, which gives "
            "you a day pass.",
            "Visitors sign in and are met at reception by their host.",
        ),
        ("security desk",),
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
    for piece in unmarked(llm.stream(fitted.prompt, ANSWER_TOKENS, cancel)):
        if lead:
            piece, lead = lead + piece, ""
        guard.feed(piece)
        if guard.stopped:
            break
    return guard.answer()


def rule(states: int, composed_states: int, invents: int, probes: int) -> bool:
    """Whether a model with these probe answers writes."""
    return bool(probes) and states > composed_states and invents <= INVENTS_AT_MOST * probes


def measure(
    llm: Llm,
    composer: Composer,
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
        # Prompted as the answer service prompts the model: the composed answer's sentences
        # marked in its sources.
        hits = _hits(probe)
        made = composer(probe.question, number_sources(hits))
        composed += states(made.text, probe.must)
        fitted = build_prompt(
            probe.question,
            hits,
            llm,
            context_size=llm.context_size,
            answer_tokens=ANSWER_TOKENS,
            chat=llm.has_chat_template,
            marked=made.quotes,
        )
        answer = write(llm, fitted, cancel)
        sources = fitted.sources
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
    return Verdict(rule(wrote, composed, invented, done), wrote, composed, invented, done, llm.name)


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
        """The model's verdict; None when it was not measured, or on another set of probes
        (an older release's), so that it is measured again."""
        raw = self.cache.get(self.key(model))
        try:
            found = Verdict(**raw)
        except TypeError:
            return None
        return found if found.probes == len(PROBES) else None

    def put(self, model: Path, verdict: Verdict) -> None:
        self.cache.put(self.key(model), asdict(verdict))


def describe(mode: str, model: str) -> str:
    """What the answer and Settings say of who wrote it."""
    if mode == AnswerMode.WRITTEN:
        return f"Written by {model or 'the model'} from the sources"
    if mode == AnswerMode.LISTING:  # a library question (desktop_rag/routing.py)
        return "Listing documents"
    if mode == AnswerMode.OUTLINE:
        return "Outline of the document, in its own sentences"
    if mode == AnswerMode.SUMMARY:  # query/summary.py
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
            f"Answers: {path.name} is tried on {len(PROBES)} questions the first time it "
            "answers. If its answers state the facts more often than your documents' own "
            "sentences do, and rarely claim what their sources lack, it writes them; if not, they "
            "come from your documents' own sentences."
        )
    if found.writes:
        return f"Answers: written by {path.name} from the sources ({figures(found)})."
    return f"Answers: from your documents' own sentences; {path.name} was tried ({figures(found)})."


def figures(found: Verdict) -> str:
    """The verdict's figures, as Settings and the command line show them."""
    return (
        f"states the fact {found.states} of {found.probes}, composed {found.composed_states} "
        f"of {found.probes}; invents {found.invents}"
    )
