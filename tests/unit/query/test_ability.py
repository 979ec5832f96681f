"""Who writes the answer: the measured rule per model, its verdict kept, the service's mode."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.query import ability
from desktop_rag.query.ability import PROBES, Abilities, Verdict
from desktop_rag.query.compose import compose
from desktop_rag.types import DoneEvent, QuotesEvent, SourcesEvent, TokenEvent
from tests.fakes import FakeLlm, HashEmbedder
from tests.helpers.apps import make_app


def composer(question, sources):  # type: ignore[no-untyped-def]
    return compose(question, sources, HashEmbedder())


class ProbeReader(FakeLlm):
    """A model that answers each probe with the source stating its fact (`faithful`), or
    with an invented figure."""

    def __init__(self, model_file: Path | None, faithful: bool = True) -> None:
        super().__init__()
        self.chosen_file = model_file
        self.faithful = faithful

    def stream(self, prompt, max_tokens, cancel=None):  # type: ignore[no-untyped-def]
        probe = next(p for p in PROBES if p.question in prompt.text)
        n, fact = next(
            (i, t) for i, t in enumerate(probe.sources, 1) if probe.must[0].lower() in t.lower()
        )
        self.answer = f"{n}], {fact}" if self.faithful else "1], it takes 17 days in Paris."
        return super().stream(prompt, max_tokens, cancel)


def test_a_model_whose_answers_state_the_facts_from_their_source_writes(tmp_path: Path) -> None:
    verdict = ability.measure(ProbeReader(None), composer)
    assert verdict.probes == len(PROBES) and verdict.invents == 0
    assert verdict.states == len(PROBES) >= verdict.composed_states
    assert verdict.writes


def test_a_model_that_invents_does_not_write(tmp_path: Path) -> None:
    verdict = ability.measure(ProbeReader(None, faithful=False), composer)
    assert verdict.invents == len(PROBES) and verdict.states == 0
    assert not verdict.writes


def test_the_composed_answers_of_the_probes_state_their_facts() -> None:
    # The bar a model must reach: the composed answers' share (a fixed set, so it cannot be
    # zero by accident and let any model write).
    verdict = ability.measure(ProbeReader(None, faithful=False), composer)
    assert verdict.composed_states >= len(PROBES) // 2


def test_verdicts_are_kept_per_model_file_and_forgotten_when_it_changes(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF one")
    kept = Abilities(tmp_path / "abilities.json")
    verdict = Verdict(True, 18, 16, 0, len(PROBES), "m.gguf")
    kept.put(model, verdict)
    assert Abilities(tmp_path / "abilities.json").get(model) == verdict
    model.write_bytes(b"GGUF another model")
    assert kept.get(model) is None


def test_the_service_composes_without_loading_the_model(tmp_path: Path, animal_pdfs) -> None:
    llm = FakeLlm()
    app = make_app(tmp_path, llm, mode=None)  # the bundled one (no file picked) composes
    app.ingest.index([str(animal_pdfs)])
    events = list(app.answer.ask("Why is octopus blood blue?"))
    kinds = [type(e) for e in events]
    assert kinds == [SourcesEvent, QuotesEvent, TokenEvent, DoneEvent]
    quotes, token, done = events[1], events[2], events[3]
    assert isinstance(quotes, QuotesEvent) and isinstance(done, DoneEvent)
    assert isinstance(token, TokenEvent) and token.text == done.answer
    assert done.mode == "composed" and not done.refused and done.cited
    assert all(q.text in done.answer for q in quotes.quotes)
    assert "hemocyanin" in done.answer
    assert not llm.loaded and llm.prompts == []
    assert app.answer.describe_mode() == "From your documents' own sentences"


def test_a_picked_model_is_measured_once_then_writes(tmp_path: Path, animal_pdfs) -> None:
    model = tmp_path / "big.gguf"
    model.write_bytes(b"GGUF")
    llm = ProbeReader(model)
    app = make_app(tmp_path, llm, mode=None)
    app.answer.abilities = Abilities(tmp_path / "abilities.json")
    assert app.answer.answer_mode() == "composed"  # not measured yet
    app.answer.warm_up()
    asked = len(llm.prompts)
    assert asked == len(PROBES)
    assert app.answer.answer_mode() == "written"
    assert app.answer.describe_mode() == "Written by fake from the sources"
    app.answer.warm_up()
    assert len(llm.prompts) == asked, "measured once per model file"


def test_the_label_says_who_wrote_the_answer() -> None:
    assert ability.describe("composed", "big.gguf") == "From your documents' own sentences"
    assert ability.describe("written", "big.gguf") == "Written by big.gguf from the sources"
    assert ability.describe("written", "") == "Written by the model from the sources"


def test_a_model_writes_only_when_it_states_more_facts_than_the_composed_answers() -> None:
    n = len(PROBES)
    assert n >= 20, "enough probes that one does not decide"
    assert ability.rule(15, 14, 0, n)
    assert not ability.rule(14, 14, 0, n), "as often is not better"
    assert ability.rule(18, 14, 1, n), "one answer in twenty caught by the claims check"
    assert not ability.rule(18, 14, 2, n)
    assert not ability.rule(0, 0, 0, 0), "a cancelled measurement decides nothing"


def test_the_probes_are_of_the_kinds_users_ask() -> None:
    starts = [p.question.split()[0].lower() for p in PROBES]
    for kind in ("how", "why", "who", "which", "can", "what"):
        assert kind in starts, kind
    # Each fact is in one source only, phrased apart from the question.
    for probe in PROBES:
        holding = [t for t in probe.sources if all(m.lower() in t.lower() for m in probe.must)]
        assert len(holding) == 1, probe.question


def test_a_verdict_on_another_set_of_probes_is_measured_again(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    kept = Abilities(tmp_path / "abilities.json")
    kept.put(model, Verdict(True, 8, 6, 0, 8, "m.gguf"))  # an older release's eight probes
    assert kept.get(model) is None


def test_settings_shows_the_verdicts_figures(tmp_path: Path) -> None:
    model = tmp_path / "big.gguf"
    model.write_bytes(b"GGUF")
    kept = Abilities(tmp_path / "abilities.json")
    n = len(PROBES)
    kept.put(model, Verdict(True, 17, 14, 1, n, "big.gguf"))
    line = ability.settings_line(str(model), kept)
    assert line.startswith("Answers: written by big.gguf")
    assert f"states the fact 17 of {n}, composed 14 of {n}; invents 1" in line
