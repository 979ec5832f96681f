"""Which language a passage or a question is in, among the languages the full-text index stems
(desktop_rag/languages.py); a question's language for its refusals is tested in
tests/unit/query/test_refusals.py."""

from __future__ import annotations

import pytest

from desktop_rag.languages import (
    DUTCH,
    ENGLISH,
    FRENCH,
    GERMAN,
    ITALIAN,
    LANGUAGES,
    PORTUGUESE,
    SPANISH,
    STEMMED,
    language_of,
    question_language,
    scores,
    text_language,
)

# Passages of the length the chunker cuts (a paragraph), as manuals write them.
PASSAGES = {
    ENGLISH: "The package manager keeps a list of the packages that are installed on the "
    "system. When you upgrade, it downloads the new versions from the archive and replaces "
    "the old ones, and it removes the packages that are no longer needed.",
    GERMAN: "Die Paketverwaltung führt eine Liste der Pakete, die auf dem System installiert "
    "sind. Bei einer Aktualisierung lädt sie die neuen Versionen aus dem Archiv herunter und "
    "ersetzt die alten, und sie entfernt die Pakete, die nicht mehr benötigt werden.",
    FRENCH: "Le gestionnaire de paquets tient une liste des paquets qui sont installés sur le "
    "système. Lors d'une mise à jour, il télécharge les nouvelles versions depuis l'archive et "
    "remplace les anciennes, et il supprime les paquets dont on n'a plus besoin.",
    SPANISH: "El gestor de paquetes mantiene una lista de los paquetes que están instalados en "
    "el sistema. Al actualizar, descarga las nuevas versiones desde el archivo y reemplaza las "
    "antiguas, y elimina los paquetes que ya no son necesarios.",
    ITALIAN: "Il gestore dei pacchetti tiene un elenco dei pacchetti che sono installati nel "
    "sistema. Durante l'aggiornamento scarica le nuove versioni dall'archivio e sostituisce "
    "quelle vecchie, e rimuove i pacchetti che non sono più necessari.",
    PORTUGUESE: "O gerenciador de pacotes mantém uma lista dos pacotes que estão instalados no "
    "sistema. Ao atualizar, ele baixa as novas versões do arquivo e substitui as antigas, e "
    "remove os pacotes que não são mais necessários.",
    DUTCH: "De pakketbeheerder houdt een lijst bij van de pakketten die op het systeem zijn "
    "geïnstalleerd. Bij een upgrade worden de nieuwe versies uit het archief gedownload en "
    "worden de oude vervangen, en de pakketten die niet meer nodig zijn worden verwijderd.",
}
# Text with too few words of any language to tell: a listing, names, a table row.
UNCLEAR = [
    "",
    "$ sudo apt-get install -y build-essential && make -j4 && sudo make install",
    "Jürgen Müller, José María Núñez, François Pérez, Dvořák",
    "libreoffice-writer V:122, I:414 38212 abiword V:1, I:9 3467 calligrawords V:0",
    # Two languages, each with a fair share: the passage is left as English.
    "Die Paketverwaltung ist ein Werkzeug. The package manager is a tool for the packages.",
]


@pytest.mark.parametrize(("lang", "text"), list(PASSAGES.items()))
def test_the_language_of_a_passage(lang: str, text: str) -> None:
    assert text_language(text) == lang, scores(text, STEMMED)


@pytest.mark.parametrize("text", UNCLEAR)
def test_a_passage_without_clear_clues_is_english(text: str) -> None:
    assert text_language(text) == ENGLISH, scores(text, STEMMED)


def test_a_passage_with_a_command_in_it_keeps_its_language() -> None:
    text = (
        "Um die Liste der Pakete zu aktualisieren, führen Sie den folgenden Befehl aus, "
        "der die Indexdateien aus dem Archiv lädt: $ sudo apt update"
    )
    assert text_language(text) == GERMAN


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("Wie installiere ich ein Paket?", GERMAN),
        ("Comment est-ce que je mets à jour le système ?", FRENCH),
        ("¿Cómo se instala un paquete?", SPANISH),
        ("Come posso installare un pacchetto?", ITALIAN),
        ("Como é que eu instalo um pacote?", PORTUGUESE),
        ("Hoe installeer ik een pakket?", DUTCH),
        ("How do I install a package?", ENGLISH),
        ("Was it raining in Paris?", ENGLISH),
        ("Debian", ENGLISH),
    ],
)
def test_the_language_a_question_is_stemmed_as(question: str, lang: str) -> None:
    assert question_language(question) == lang, scores(question, STEMMED)


def test_the_refusals_languages_are_compared_as_before() -> None:
    """Italian, Portuguese and Dutch, and the words added for passages, change nothing in
    how the four languages tuned together are told apart (a German, French or Spanish
    question's refusal); Italian and Portuguese are told among all six."""
    assert LANGUAGES == (ENGLISH, GERMAN, FRENCH, SPANISH)
    assert set(scores("Come si installa un pacchetto?")) == set(LANGUAGES)
    assert language_of("Wie installiere ich ein Paket?") == GERMAN
    assert language_of("Dove si trova il mio passaporto?") == ITALIAN
    # "de" counts for French alone there, as it always did, where passages share it out.
    assert scores("de", LANGUAGES)[FRENCH] == 1.0
    assert scores("de", STEMMED)[FRENCH] < 1.0 and scores("de", STEMMED)[SPANISH] > 0.0
