"""Chinese and Japanese words as overlapping pairs of characters, for the full-text index."""

from __future__ import annotations

from desktop_rag.store.grams import cjk_language, grams, has_cjk


def test_english_text_has_no_grams() -> None:
    assert grams("The package manager installs software.") == ""
    assert grams("Café déjà vu, Straße") == ""
    assert not has_cjk("Zoë's naïve café")


def test_chinese_runs_are_overlapping_pairs() -> None:
    assert grams("软件包管理") == "软件 件包 包管 管理"
    assert grams("使用apt安装软件包。") == "使用 apt 安装 装软 软件 件包"


def test_a_word_glued_to_a_cjk_run_is_kept_whole_and_spaced_words_are_left_to_the_text() -> None:
    assert grams("是Debian的核心") == "是 Debian 的核 核心"
    # "Debian" here stands apart: the text's own index finds it.
    assert grams("Debian 的核心") == "的核 核心"


def test_japanese_kana_and_kanji_and_a_single_character() -> None:
    assert grams("パッケージ管理") == "パッ ッケ ケー ージ ジ管 管理"
    assert grams("猫") == "猫"
    assert has_cjk("ｶﾀｶﾅ") and has_cjk("한국어")


def test_a_question_finds_a_passage_by_a_pair_it_shares() -> None:
    passage = set(grams("如何使用apt安装软件包？").split())
    question = set(grams("安装软件").split())
    assert question <= passage


def test_a_passage_mostly_in_cjk_is_told_chinese_japanese_or_korean() -> None:
    assert cjk_language("软件包管理系统是Debian的核心。") == "zh"
    assert cjk_language("パッケージ管理システムはDebianの中心です。") == "ja"
    assert cjk_language("패키지 관리 시스템은 데비안의 핵심입니다.") == "ko"
    assert cjk_language("The word 软件 means software in the manual's examples.") == ""
    assert cjk_language("Plain English text.") == ""
