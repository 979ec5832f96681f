"""The conversation model without Qt: an exchange takes in answer events; old saves still load."""

from __future__ import annotations

import json
from pathlib import Path

from desktop_rag.conversations import ChatState, Conversation, ConversationStore, Exchange
from desktop_rag.types import DoneEvent, Source, SourcesEvent, Timings, TokenEvent

SOURCES = (
    Source(1, "/lib/octopus.pdf", 2, 0.9, "Octopus blood is blue."),
    Source(2, "/lib/zebra.pdf", 1, 0.4, "Zebras have stripes."),
)


def test_an_exchange_takes_in_an_answer_as_it_streams() -> None:
    exchange = Exchange("Why is octopus blood blue?")
    exchange.apply(SourcesEvent(SOURCES))
    assert exchange.sources == list(SOURCES) and exchange.answer == ""
    for piece in ("Because of", " hemocyanin", " [1]."):
        exchange.apply(TokenEvent(piece))
    assert exchange.answer == "Because of hemocyanin [1]." and exchange.cited == []
    exchange.apply(DoneEvent("Because of hemocyanin [1].", (1,), Timings(), unsupported=("1970",)))
    assert exchange.cited == [1] and exchange.unsupported == ["1970"]
    assert not exchange.refused and not exchange.stopped and exchange.complete
    assert exchange.source(1) == SOURCES[0] and exchange.source(3) is None


def test_a_refusal_a_stop_and_a_failure_are_kept_apart() -> None:
    refused = Exchange("What does the zebra eat?")
    refused.apply(SourcesEvent(()))
    refused.apply(DoneEvent("I could not find this in your documents.", (), Timings(), True))
    assert refused.refused and refused.complete and refused.cited == []

    stopped = Exchange("Tell me everything.")
    stopped.apply(TokenEvent("Octopuses have"))
    stopped.apply(DoneEvent("", (), Timings(), cancelled=True))
    assert stopped.answer == "Octopuses have", "what streamed before the stop stays"
    assert stopped.stopped and not stopped.complete

    failed = Exchange("And then?")
    failed.apply(TokenEvent("Then"))
    failed.fail("")
    assert failed.error == "The answer could not be written." and failed.answer == "Then"
    assert not failed.complete
    failed.fail("The model ran out of memory.")
    assert failed.error == "The model ran out of memory."


def test_only_finished_exchanges_make_the_history() -> None:
    conv = Conversation()
    done = conv.add("First?")
    done.apply(DoneEvent("One.", (), Timings()))
    conv.add("Second?").apply(DoneEvent("Tw", (), Timings(), cancelled=True))
    assert [t.question for t in conv.history()] == ["First?"]
    assert conv.title == "First?"


def test_a_refusal_round_trips_and_old_saves_still_load(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "conv")
    conv = Conversation()
    conv.add("Where?").apply(DoneEvent("Not in your documents.", (), Timings(), refused=True))
    conv.add("What?").apply(DoneEvent("Blue [2].", (2,), Timings(), recited_from=(1,)))
    store.save(conv)
    saved = json.loads((tmp_path / "conv" / f"{conv.id}.json").read_text())
    assert [e["refused"] for e in saved["exchanges"]] == [True, False]
    loaded = store.load_all()[0].exchanges
    assert [e.refused for e in loaded] == [True, False]
    assert loaded[1].cited == [2] and loaded[1].recited_from == [1]

    # Saved before `grounded` was renamed: False meant a refusal; no key meant an answer.
    old = {
        "id": "old",
        "title": "Old",
        "created": 1.0,
        "updated": 2.0,
        "exchanges": [
            {"question": "Where?", "answer": "Not there.", "grounded": False},
            {"question": "What?", "answer": "Blue.", "grounded": True},
            {"question": "Who?", "answer": "Nobody."},
        ],
    }
    (tmp_path / "conv" / "old.json").write_text(json.dumps(old))
    loaded = next(c for c in store.load_all() if c.id == "old")
    assert [e.refused for e in loaded.exchanges] == [True, False, False]


def test_a_ranking_saved_as_fused_loads_as_blended(tmp_path: Path) -> None:
    """Sources saved before the blended score was named so kept it as "fused"."""
    store = ConversationStore(tmp_path / "conv")
    why = {"text_rank": 2, "text_score": 7.3, "vector_rank": 1, "similarity": 0.61}
    source = {"n": 1, "path": "/lib/octopus.pdf", "page": 2, "score": 0.9, "text": "Blue."}
    old = {
        "id": "old",
        "title": "Old",
        "created": 1.0,
        "updated": 2.0,
        "exchanges": [
            {
                "question": "Why blue?",
                "answer": "Blue [1].",
                "sources": [{**source, "why": {**why, "fused": 0.64, "demoted": ""}}],
            }
        ],
    }
    (tmp_path / "conv").mkdir(parents=True, exist_ok=True)
    (tmp_path / "conv" / "old.json").write_text(json.dumps(old))
    loaded = next(c for c in store.load_all() if c.id == "old")
    explained = loaded.exchanges[0].sources[0].why
    assert explained is not None and explained.blended == 0.64 and explained.vector_rank == 1


def test_one_answer_at_a_time_in_the_conversation_shown() -> None:
    state = ChatState()
    assert state.ask("Why is octopus blood blue?") == []
    first = state.current
    assert first is not None and state.shown and state.exchange is first.exchanges[0]
    assert state.ask("And zebras?") is None, "a second question waits for the first answer"
    state.exchange.apply(DoneEvent("Hemocyanin [1].", (1,), Timings()))  # type: ignore[union-attr]
    assert state.finish() is first and state.in_progress is None
    history = state.ask("And zebras?")
    assert history is not None and [t.question for t in history] == ["Why is octopus blood blue?"]
    state.current = Conversation()  # another conversation shown while this one is answered
    assert not state.shown and state.exchange is first.exchanges[1]


