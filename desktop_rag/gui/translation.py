"""The window's own words in the system's language: the app's Qt translation and Qt's own."""

from __future__ import annotations

import logging
from importlib import resources
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

log = logging.getLogger(__name__)

# The languages resources/i18n has a translation for (desktop_rag_<language>.ts and .qm).
LANGUAGES = ("de", "es", "fr")
NAME = "desktop_rag"


def translations_dir() -> Path:
    """The compiled translations shipped with the app (resources/i18n)."""
    return Path(str(resources.files("desktop_rag.resources") / "i18n"))


def install(
    app: QCoreApplication, locale: QLocale | None = None, directory: Path | None = None
) -> list[QTranslator]:
    """Install the translation of the window's words for `locale` (the system's), and Qt's
    own for its dialogs' buttons, before any window is built. English, a language without a
    translation, or a missing or unreadable file installs nothing: the window stays English.
    Returns the translators installed (kept alive by `app`, their parent)."""
    locale = QLocale.system() if locale is None else locale
    folder = translations_dir() if directory is None else directory
    ours = QTranslator(app)
    # Tries desktop_rag_de_DE.qm, desktop_rag_de.qm... for each of the locale's UI languages.
    if not ours.load(locale, NAME, "_", str(folder)):
        return []
    app.installTranslator(ours)
    installed = [ours]
    # Qt's own words (Yes, No, Cancel, the file dialog) only when the window's are translated
    # too: an Italian system would otherwise get Italian buttons in an English window.
    qt = QTranslator(app)
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if qt.load(locale, "qtbase", "_", qt_dir):
        app.installTranslator(qt)
        installed.append(qt)
    log.info("window in %s (%s)", locale.name(), ours.filePath())
    return installed
