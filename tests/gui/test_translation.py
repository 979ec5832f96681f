"""The window in German, French and Spanish (issue 46, item 3): every message of the .ts files
translated with the same placeholders, the .qm files compiled from them, the translator chosen
from the locale as the app's start chooses it, and the window built under it in German."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, QTranslator
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QMenu, QMenuBar, QWidget

from desktop_rag.gui import translation
from desktop_rag.gui.settings_dialog import SettingsDialog

REPO = Path(__file__).resolve().parents[2]
I18N = REPO / "resources" / "i18n"  # the checkout's files (the venv may point elsewhere)
GUI = REPO / "desktop_rag" / "gui"
PLACEHOLDER = re.compile(r"\{\w*\}")
TAG = re.compile(r"</?\w+")


def _tool(name: str) -> str:
    """A Qt tool of the venv this runs in (PySide6 installs them beside python)."""
    found = Path(sys.executable).with_name(name)
    path = str(found) if found.exists() else shutil.which(name)
    assert path, f"{name} is part of PySide6: the venv lacks it"
    return path


def _messages(ts: Path) -> list[tuple[str, str, ET.Element]]:
    """(context, source, translation element) of each message of a .ts file."""
    out = []
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name", "")
        for message in context.iter("message"):
            translated = message.find("translation")
            assert translated is not None
            out.append((name, message.findtext("source", ""), translated))
    return out


def _accelerator(text: str) -> str:
    """The letter after a single & ("" for none; && is a literal ampersand)."""
    match = re.search(r"(?<!&)&([^&\s])", text)
    return match.group(1).lower() if match else ""


@pytest.mark.parametrize("language", translation.LANGUAGES)
def test_every_message_is_translated_with_its_placeholders(language: str) -> None:
    messages = _messages(I18N / f"desktop_rag_{language}.ts")
    assert len(messages) > 250, "the window's words are in the file"
    problems = []
    for context, source, element in messages:
        text = element.text or ""
        where = f"{context}: {source!r} -> {text!r}"
        # Whitespace is a translation too: French separates thousands with a narrow space.
        if element.get("type") in ("unfinished", "vanished", "obsolete") or not text:
            problems.append(f"not translated: {where}")
            continue
        if sorted(PLACEHOLDER.findall(source)) != sorted(PLACEHOLDER.findall(text)):
            problems.append(f"placeholders differ: {where}")
        if sorted(TAG.findall(source)) != sorted(TAG.findall(text)):
            problems.append(f"markup differs: {where}")
        if bool(_accelerator(source)) != bool(_accelerator(text)):
            problems.append(f"accelerator lost or added: {where}")
        if text == source and len(source.split()) > 2:
            problems.append(f"left in English: {where}")
    assert problems == []


def test_the_check_sees_a_wrong_placeholder(tmp_path: Path) -> None:
    """The checks above on a planted file: an unfinished message and a renamed placeholder."""
    planted = tmp_path / "planted.ts"
    planted.write_text(
        '<?xml version="1.0" encoding="utf-8"?><TS version="2.1" language="de"><context>'
        "<name>MainWindow</name>"
        "<message><source>Using the model {name}.</source>"
        "<translation>Das Modell {nom} wird verwendet.</translation></message>"
        "<message><source>&amp;Quit</source>"
        '<translation type="unfinished"></translation></message>'
        "</context></TS>",
        encoding="utf-8",
    )
    (_, source, first), (_, _, second) = _messages(planted)
    assert PLACEHOLDER.findall(source) != PLACEHOLDER.findall(first.text or "")
    assert second.get("type") == "unfinished"
    assert _accelerator("&Quit") == "q" and _accelerator("Tom && Jerry") == ""


@pytest.mark.parametrize("language", translation.LANGUAGES)
def test_the_qm_files_are_compiled_from_the_ts_files(language: str, tmp_path: Path) -> None:
    ts = I18N / f"desktop_rag_{language}.ts"
    fresh = tmp_path / f"desktop_rag_{language}.qm"
    subprocess.run(
        [_tool("pyside6-lrelease"), "-silent", str(ts), "-qm", str(fresh)],
        check=True,
        timeout=120,
    )
    committed = I18N / f"desktop_rag_{language}.qm"
    assert committed.read_bytes() == fresh.read_bytes(), "stale .qm: run make translations"


def test_the_ts_files_hold_every_string_of_the_window(tmp_path: Path) -> None:
    """lupdate over desktop_rag/gui finds no string the files lack: a tr() added without its
    translations fails here (make translations adds it, unfinished, to be translated)."""
    ts = I18N / "desktop_rag_de.ts"
    updated = tmp_path / ts.name
    shutil.copy2(ts, updated)
    subprocess.run(
        [
            _tool("pyside6-lupdate"),
            *("-silent", "-no-obsolete", "-locations", "none"),
            *sorted(str(p) for p in GUI.glob("*.py")),
            *("-ts", str(updated)),
        ],
        check=True,
        timeout=120,
        capture_output=True,
    )
    before = {(c, s) for c, s, _ in _messages(ts)}
    after = {(c, s) for c, s, _ in _messages(updated)}
    assert sorted(after - before) == [], "strings without a translation: run make translations"
    assert sorted(before - after) == [], "translations of strings no longer in the window"


def _install(app: QApplication, language: str) -> list[QTranslator]:
    return translation.install(app, QLocale(language), I18N)


@pytest.fixture
def german(qapp: QApplication) -> Iterator[list[QTranslator]]:
    """The German translators installed as the app's start installs them, removed after."""
    installed = _install(qapp, "de_DE")
    yield installed
    for translator in installed:
        QCoreApplication.removeTranslator(translator)


