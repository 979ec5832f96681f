"""Chinese and Japanese passages are found by their words (issue 46, item 2): the full-text
index reads their text as overlapping pairs of characters (store/grams.py), in real LanceDB."""

from __future__ import annotations

import pyarrow as pa

from desktop_rag.store import lance, maintenance, schema
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import ADDED_CHUNK_COLUMNS, SCHEMA_VERSION, IndexMeta
from tests.helpers.texts import add_text, found_by_words, text_store

TEXTS = {
    "zh.pdf": "软件包管理系统是Debian的核心。使用apt命令安装和删除软件包。",
    "ja.pdf": "パッケージ管理システムはDebianの中心です。aptでパッケージをインストールします。",
    "en.pdf": "The package manager installs and removes software packages with apt.",
    "zh2.pdf": "网络配置文件位于/etc/network/interfaces，修改后重新启动网络服务。",
}


def _store(tmp_path, texts: dict[str, str] = TEXTS) -> LanceStore:
    return text_store(tmp_path, texts)


def test_a_chinese_question_finds_its_passage_by_words(tmp_path) -> None:
    store = _store(tmp_path)
    assert found_by_words(store, "怎么安装软件包？")[0] == "zh.pdf"
    assert found_by_words(store, "网络配置文件在哪里")[0] == "zh2.pdf"


def test_a_japanese_question_finds_its_passage_by_words(tmp_path) -> None:
    store = _store(tmp_path)
    assert found_by_words(store, "パッケージをインストールする方法は？")[0] == "ja.pdf"


def test_a_latin_word_inside_chinese_text_is_found_by_a_chinese_question(tmp_path) -> None:
    store = _store(tmp_path)
    assert set(found_by_words(store, "什么是Debian？")) == {"zh.pdf", "ja.pdf"}


def test_english_search_is_unchanged(tmp_path) -> None:
    """An English question is asked of the text alone, as before: same passages, same scores."""
    store = _store(tmp_path)
    assert found_by_words(store, "package manager") == ["en.pdf"]
    before = store.text_search("package manager apt", 3)
    store._fts_columns -= {"grams"}  # as if the pairs had no index
    assert store.text_search("package manager apt", 3) == before


def test_an_index_made_before_gains_the_column_and_its_index(tmp_path, monkeypatch) -> None:
    """A library indexed by the previous version keeps its rows, gains the pairs column (empty
    for its old rows) at the next write with no rebuild, and finds what is indexed since."""
    assert "grams" in ADDED_CHUNK_COLUMNS
    old_schema = schema.chunks_schema
    with monkeypatch.context() as m:
        m.setattr(
            lance,
            "chunks_schema",
            lambda dim: pa.schema([f for f in old_schema(dim) if f.name != "grams"]),
        )
        m.setattr(lance, "ADDED_CHUNK_COLUMNS", {"pending": "false"})
        old = _store(tmp_path, {"en.pdf": TEXTS["en.pdf"]})
        assert "grams" not in old.chunks_table.schema.names
    store = LanceStore(tmp_path / "index", IndexMeta(SCHEMA_VERSION, "t", 4, {})).open()
    add_text(store, "zh.pdf", TEXTS["zh.pdf"])
    maintenance.ensure_text_index(store)
    assert "grams" in store.chunks_table.schema.names and store.has_grams_index()
    assert found_by_words(store, "怎么安装软件包？")[0] == "zh.pdf"
    assert found_by_words(store, "package manager") == ["en.pdf"]
