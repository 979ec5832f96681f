"""Words of Chinese and Japanese for the full-text index: their text as overlapping pairs.

Chinese and Japanese put no space between words, so the full-text index's tokenizer reads a
whole clause ("软件包管理系统是Debian的核心") as one word, and no question finds it by its words.
A chunk's runs of Han, kana and Hangul are indexed as overlapping pairs of characters instead
("软件 件包 包管 …"), the way search engines index CJK text without a dictionary, in a column of
their own (`grams`); a question's runs are asked as the same pairs. A word of another script
glued to such a run ("Debian" above) is kept whole beside them. Text with none of these scripts
has no grams: English libraries index and search as before.
"""

from __future__ import annotations

import re

from desktop_rag.languages import CHINESE, JAPANESE, KOREAN

# Han (with extension A and compatibility ideographs), hiragana, katakana (with the half-width
# forms and the prolonged sound mark) and Hangul syllables.
_CJK_CLASS = (
    "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uff66-\uff9f\uac00-\ud7af"
)
_CJK = re.compile(f"[{_CJK_CLASS}]")
# A run of CJK characters, or a run of other letters and digits.
_RUNS = re.compile(f"([{_CJK_CLASS}]+)|([^\\W{_CJK_CLASS}]+)")


_KANA = re.compile("[\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HANGUL = re.compile("[\uac00-\ud7af]")
_LETTER = re.compile(r"[^\W\d_]")


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


def grams(text: str) -> str:
    """The text's CJK words as the full-text index reads them: each run of CJK characters as
    its overlapping pairs (a single character alone), and a word of another script that touches
    such a run without a space, whole. Empty when the text has no CJK character."""
    if not has_cjk(text):
        return ""
    out: list[str] = []
    for token in text.split():
        if not has_cjk(token):
            continue
        for cjk, other in _RUNS.findall(token):
            if cjk:
                out.extend(cjk[i : i + 2] for i in range(max(1, len(cjk) - 1)))
            elif other:
                out.append(other)
    return " ".join(out)


def cjk_language(text: str) -> str:
    """ "ja", "ko" or "zh" for a passage written mostly (at least half its letters) in Chinese
    characters, kana or Hangul: Japanese where any kana is, Korean where Hangul outnumbers
    Han, Chinese otherwise; "" for any other text, an English one naming a CJK word too."""
    letters = len(_LETTER.findall(text))
    cjk = len(_CJK.findall(text))
    if not cjk or cjk * 2 < letters:
        return ""
    if _KANA.search(text):
        return JAPANESE
    hangul = len(_HANGUL.findall(text))
    return KOREAN if hangul * 2 > cjk else CHINESE
