"""A library in several languages in the window (issue 46, item 1): the Settings choice
switches the embedder, the rebuild is asked about in plain words with its time, the old index
answers by words meanwhile and nothing is lost on "later"; a library mostly not in English is
pointed to the choice once. The multilingual embedder is tests/helpers/multilingual.py's fake."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

from desktop_rag.config import Settings
from desktop_rag.gui.settings_dialog import SettingsDialog
from desktop_rag.types import SourcesEvent
from tests.helpers import multilingual
from tests.helpers.window import WAIT_MS, ask, names, wait_indexed


def _tick_in_settings(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    """The Settings dialog is opened from the window, the box set, OK pressed."""

    def exec_(dialog: SettingsDialog) -> int:
        dialog.multilingual.setChecked(on)
        dialog.accept()
        return int(dialog.result())

    monkeypatch.setattr(SettingsDialog, "exec", exec_)


def _answer_rebuild(monkeypatch: pytest.MonkeyPatch, button) -> list[tuple]:  # type: ignore[no-untyped-def]
    asked: list[tuple] = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a) or button)
    return asked


def test_several_languages_asks_to_rebuild_and_later_loses_nothing(
    open_window, animal_pdfs, qtbot, monkeypatch
) -> None:
    multilingual.install(monkeypatch)
    window = open_window(app_factory=multilingual.either_app)
    window.session.add_folder(str(animal_pdfs))
    wait_indexed(window, qtbot, 4)
    before = names(window, "indexed")

    asked = _answer_rebuild(monkeypatch, QMessageBox.StandardButton.No)
    _tick_in_settings(monkeypatch, True)
    window.open_settings()
    qtbot.waitUntil(lambda: bool(asked), timeout=WAIT_MS)
    message = asked[0][2]
    assert "now read by the multilingual embedder" in message
    assert "should take about 1 minute" in message and "keeps answering" in message
    assert Settings.load().multilingual, "the choice is saved"
    session = window.session
    assert session.needs_rebuilding and session.app.retriever.text_only
    assert "not rebuilt" in window.statusBar().currentMessage()
    assert "needs rebuilding" in window.library_label.text()
    assert names(window, "indexed") == before, "later: every document stays"
    events = ask(window, qtbot, "How many hearts does an octopus have?")
    sources = next(e for e in events if isinstance(e, SourcesEvent))
    assert any(s.path.endswith("octopus.pdf") for s in sources.sources), "by its words"

    asked = _answer_rebuild(monkeypatch, QMessageBox.StandardButton.Yes)
    window.rebuild_action.trigger()
    qtbot.waitUntil(lambda: not session.needs_rebuilding, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not session.indexing, timeout=WAIT_MS)
    assert session.app.store.meta.embedder_id == multilingual.FAKE_ID
    assert not session.app.retriever.text_only and names(window, "indexed") == before


def test_back_to_english_says_so_and_rebuilds_in_the_background(
    open_window, animal_pdfs, qtbot, monkeypatch
) -> None:
    multilingual.install(monkeypatch)
    settings = Settings.load()
    settings.multilingual = True
    settings.save()
    window = open_window(app_factory=multilingual.either_app, settings=settings)
    assert window.session.app.meta.embedder_id == multilingual.FAKE_ID
    asked = _answer_rebuild(monkeypatch, QMessageBox.StandardButton.Yes)
    _tick_in_settings(monkeypatch, False)
    window.open_settings()
    qtbot.waitUntil(lambda: bool(asked), timeout=WAIT_MS)
    assert "read by the English embedder again" in asked[0][2]
    session = window.session
    qtbot.waitUntil(lambda: not session.needs_rebuilding, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not session.indexing, timeout=WAIT_MS)
    assert session.app.store.meta.embedder_id != multilingual.FAKE_ID


GERMAN = [
    "Beim Installieren von Paketen lädt apt die Dateien aus dem Archiv herunter.",
    "Wenn der Drucker nicht druckt, prüfen Sie zuerst, ob er mit dem Netz verbunden ist.",
    "Die Einstellungen des Netzwerks werden in der Datei gespeichert, die man mit einem "
    "Editor öffnen kann.",
]


def test_a_library_mostly_in_german_is_pointed_to_the_setting_once(
    open_window, qtbot, tmp_path, monkeypatch
) -> None:
    folder = tmp_path / "deutsch"
    folder.mkdir()
    for i, text in enumerate(GERMAN):
        (folder / f"de{i}.txt").write_text(f"{text}\n\n{text}", encoding="utf-8")
    settings = Settings.load()
    settings.folders = [str(folder)]
    settings.first_run_done = True
    settings.save()
    told: list[str] = []
    window = open_window(settings=settings, wait=False)
    window.session.mostly_in.connect(told.append)  # before the opening comes back
    qtbot.waitUntil(lambda: told == ["de"], timeout=WAIT_MS)
    said = window.statusBar().currentMessage()
    assert said.startswith("Most of this library is in German: Settings > “My documents are")
    (folder / "de9.txt").write_text(GERMAN[0], encoding="utf-8")
    window.session.reindex()
    qtbot.waitUntil(lambda: len(names(window, "indexed")) == 4, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not window.session.indexing, timeout=WAIT_MS)
    qtbot.wait(200)
    assert told == ["de"], "once"


def test_a_switch_while_indexing_stops_the_run_and_keeps_its_folders_for_after(
    open_window, animal_pdfs, qtbot, monkeypatch
) -> None:
    """The run in progress embeds with the embedder being left: it is stopped (what it
    finished stays), the app is built again for the new one, and its folders wait for the
    rebuild instead of being indexed into the stale index."""
    import threading
    from dataclasses import replace

    from desktop_rag.app import build_app
    from desktop_rag.ingest.chunk import ChunkParams
    from tests.fakes import FakeLlm, HashEmbedder, WordTokenizer

    gate = threading.Event()
    gate.set()

    class Gated(HashEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            gate.wait(WAIT_MS / 1000)
            return super().embed(texts)

    def factory(settings: Settings):  # type: ignore[no-untyped-def]
        return build_app(
            settings,
            embedder=None if settings.multilingual else Gated(),
            tokenizer=WordTokenizer,
            params=ChunkParams(60, 10),
            isolate=False,
            llm=FakeLlm(),
        )

    multilingual.install(monkeypatch)
    window = open_window(app_factory=factory)
    session = window.session
    asked = _answer_rebuild(monkeypatch, QMessageBox.StandardButton.No)
    reports: list = []
    session.index_finished.connect(reports.append)
    gate.clear()
    session.add_folder(str(animal_pdfs))
    qtbot.waitUntil(lambda: session.indexing, timeout=WAIT_MS)
    session.apply_settings(replace(session.settings, multilingual=True))
    assert session.indexing, "the run stops at its next batch, not at once"
    gate.set()
    qtbot.waitUntil(lambda: bool(asked), timeout=WAIT_MS)
    assert session.app.meta.embedder_id == multilingual.FAKE_ID and session.needs_rebuilding
    assert not session.indexing and [r.cancelled for r in reports] == [True]
    assert str(animal_pdfs) in session.library.take_pending(), "kept for after the rebuild"


def test_switched_on_and_off_again_at_once_asks_nothing(
    open_window, animal_pdfs, qtbot, monkeypatch
) -> None:
    """Two switches before the first app is built: only the latest settings' app is used, and
    it is the index's own embedder again, so there is nothing to rebuild."""
    from dataclasses import replace

    multilingual.install(monkeypatch)
    window = open_window(app_factory=multilingual.either_app)
    session = window.session
    asked = _answer_rebuild(monkeypatch, QMessageBox.StandardButton.No)
    session.apply_settings(replace(session.settings, multilingual=True))
    session.apply_settings(replace(session.settings, multilingual=False))
    qtbot.waitUntil(lambda: not session._changing_embedder, timeout=WAIT_MS)
    qtbot.wait(100)
    assert asked == [] and not session.needs_rebuilding
    assert session.app.meta.embedder_id != multilingual.FAKE_ID
