"""Settings lists the GGUF models other apps downloaded; choosing one is like picking the file."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel, QWidget

from desktop_rag.config import Settings
from desktop_rag.engines import discover
from desktop_rag.gui.settings_dialog import PATH_ROLE, SettingsDialog
from tests.helpers.gguf import write_gguf

pytest.importorskip("gguf")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for var in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "LLAMA_CACHE", "OLLAMA_MODELS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(discover, "ollama_folders", lambda *a: [home / ".ollama" / "models"])
    return home


def _dialog(qtbot, settings: Settings | None = None) -> SettingsDialog:
    dialog = SettingsDialog(settings or Settings())
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: "Looking" not in dialog.found_status.text(), timeout=10_000)
    return dialog


def test_choosing_a_found_model_fills_in_the_model_file(qtbot, home):
    lm = write_gguf(home / ".lmstudio/models/pub/repo/tiny-Q4_K_M.gguf", name="Tiny LM")
    cached = write_gguf(home / ".cache/llama.cpp/other.gguf", name="Other", file_type=7)
    dialog = _dialog(qtbot)
    assert dialog.found.isVisibleTo(dialog)
    rows = {
        dialog.found.topLevelItem(i).text(0): dialog.found.topLevelItem(i)
        for i in range(dialog.found.topLevelItemCount())
    }
    assert set(rows) == {"Tiny LM", "Other"}
    tiny = rows["Tiny LM"]
    assert [tiny.text(c) for c in (1, 2, 4)] == ["LM Studio", "Q4_K_M", "fits"]
    assert rows["Other"].text(2) == "Q8_0"
    tiny.setSelected(True)
    assert dialog.model.text() == str(lm)
    dialog.accept()
    assert dialog.result() == dialog.DialogCode.Accepted
    assert dialog.result_settings().model_path == str(lm)
    assert rows["Other"].data(0, PATH_ROLE) == str(cached)


def test_the_model_in_use_is_shown_selected(qtbot, home):
    lm = write_gguf(home / ".lmstudio/models/pub/repo/tiny.gguf")
    dialog = _dialog(qtbot, Settings(model_path=str(lm)))
    assert [i.data(0, PATH_ROLE) for i in dialog.found.selectedItems()] == [str(lm)]


def test_no_models_found_says_so(qtbot, home):
    dialog = _dialog(qtbot)
    assert not dialog.found.isVisibleTo(dialog)
    assert "No models found" in dialog.found_status.text()


def test_ocr_can_be_turned_off_and_says_what_it_reads_well(qtbot, home):
    dialog = _dialog(qtbot, Settings(ocr=True))
    assert dialog.ocr.isChecked()
    assert "accents (é, ü, ñ), which are kept" in dialog.ocr.toolTip()
    dialog.ocr.setChecked(False)
    assert dialog.result_settings().ocr is False


def test_documents_in_several_languages_is_a_choice_that_says_what_it_costs(qtbot, home):
    dialog = _dialog(qtbot)
    box = dialog.multilingual
    assert box.text() == "My documents are in several languages" and not box.isChecked()
    assert dialog.result_settings().multilingual is False
    for words in (
        "German",
        "Japanese",
        "rebuilds the index in the background",
        "half as long again",
    ):
        assert words in box.toolTip()
    hints = [w.text() for w in dialog.findChildren(QLabel) if w.text() == box.toolTip()]
    assert len(hints) == 1, "said under the box too, as OCR's hint is"
    box.setChecked(True)
    assert dialog.result_settings().multilingual is True
    assert _dialog(qtbot, Settings(multilingual=True)).multilingual.isChecked()


@pytest.mark.parametrize("found", [False, True])
def test_every_line_of_the_dialog_has_its_room(qtbot, home, tmp_path, found):
    """Word-wrapped lines (no models found, what OCR reads, the note below, an error) get the
    height their text needs at the dialog's width: none drawn over the next."""
    if found:
        write_gguf(home / ".lmstudio/models/pub/repo/tiny-Q4_K_M.gguf", name="Tiny LM")
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    dialog.show()  # as the window opens it: the search for models ends after it is shown
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: "Looking" not in dialog.found_status.text(), timeout=10_000)
    qtbot.wait(50)
    _assert_room(dialog)
    dialog.model.setText(str(tmp_path / "missing.gguf"))
    dialog.accept()  # refused: the file does not exist, and the dialog says so
    qtbot.waitUntil(dialog.error.isVisible)
    qtbot.wait(50)
    _assert_room(dialog)