def test_a_deleted_conversation_is_never_saved_again() -> None:
    state = ChatState()
    state.ask("Why is octopus blood blue?")
    asked = state.current
    assert asked is not None
    assert state.delete(asked.id), "the answer being written in it is to be stopped"
    assert state.at_close() is None, "not saved at close mid-answer"
    assert state.finish() is None, "not saved by its answer finishing after the delete"
    state.current = None
    state.ask("Another question")
    assert not state.delete("someone-else"), "no answer of that one to stop"
    assert state.at_close() is state.current and state.finish() is state.current


def test_a_conversation_keeps_its_scope(tmp_path) -> None:
    from desktop_rag.query.scope import Scope

    state = ChatState()
    scope = Scope(files=("/lib/contract.pdf",), folders=("/lib/tax",))
    assert state.set_scope(scope) is None  # nothing asked yet: the new conversation's
    state.ask("When does it end?")
    conv = state.finish()
    assert conv is not None and conv.scope == scope and state.scope == scope
    store = ConversationStore(tmp_path)
    store.save(conv)
    (loaded,) = store.load_all()
    assert loaded.scope == scope
    assert state.set_scope(Scope()) is conv  # widened: to save again
    store.save(conv)
    assert store.load_all()[0].scope.whole_library
    # A conversation saved before scopes opens on the whole library.
    raw = json.loads((tmp_path / f"{conv.id}.json").read_text(encoding="utf-8"))
    del raw["scope"]
    (tmp_path / f"{conv.id}.json").write_text(json.dumps(raw), encoding="utf-8")
    assert store.load_all()[0].scope.whole_library


def test_a_listed_answer_keeps_its_kind_and_its_documents_counts(tmp_path) -> None:
    # Reopened, the window shows the list of documents and how the question was taken again.
    conv = Conversation()
    e = conv.add("Which files mention the roof?")
    e.apply(SourcesEvent((Source(1, "/lib/roof.pdf", 3, 0.8, "The roof.", matches=4),)))
    e.apply(DoneEvent("1 document mentions or discusses “roof”:", (1,), Timings(), mode="listing"))
    e.kind, e.routed = "library", "Listing documents (asks which documents)"
    ConversationStore(tmp_path).save(conv)
    (again,) = ConversationStore(tmp_path).load_all()
    loaded = again.exchanges[0]
    assert loaded.sources[0].matches == 4 and loaded.mode == "listing"
    assert (loaded.kind, loaded.routed) == ("library", "Listing documents (asks which documents)")


def test_a_written_answer_saved_before_the_other_answer_was_kept_still_loads(
    tmp_path: Path,
) -> None:
    """Saved before an exchange kept its other answer (the composed one beside a written one):
    no `other` key. It loads, shows the answer it stored and has no other yet."""
    quote = {"n": 1, "path": "/lib/octopus.pdf", "page": 2, "text": "Blue.", "score": 0.8}
    source = {"n": 1, "path": "/lib/octopus.pdf", "page": 2, "score": 0.9, "text": "Blue."}
    old = {
        "id": "old",
        "title": "Old",
        "created": 1.0,
        "updated": 2.0,
        "exchanges": [
            {
                "question": "Why blue?",
                "answer": "Hemocyanin makes it blue [1].",
                "sources": [source],
                "cited": [1],
                "quotes": [quote],
                "mode": "written",
                "model": "tiny.gguf",
                "kind": "passage",
            }
        ],
    }
    (tmp_path / "conv").mkdir(parents=True)
    (tmp_path / "conv" / "old.json").write_text(json.dumps(old))
    (loaded,) = ConversationStore(tmp_path / "conv").load_all()
    (exchange,) = loaded.exchanges
    assert exchange.answer == "Hemocyanin makes it blue [1]." and exchange.mode == "written"
    assert exchange.other is None and exchange.quotes[0].text == "Blue."


def test_the_other_answer_is_kept_beside_the_one_shown_and_saved(tmp_path: Path) -> None:
    from desktop_rag.conversations import Version
    from desktop_rag.types import Quote

    conv = Conversation()
    e = conv.add("Why is octopus blood blue?")
    e.apply(SourcesEvent(SOURCES))
    e.apply(DoneEvent("Blue, from copper [1].", (1,), Timings(), unsupported=("copper",)))
    written = e.version
    assert written == Version("Blue, from copper [1].", "written", (1,), (), "", ("copper",))

    quote = Quote(1, "/lib/octopus.pdf", 2, "Octopus blood is blue.", 0.9)
    composed = Version("Octopus blood is blue. [1]", "composed", (1,), (quote,))
    assert e.take_other(composed), "a composed answer with words is shown"
    assert e.answer == composed.answer and e.mode == "composed" and e.quotes == [quote]
    assert e.unsupported == [], "the written answer's warnings go with it"
    assert e.other == written

    store = ConversationStore(tmp_path)
    store.save(conv.snapshot())
    (loaded,) = store.load_all()
    assert loaded.exchanges[0].version == composed and loaded.exchanges[0].other == written
    assert loaded.exchanges[0].swap() and loaded.exchanges[0].version == written
    assert loaded.exchanges[0].other == composed

    nothing = Exchange("Why?", answer="Because [1].", mode="written")
    assert not nothing.take_other(Version("", "composed")), "an empty one is kept, not shown"
    assert nothing.answer == "Because [1]." and not nothing.swap()
    assert nothing.other == Version("", "composed")
