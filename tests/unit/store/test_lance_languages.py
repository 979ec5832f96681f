"""How much of a library is clearly in another language than English, and which (issue 46,
item 1): read from the stems and grams columns and a sample of their texts, in real LanceDB."""

from __future__ import annotations

from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import SCHEMA_VERSION, IndexMeta
from desktop_rag.types import LanguageMix
from tests.helpers.texts import add_text, text_store

GERMAN = [
    "Beim Installieren von Paketen lädt apt die Dateien aus dem Archiv herunter.",
    "Die Einstellungen des Netzwerks werden in der Datei gespeichert, die man mit einem Editor "
    "öffnen kann.",
    "Wenn der Drucker nicht druckt, prüfen Sie zuerst, ob er mit dem Netz verbunden ist.",
]
FRENCH = "Les réseaux sans fil sont gérés par NetworkManager depuis son bureau."
ENGLISH = [
    "The package manager installs and removes software packages with apt.",
    "Network interfaces are set up in the interfaces file of the system.",
]
JAPANESE = "パッケージ管理システムはDebianの中心であり、ソフトウェアをインストールします。"
# An English passage naming a Chinese word: it has grams, and is English all the same.
ENGLISH_WITH_HAN = "The word 软件 means software; the manual uses it in its examples."


def _texts(**named: str) -> dict[str, str]:
    return {f"{name}.pdf": text for name, text in named.items()}


def test_a_mostly_german_library_says_german_and_how_much(tmp_path) -> None:
    texts = {f"de{i}.pdf": t for i, t in enumerate(GERMAN)}
    store = text_store(tmp_path, {**texts, "fr.pdf": FRENCH, "en.pdf": ENGLISH[0]})
    mix = store.languages()
    assert mix == LanguageMix(chunks=5, foreign=4, language="de")
    assert mix.share == 0.8


def test_an_english_library_has_no_other_language(tmp_path) -> None:
    store = text_store(
        tmp_path, {"a.pdf": ENGLISH[0], "b.pdf": ENGLISH[1], "c.pdf": ENGLISH_WITH_HAN}
    )
    assert store.languages() == LanguageMix(chunks=3, foreign=0, language="")


def test_japanese_passages_are_told_by_their_kana(tmp_path) -> None:
    store = text_store(tmp_path, {"ja.pdf": JAPANESE, "en.pdf": ENGLISH[0]})
    assert store.languages() == LanguageMix(chunks=2, foreign=1, language="ja")


def test_an_empty_library_has_no_language(tmp_path) -> None:
    store = LanceStore(tmp_path / "index", IndexMeta(SCHEMA_VERSION, "t", 4, {})).open()
    assert store.languages() == LanguageMix(chunks=0, foreign=0, language="")
    assert store.languages().share == 0.0


def test_a_sample_of_the_candidates_is_read_and_scaled_to_them(tmp_path) -> None:
    """Only `sample` texts are read: what they say is scaled to every candidate chunk."""
    store = text_store(tmp_path, {f"de{i}.pdf": t for i, t in enumerate(GERMAN)})
    for i in range(3):
        add_text(store, f"mixed{i}.pdf", ENGLISH_WITH_HAN)
    add_text(store, "en.pdf", ENGLISH[0])
    full = store.languages()
    assert full == LanguageMix(chunks=7, foreign=3, language="de")
    sampled = store.languages(sample=2)
    assert sampled.chunks == 7 and 0 <= sampled.foreign <= 6