@pytest.mark.parametrize("locale", ["en_US", "en_GB", "C", "it_IT", "ja_JP"])
def test_english_or_an_untranslated_language_installs_nothing(qapp, locale: str) -> None:
    installed = _install(qapp, locale)
    assert installed == []
    assert QCoreApplication.translate("MainWindow", "&File") == "&File"


def test_a_missing_folder_or_a_broken_file_means_english(qapp, tmp_path: Path) -> None:
    app = qapp
    assert translation.install(app, QLocale("de_DE"), tmp_path / "absent") == []
    (tmp_path / "desktop_rag_de.qm").write_bytes(b"not a translation file")
    assert translation.install(app, QLocale("de_DE"), tmp_path) == []
    assert QCoreApplication.translate("MainWindow", "&File") == "&File"


def test_each_language_loads_its_own_words_and_qts(qapp) -> None:
    for locale, file_menu, cancel in (
        ("de_AT", "&Datei", "Abbrechen"),
        ("fr_CA", "&Fichier", "Annuler"),
        ("es_MX", "&Archivo", "Cancelar"),
    ):
        installed = _install(qapp, locale)
        try:
            assert len(installed) == 2, "the app's translation and Qt's own"
            assert QCoreApplication.translate("MainWindow", "&File") == file_menu
            # Qt's own words: a standard button's text comes from qtbase_<language>.qm.
            assert QCoreApplication.translate("QPlatformTheme", "Cancel") == cancel
        finally:
            for translator in installed:
                QCoreApplication.removeTranslator(translator)


# Words of the window that must not be left in English in German, as a user first sees them
# ("Chat" is German too).
ENGLISH = (
    "File",
    "Help",
    "New conversation",
    "Add folder…",
    "Add documents…",
    "Settings…",
    "Quit",
    "Stop answering",
    "Copy last answer",
    "User guide",
    "Ask",
    "Stop",
    "Documents",
    "Conversations",
    "Sources",
    "Rescan",
    "Filter files",
    "Ask a question about your documents…",
    "Opening the library…",
)


def _texts(root: QWidget) -> list[str]:
    """Every text the window shows: actions (menus, toolbar), buttons, labels, placeholders."""
    menus = [*root.findChildren(QMenuBar), *root.findChildren(QMenu)]
    texts = [a.text().replace("&", "") for m in menus for a in m.actions()]
    texts += [a.text().replace("&", "") for a in root.actions()]
    texts += [b.text().replace("&", "") for b in root.findChildren(QAbstractButton)]
    texts += [re.sub(r"<[^>]+>", "", label.text()) for label in root.findChildren(QLabel)]
    return [t for t in texts if t]


def test_the_window_in_german(german, open_window) -> None:
    window = open_window()
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus == ["&Datei", "&Chat", "&Hilfe"]
    assert window.chat.send_button.text() == "Fragen"
    assert window.chat.question.placeholderText() == "Stellen Sie eine Frage zu Ihren Dokumenten…"
    assert window.new_action.text() == "&Neue Unterhaltung"
    assert window.documents.rescan_button.text() == "Neu prüfen"
    assert window.library_label.text().startswith("Bibliothek: ")
    shown = set(_texts(window))
    assert sorted(shown & set(ENGLISH)) == []
    assert "Datei" in shown and "Einstellungen…" in shown  # the list is read, not empty
    # The keys stay what they were: Ctrl+N, Ctrl+O, Esc whatever the words.
    assert window.new_action.shortcut().toString() == "Ctrl+N"
    assert window.stop_action.shortcut().toString() == "Esc"


def test_the_settings_dialog_in_german(german, qtbot) -> None:
    from desktop_rag.config import Settings

    dialog = SettingsDialog(Settings(), find=lambda: [])
    qtbot.addWidget(dialog)
    assert dialog.windowTitle() == "Einstellungen"
    assert [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())] == [
        "&Allgemein",
        "&Team-Bibliothek",
    ]
    shown = _texts(dialog)
    assert "Überwachte Ordner:" in shown and "Watched folders:" not in shown


def _menus(window: QWidget) -> Iterator[tuple[str, list[str]]]:
    bar = [a.text() for a in window.menuBar().actions()]  # type: ignore[attr-defined]
    yield "menu bar", bar
    for action in window.menuBar().actions():  # type: ignore[attr-defined]
        menu = action.menu()
        assert isinstance(menu, QMenu)
        for sub in [menu, *(a.menu() for a in menu.actions() if a.menu())]:
            yield sub.title(), [a.text() for a in sub.actions() if not a.isSeparator()]


@pytest.mark.parametrize("locale", ["en_US", "de_DE", "fr_FR", "es_ES"])
def test_no_two_items_of_a_menu_share_an_accelerator(qapp, locale: str, open_window) -> None:
    installed = _install(qapp, locale)
    try:
        window = open_window(wait=False)
        clashes = {}
        for title, texts in _menus(window):
            keys = [_accelerator(t) for t in texts]
            assert all(keys), (title, texts)
            if len(set(keys)) != len(keys):
                clashes[title] = texts
        assert clashes == {}
    finally:
        for translator in installed:
            QCoreApplication.removeTranslator(translator)
