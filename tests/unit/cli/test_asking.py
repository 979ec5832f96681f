"""`desktop-rag ask`: output contract and clear errors, with a fake model (no llama.cpp)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import desktop_rag.query.answer as answer_module
from desktop_rag import cli
from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.engines.llm import check_memory, check_model_file
from desktop_rag.errors import ModelError
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.query import claims
from desktop_rag.query.prompt import NOTHING_RELEVANT
from tests.fakes import FakeLlm, HashEmbedder, WordTokenizer
from tests.helpers.cli import ASK_JSON_KEYS


def run_ask(
    argv: list[str],
    data_dir: Path,
    capsys: pytest.CaptureFixture[str],
    llm: FakeLlm,
    answers: str = "written",
):
    """`ask` over the fake model, its answers written by it unless `answers` says otherwise
    (these tests check how a written answer is printed and guarded)."""
    args = cli.build_parser().parse_args([*argv, "--answers", answers])
    for name, default in (("data_dir", None), ("json", False), ("verbose", False)):
        if not hasattr(args, name):
            setattr(args, name, default)
    # Without the embedded file names, as in test_answer.py: the hash embedder would read
    # "octopus" of octopus.pdf as a word of every passage and tie the pages named here.
    app = build_app(
        Settings(data_dir=str(data_dir)),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(sections=0),
        isolate=False,
        llm=llm,
    )
    app.ingest.index([str(data_dir.parent / "library")])
    import sys

    code = cli.run_core(args, cli.asking.cmd_ask, sys.stdout, sys.stderr, app_factory=lambda: app)
    return code, capsys.readouterr()


@pytest.fixture
def data_dir(tmp_path: Path, animal_pdfs: Path) -> Path:
    assert animal_pdfs == tmp_path / "library"
    return tmp_path / "data"


def test_ask_json_is_exactly_the_contract(data_dir, capsys) -> None:
    code, cap = run_ask(
        ["ask", "Why is octopus blood blue?", "--json", "-k", "3"], data_dir, capsys, FakeLlm()
    )
    assert code == 0
    doc = json.loads(cap.out)
    assert set(doc) == ASK_JSON_KEYS
    assert doc["mode"] == "written"
    assert doc["answer"].startswith("According to [1]")
    assert doc["refused"] is False and doc["unsupported"] == [] and doc["check"] == ""
    assert doc["cited"] == [1]
    assert doc["sources"] and set(doc["sources"][0]) == {
        "n",
        "path",
        "page",
        "section",
        "score",
        "text",
    }
    assert doc["sources"][0]["n"] == 1 and doc["sources"][0]["page"] == 2
    assert set(doc["timings"]) == {"retrieval_ms", "ttft_s", "tokens_per_s", "total_s"}
    quote = doc["quotes"][0]
    assert set(quote) == {"n", "path", "page", "text", "score"}
    assert (quote["n"], quote["page"]) == (1, 2) and quote["path"] == doc["sources"][0]["path"]
    assert quote["text"].startswith("Octopus blood is blue because it uses hemocyanin")
    assert quote["text"] in doc["sources"][0]["text"]


def test_ask_lists_sources_and_quotes_then_streams_the_answer(data_dir, capsys) -> None:
    code, cap = run_ask(["ask", "Why is octopus blood blue?"], data_dir, capsys, FakeLlm())
    assert code == 0
    before, _, answer = cap.out.partition("Answer:")
    listing, _, quotes = before.partition("In the sources' own words:")
    first = listing.replace("Sources:", "").strip().splitlines()[0]
    assert first.endswith("octopus.pdf, page 2") and "[1]" in first
    assert quotes.strip().startswith("[1] page 2: “Octopus blood is blue because it uses")
    assert "octopus blood is blue because of hemocyanin" in answer


def _stdin(monkeypatch, text: str) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


def test_ask_dash_answers_one_question_per_line_as_one_conversation(
    data_dir, capsys, monkeypatch
) -> None:
    llm = FakeLlm()
    _stdin(monkeypatch, "Why is octopus blood blue?\n\nHow many hearts does it have?\n")
    code, cap = run_ask(["ask", "-", "--json"], data_dir, capsys, llm)
    assert code == 0
    lines = cap.out.splitlines()
    assert len(lines) == 2
    docs = [json.loads(line) for line in lines]
    assert all({"answer", "sources", "quotes", "cited", "timings"} <= set(d) for d in docs)
    assert all(d["sources"] for d in docs)
    # The second question was asked as a follow-up of the first.
    assert "Question: Why is octopus blood blue?" in llm.prompts[-1].text


def _ask_lines(data_dir, capsys, monkeypatch, *questions: str) -> list[dict]:
    _stdin(monkeypatch, "".join(q + "\n" for q in questions))
    code, cap = run_ask(["ask", "-", "--json"], data_dir, capsys, FakeLlm())
    assert code == 0
    return [json.loads(line) for line in cap.out.splitlines()]


def test_ask_dash_asks_an_unrelated_follow_up_as_a_first_question(
    data_dir, capsys, monkeypatch
) -> None:
    (alone,) = _ask_lines(data_dir, capsys, monkeypatch, "What is the capital of France?")
    first, follow_up = _ask_lines(
        data_dir,
        capsys,
        monkeypatch,
        "Why is octopus blood blue?",
        "What is the capital of France?",
    )
    assert first["sources"] and first["cited"] == [1]
    assert follow_up["sources"] == alone["sources"]
    assert follow_up["quotes"] == alone["quotes"]


def test_ask_dash_refuses_an_off_topic_follow_up_as_a_first_question(
    data_dir, capsys, monkeypatch
) -> None:
    (alone,) = _ask_lines(data_dir, capsys, monkeypatch, "And quantum chromodynamics?")
    first, follow_up = _ask_lines(
        data_dir, capsys, monkeypatch, "Why is octopus blood blue?", "And quantum chromodynamics?"
    )
    assert first["sources"] and first["cited"] == [1]
    assert alone["sources"] == follow_up["sources"] == []
    assert alone["answer"] == follow_up["answer"] == NOTHING_RELEVANT
    assert follow_up["cited"] == [] and follow_up["quotes"] == []


def test_ask_dash_in_text_shows_each_question(data_dir, capsys, monkeypatch) -> None:
    _stdin(monkeypatch, "Why is octopus blood blue?\nHow do zebras keep flies away?\n")
    code, cap = run_ask(["ask", "-"], data_dir, capsys, FakeLlm())
    assert code == 0
    assert cap.out.count("» ") == 2 and cap.out.count("Sources:") == 2


def test_ask_replaces_a_written_answer_with_a_figure_its_sources_do_not_hold(
    data_dir, capsys
) -> None:
    llm = FakeLlm("1], an octopus has 12 hearts.")
    code, cap = run_ask(["ask", "How many hearts has an octopus?"], data_dir, capsys, llm)
    assert code == 0
    streamed, _, after = cap.out.partition("The model's answer said 12, which its sources do not")
    assert "12 hearts" in streamed and after, "the note names what the sources lack"
    # ... then the sources' own sentence, cited; and no "check this answer" of it.
    assert "three hearts" in after and "[1]" in after and "Check this answer" not in cap.out


def test_ask_json_of_a_replaced_answer_says_what_the_model_wrote_and_why(data_dir, capsys) -> None:
    # Mostly from its source, one name of its own: not shown as an answer.
    written = "1], octopus blood is blue because of hemocyanin, a copper-rich protein, in Paris."
    code, cap = run_ask(
        ["ask", "Why is octopus blood blue?", "--json"], data_dir, capsys, FakeLlm(written)
    )
    assert code == 0
    doc = json.loads(cap.out)
    assert doc["unsupported"] == ["Paris"] and doc["refused"] is False
    assert doc["mode"] == "composed" and doc["check"] == ""
    assert "Paris" in doc["note"] and doc["withheld"] == "According to [" + written
    assert "Paris" not in doc["answer"] and "hemocyanin" in doc["answer"]
    # The quotes are the sentences shown: the ones a click on [n] marks on the page.
    assert doc["quotes"] and all(q["text"] in doc["answer"] for q in doc["quotes"])
    assert doc["cited"] and all(f"[{n}]" in doc["answer"] for n in doc["cited"])


def test_ask_cites_the_source_holding_the_answers_words_and_says_so(
    data_dir, capsys, monkeypatch
) -> None:
    # The model cites [1] for words of another source; every source counts as near here.
    monkeypatch.setattr(claims, "WEAK_MATCH", 0.0)
    # The fake answers from any page found: it reads them all.
    monkeypatch.setattr(answer_module, "TOP_SOURCES", None)
    llm = FakeLlm("1], octopus skin changes colour with chromatophores.")
    argv = ["ask", "Why is octopus blood blue?", "--json"]
    code, cap = run_ask(argv, data_dir, capsys, llm)
    assert code == 0
    doc = json.loads(cap.out)
    holder = next(s["n"] for s in doc["sources"] if "chromatophores" in s["text"])
    assert holder != 1 and doc["cited"] == [holder] and doc["recited_from"] == [1]
    assert doc["answer"].startswith(f"According to [{holder}], octopus skin")
    assert doc["unsupported"] == [] and doc["check"] == ""
    code, cap = run_ask(argv[:-1], data_dir, capsys, llm)
    assert code == 0
    note = f"Cited [{holder}]: its words are there, not in [1] as the model wrote."
    assert cap.out.rstrip().endswith(note)


def test_ask_replaces_an_answer_none_of_its_sources_holds(data_dir, capsys, monkeypatch) -> None:
    # The hash embedder's cosines are not MiniLM's: count every source as a weak match.
    monkeypatch.setattr(claims, "WEAK_MATCH", 1.01)
    llm = FakeLlm("1], the capital of France is Paris.")
    code, cap = run_ask(["ask", "How many hearts pump octopus blood?"], data_dir, capsys, llm)
    assert code == 0
    assert cap.out.rstrip().endswith(NOTHING_RELEVANT)
    assert "its answer is not shown" in cap.out
    argv = ["ask", "How many hearts pump octopus blood?", "--json"]
    code, cap = run_ask(argv, data_dir, capsys, llm)
    doc = json.loads(cap.out)
    assert doc["answer"] == NOTHING_RELEVANT and doc["refused"] is True and doc["cited"] == []


def test_ask_with_a_bad_k_is_a_usage_error(data_dir, capsys) -> None:
    code, cap = run_ask(["ask", "q", "-k", "0"], data_dir, capsys, FakeLlm())
    assert code == cli.EXIT_USAGE
    assert "-k must be a positive number" in cap.err


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.gguf", "Model file not found"),
        (lambda d: d, "is a folder, not a model file"),
        (lambda d: _write(d / "notes.gguf", b"just some text"), "is not a GGUF model file"),
        (lambda d: _write(d / "doc.gguf", b"%PDF-1.4 ..."), "is not a GGUF model file"),
    ],
)
def test_bad_model_files_give_a_clear_message_and_no_traceback(
    tmp_path: Path, capsys, make, message
) -> None:
    path = make(tmp_path)
    with pytest.raises(ModelError, match=message):
        check_model_file(path)
    code = cli.main(["ask", "anything", "--model", str(path)])
    err = capsys.readouterr().err
    assert code == cli.EXIT_FAILED
    assert message in err and "Traceback" not in err


def test_an_unreadable_model_file_says_so(tmp_path: Path, monkeypatch) -> None:
    path = _write(tmp_path / "locked.gguf", b"GGUF....")

    def deny(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(Path, "open", deny)  # root reads anything: simulate the denial
    with pytest.raises(ModelError, match="Cannot read the model file"):
        check_model_file(path)


def test_a_model_larger_than_free_memory_is_refused(tmp_path: Path, monkeypatch) -> None:
    import psutil

    path = _write(tmp_path / "big.gguf", b"GGUF" + bytes(1000))

    class Tiny:
        available = 100 * 1024 * 1024

    monkeypatch.setattr(psutil, "virtual_memory", lambda: Tiny())
    with pytest.raises(ModelError, match=r"needs about .* GB of memory"):
        check_memory(path)


def test_ask_on_an_empty_library_says_what_to_do(tmp_path: Path, capsys) -> None:
    code = cli.main(["--data-dir", str(tmp_path / "empty"), "ask", "anything"])
    err = capsys.readouterr().err
    assert code == cli.EXIT_FAILED
    assert "library is empty" in err and "desktop-rag index" in err
    assert "Traceback" not in err


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    os.chmod(path, 0o644)
    return path


def test_ask_json_of_a_composed_answer_keeps_the_contract(data_dir, capsys) -> None:
    llm = FakeLlm()
    argv = ["ask", "Why is octopus blood blue?", "--json", "-k", "3"]
    code, cap = run_ask(argv, data_dir, capsys, llm, answers="auto")
    assert code == 0
    doc = json.loads(cap.out)
    assert set(doc) == ASK_JSON_KEYS
    # The bundled-like fake model was never measured: the answer is the sources' sentences,
    # and the model is not even loaded for it.
    assert doc["mode"] == "composed" and not llm.loaded and llm.prompts == []
    assert "Octopus blood is blue because it uses hemocyanin" in doc["answer"]
    assert doc["cited"] == [1] and doc["answer"].endswith("[1]")
    assert [q["text"] for q in doc["quotes"]] and all(
        q["text"] in doc["answer"] for q in doc["quotes"]
    )


def test_ask_in_text_says_the_answer_is_made_of_the_sources_sentences(data_dir, capsys) -> None:
    code, cap = run_ask(
        ["ask", "Why is octopus blood blue?"], data_dir, capsys, FakeLlm(), answers="auto"
    )
    assert code == 0
    assert "From your documents' own sentences" in cap.err
    # The answer is the quotes: printed once, as the answer.
    assert "In the sources' own words" not in cap.out
    assert "hemocyanin" in cap.out.partition("Answer:")[2]