def _assert_room(dialog: SettingsDialog) -> None:
    labels = [w for w in dialog.findChildren(QLabel) if w.wordWrap() and w.isVisible()]
    assert len(labels) >= 2
    for label in labels:
        need = label.heightForWidth(label.width())
        assert label.height() >= need, f"{label.text()[:40]!r}: {label.height()} < {need}"
    shown = sorted(
        (w for w in dialog.findChildren(QWidget) if w.isVisible() and w.parent() is dialog),
        key=lambda w: w.y(),
    )
    for upper, lower in pairwise(shown):
        if upper.x() + upper.width() > lower.x() and lower.x() + lower.width() > upper.x():
            assert upper.geometry().bottom() < lower.y(), f"{upper!r} overlaps {lower!r}"


def test_settings_says_who_writes_the_answers_with_each_model(qtbot, home, tmp_path):
    from desktop_rag.config import cache_dir
    from desktop_rag.query.ability import PROBES, Abilities, Verdict

    big = write_gguf(tmp_path / "big.gguf", name="Big")
    small = write_gguf(tmp_path / "small.gguf", name="Small")
    kept = Abilities(cache_dir() / "abilities.json")
    n = len(PROBES)
    kept.put(big, Verdict(True, 18, 15, 0, n, "big.gguf"))
    kept.put(small, Verdict(False, 2, 15, 3, n, "small.gguf"))
    dialog = _dialog(qtbot)
    line = dialog.answers_line
    assert "own sentences" in line.text() and "built-in" in line.text()
    dialog.model.setText(str(big))
    assert "written by big.gguf" in line.text()
    assert f"states the fact 18 of {n}, composed 15 of {n}; invents 0" in line.text()
    dialog.model.setText(str(small))
    assert "own sentences" in line.text() and "small.gguf was tried" in line.text()
    dialog.model.setText(str(tmp_path / "new.gguf"))
    assert "first time it answers" in line.text()


def test_on_a_short_screen_the_general_page_scrolls_and_ok_stays_on_it(qtbot, home, monkeypatch):
    """A 900x600 screen is shorter than the dialog with a list of found models: the dialog is
    no taller than the screen, its page scrolls, and nothing is cut on the right."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QScreen

    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, 900, 600))
    for i in range(3):
        write_gguf(home / f".lmstudio/models/pub/repo{i}/tiny-Q4_K_M.gguf", name=f"Tiny {i}")
    dialog = SettingsDialog(Settings(multilingual=True))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: dialog.found.isVisible(), timeout=10_000)
    qtbot.wait(50)
    room = dialog.screen().availableGeometry().height()
    assert dialog.height() <= room
    assert dialog.buttons.geometry().bottom() < dialog.height()
    scroll = dialog.tabs.currentWidget()
    assert scroll.verticalScrollBar().isVisible()
    page = scroll.widget()
    assert page.width() <= scroll.viewport().width()
    scroll.ensureWidgetVisible(dialog.multilingual)
    qtbot.wait(20)
    assert dialog.multilingual.visibleRegion().boundingRect().height() > 0
    _assert_room(dialog)


def test_on_a_short_screen_in_german_the_scrolled_lines_keep_their_room(
    qtbot, qapp, home, monkeypatch
):
    """The German page is taller than a 900x600 screen: the page scrolls at the height its
    wrapped lines need at its width, not squeezed into the view (what OCR reads was drawn
    over its checkbox and cut off below)."""
    from PySide6.QtCore import QCoreApplication, QLocale, QRect
    from PySide6.QtGui import QScreen

    from desktop_rag.gui import translation

    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, 900, 600))
    installed = translation.install(qapp, QLocale("de_DE"))
    assert installed, "the German translation is shipped"
    try:
        dialog = SettingsDialog(Settings(multilingual=True))
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        qtbot.wait(50)
        assert dialog.tabs.currentWidget().verticalScrollBar().isVisible()
        _assert_room(dialog)
        # Wider, the lines wrap into fewer: none keeps the height it needed when narrow.
        dialog.resize(dialog.width() + 300, dialog.height())
        qtbot.wait(50)
        _assert_room(dialog)
        for label in dialog.findChildren(QLabel):
            if label.wordWrap() and label.isVisible():
                assert label.minimumHeight() <= label.heightForWidth(label.width())
    finally:
        for translator in installed:
            QCoreApplication.removeTranslator(translator)
