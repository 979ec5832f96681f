"""German, French and the other stemmed languages' passages are found by their words in any of
their forms (issue 46, item 2): the full-text index also reads them stemmed as their language
(store/stems.py), in real LanceDB."""

from __future__ import annotations

import pyarrow as pa

from desktop_rag.store import lance, maintenance, schema
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import ADDED_CHUNK_COLUMNS, SCHEMA_VERSION, IndexMeta
from tests.helpers.texts import add_text, found_by_words, text_store

TEXTS = {
    "de.pdf": "Beim Installieren von Paketen lädt apt die Dateien aus dem Archiv herunter.",
    "de2.pdf": "Die Netzwerkschnittstellen werden in der Datei interfaces eingerichtet.",
    "fr.pdf": "Les réseaux sans fil sont gérés par NetworkManager depuis son bureau.",
    "en.pdf": "The package manager installs and removes software packages with apt.",
}


def _store(tmp_path, texts: dict[str, str] = TEXTS) -> LanceStore:
    return text_store(tmp_path, texts)


def test_a_german_question_finds_its_passage_in_other_forms_of_its_words(tmp_path) -> None:
    """ "installiere" and "Installieren", "Paket" and "Paketen": the same words to a reader, and
    none of them the same to the English stemmer of the text's index."""
    store = _store(tmp_path)
    assert found_by_words(store, "Wie installiere ich ein Paket?")[0] == "de.pdf"


def test_a_french_question_finds_its_passage_in_other_forms_of_its_words(tmp_path) -> None:
    store = _store(tmp_path)
    assert found_by_words(store, "Comment est-ce que je gère mon réseau ?")[0] == "fr.pdf"


def test_only_passages_in_a_stemmed_language_have_stems(tmp_path) -> None:
    store = _store(tmp_path)
    rows = store.chunks_table.search().select(["path", "stems"]).limit(None).to_arrow()
    held = dict(zip(rows["path"].to_pylist(), rows["stems"].to_pylist(), strict=True))
    assert held["/docs/en.pdf"] == ""
    assert "paket" in held["/docs/de.pdf"].split() and "die" not in held["/docs/de.pdf"].split()
    assert "réseau" in held["/docs/fr.pdf"].split()


def test_english_search_is_unchanged(tmp_path) -> None:
    """An English question is asked of the text alone, as before: same passages, same scores."""
    store = _store(tmp_path)
    assert found_by_words(store, "package manager") == ["en.pdf"]
    before = store.text_search("How does the package manager install packages?", 3)
    assert before
    store._fts_columns -= {"stems"}  # as if the stems had no index
    assert store.text_search("How does the package manager install packages?", 3) == before


def test_an_index_made_before_gains_the_column_and_its_index(tmp_path, monkeypatch) -> None:
    """A library indexed by the previous version keeps its rows, gains the stems column (empty
    for its old rows) at the next write with no rebuild, and finds what is indexed since."""
    assert "stems" in ADDED_CHUNK_COLUMNS
    old_schema = schema.chunks_schema
    with monkeypatch.context() as m:
        m.setattr(
            lance,
            "chunks_schema",
            lambda dim: pa.schema([f for f in old_schema(dim) if f.name != "stems"]),
        )
        m.setattr(lance, "ADDED_CHUNK_COLUMNS", {"pending": "false", "grams": "''"})
        old = _store(tmp_path, {"en.pdf": TEXTS["en.pdf"]})
        assert "stems" not in old.chunks_table.schema.names
        assert (
            found_by_words(old, "Wie installiere ich ein Paket?") == []
        )  # asked of the text alone
    store = LanceStore(tmp_path / "index", IndexMeta(SCHEMA_VERSION, "t", 4, {})).open()
    add_text(store, "de.pdf", TEXTS["de.pdf"])
    maintenance.ensure_text_index(store)
    assert "stems" in store.chunks_table.schema.names and store.has_stems_index()
    assert found_by_words(store, "Wie installiere ich ein Paket?")[0] == "de.pdf"
    assert found_by_words(store, "package manager") == ["en.pdf"]
