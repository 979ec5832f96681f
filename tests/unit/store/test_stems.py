"""A passage's and a question's words stemmed as their language for the full-text index
(store/stems.py): the forms of one word meet, function words are left out, English has none."""

from __future__ import annotations

from desktop_rag.languages import FRENCH, GERMAN, ITALIAN, SPANISH
from desktop_rag.store.stems import question_stems, stems, stems_in

GERMAN_TEXT = (
    "Beim Installieren von Paketen lädt apt die Dateien aus dem Archiv herunter, "
    "und die Paketliste wird danach aktualisiert."
)


def test_the_forms_of_a_word_share_a_stem() -> None:
    assert stems_in("Paket Pakete Paketen Pakets", GERMAN).split() == ["paket"] * 4
    assert stems_in("installiere installieren", GERMAN).split() == ["installi"] * 2
    assert stems_in("réseau réseaux", FRENCH).split() == ["réseau"] * 2
    assert stems_in("paquete paquetes", SPANISH).split() == ["paquet"] * 2
    assert stems_in("pacchetto pacchetti", ITALIAN).split() == ["pacchett"] * 2


def test_function_words_and_elided_articles_are_left_out() -> None:
    words = stems(GERMAN_TEXT).split()
    assert "paket" in words and "archiv" in words
    assert not {"die", "von", "und", "aus", "dem", "wird"} & set(words)
    french = stems_in("L'installation d'un paquet se fait avec apt", FRENCH).split()
    assert french == ["install", "paquet", "fait", "apt"]


def test_english_and_unclear_text_have_no_stems() -> None:
    assert stems("The package manager installs and removes the packages of the system.") == ""
    assert stems("$ sudo apt-get install -y build-essential") == ""
    assert stems("软件包管理系统是Debian的核心。使用apt命令安装和删除软件包。") == ""
    assert stems_in("packages", "en") == ""


def test_a_questions_stems_are_those_of_its_language() -> None:
    assert question_stems("Wie installiere ich ein Paket?").split() == ["installi", "paket"]
    assert question_stems("How do I install a package?") == ""
    assert question_stems("Paket") == ""  # one word: its language is not clear
