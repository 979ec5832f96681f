"""First start, dropped files and conversations: the Qt-free parts behind the window."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop_rag.config import Settings, default_library_dir
from desktop_rag.conversations import Conversation, ConversationStore, title_for
from desktop_rag.ingest.extract import extract
from desktop_rag.library import (
    GUIDE_NAME,
    bundled_guide,
    classify_drop,
    copy_into,
    first_start,
)
from desktop_rag.types import Source
from tests.pdfgen import make_pdf


def test_the_bundled_guide_is_a_readable_pdf(tmp_path):
    guide = tmp_path / GUIDE_NAME
    guide.write_bytes(bundled_guide())
    text = " ".join(p.text for p in extract(str(guide)).pages)
    assert "Desktop RAG" in text and "drag" in text.lower()


def test_first_start_creates_the_library_once(tmp_path):
    settings = Settings()
    assert first_start(settings) is True
    library = default_library_dir()
    assert str(library).startswith(os.environ["XDG_DOCUMENTS_DIR"])
    assert (library / GUIDE_NAME).is_file()
    assert settings.folders == [str(library)] and settings.first_run_done
    (library / GUIDE_NAME).unlink()  # the user deleted it: a later start respects that
    assert first_start(settings) is False
    assert not (library / GUIDE_NAME).exists()


def test_first_start_does_not_add_a_folder_twice(tmp_path):
    library = tmp_path / "lib"
    settings = Settings(folders=[str(tmp_path)])
    first_start(settings, library)
    assert settings.folders == [str(tmp_path)]


def test_dropped_paths_are_classified(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    pdf = make_pdf(tmp_path / "a.pdf", ["a"])
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + b"\0" * 16)
    fake_model = tmp_path / "fake.gguf"
    fake_model.write_bytes(b"nope")
    text = tmp_path / "t.txt"
    text.write_text("x")
    photo = tmp_path / "p.jpg"
    photo.write_bytes(b"\xff\xd8\xff")
    watched = tmp_path / "watched"
    (watched / "sub").mkdir(parents=True)
    dropped = [folder, pdf, model, fake_model, text, photo, watched / "sub"]
    drop = classify_drop([str(p) for p in dropped], [str(watched)])
    assert drop.folders == [str(folder)]
    assert drop.documents == [str(pdf), str(text)]  # every format the readers know
    assert drop.model == str(model)
    assert {os.path.basename(p) for p, _ in drop.ignored} == {"fake.gguf", "p.jpg", "sub"}


def test_copy_into_copies_and_never_touches_the_original(tmp_path):
    src = make_pdf(tmp_path / "in" / "a.pdf", ["alpha"])
    before = (src.read_bytes(), src.stat().st_mtime_ns)
    library = tmp_path / "lib"
    first = copy_into([str(src)], library)
    assert [Path(c.dest).name for c in first] == ["a.pdf"] and not first[0].already_there
    again = copy_into([str(src)], library)
    assert again[0].already_there and again[0].dest == first[0].dest
    other = make_pdf(tmp_path / "in2" / "a.pdf", ["a different alpha"])
    clash = copy_into([str(other)], library)
    assert Path(clash[0].dest).name == "a (2).pdf"
    assert (src.read_bytes(), src.stat().st_mtime_ns) == before
    assert sorted(p.name for p in library.iterdir()) == ["a (2).pdf", "a.pdf"]


def test_conversations_round_trip_and_skip_damaged_files(tmp_path):
    store = ConversationStore(tmp_path / "conv")
    conv = Conversation()
    ex = conv.add("Why is octopus blood blue?")
    ex.sources = [Source(1, "/x/octopus.pdf", 2, 0.5, "hemocyanin", 0, 10)]
    ex.answer = "Because of hemocyanin [1]."
    ex.cited = [1]
    stopped = conv.add("And the hearts?")
    stopped.answer = "Three"
    stopped.stopped = True
    store.save(conv)
    (tmp_path / "conv" / "broken.json").write_text("{not json")
    [loaded] = store.load_all()
    assert loaded == conv
    assert [t.question for t in loaded.history()] == ["Why is octopus blood blue?"]
    store.delete(conv.id)
    assert store.load_all() == []


def test_titles_are_short():
    assert title_for("  a   b ") == "a b"
    long = title_for("word " * 40)
    assert len(long) <= 61 and long.endswith("…")


# Issue 41, item 9: the welcome's questions from headings read as a person would ask them.
@pytest.mark.parametrize(
    ("heading", "question"),
    [
        ("Approved budget", "What should I know about the approved budget?"),
        ("Travel rules", "What should I know about the travel rules?"),
        ("2.3 Descaling the kettle", "What should I know about descaling the kettle?"),
        (
            "Equine coronavirus in Ireland",
            "What should I know about the equine coronavirus in Ireland?",
        ),
        ("Results of Operations", "What should I know about Results of Operations?"),
        ("COVID-19 vaccines", "What should I know about COVID-19 vaccines?"),
        ("The approved budget", "What should I know about the approved budget?"),
    ],
)
def test_a_heading_makes_a_question_a_person_would_ask(heading: str, question: str) -> None:
    from desktop_rag.library import heading_question

    assert heading_question(heading) == question


@pytest.mark.parametrize(
    "heading",
    [
        # Too long to read as a question's subject, or a headline with its own verb.
        "Ulta Beauty Announces Fourth Quarter Fiscal 2022 Results",
        # A line taken for a heading: cut mid-phrase, or a catalogue number.
        "6 NU50CK000410 from the U.S. Centers for Disease",
        "Samples collected from",
        "detection of the virus in",
        "Introduction",
        "Table 3",
    ],
)
def test_a_heading_that_makes_no_question_is_skipped(heading: str) -> None:
    from desktop_rag.library import heading_question

    assert heading_question(heading) is None
