"""Which language a question is in (English, German, French or Spanish), from its function
words and letters: English unless the clues for another language are clear."""

from __future__ import annotations

import re
from collections import Counter

ENGLISH = "en"
GERMAN = "de"
FRENCH = "fr"
SPANISH = "es"
LANGUAGES = (ENGLISH, GERMAN, FRENCH, SPANISH)

# Short words a language uses in nearly every question: articles, pronouns, question words,
# prepositions, auxiliaries. A word of two languages' lists counts half for each.
_WORDS = {
    ENGLISH: """the a an is are was were be been what which who whom whose where why how when
        and or not with for of to in on at by from this that these those do does did can could
        should would will shall i you my your our their there it its he she they we about
        many much any some has have had""",
    GERMAN: """der die das den dem des ein eine einen einem einer eines ist sind war waren wird
        werden wurde wie was wer wem wen wessen wo woher wohin warum weshalb welche welcher
        welches welchen wann und oder nicht kein keine mit für von zu zum zur im am vom auf
        auch ich du sie wir ihr es gibt kann können muss müssen soll sollte über bei nach aus
        dass noch nur mein meine mich mir sich viele wieviel wieviele hat haben in an man""",
    FRENCH: """le la les un une des du de est sont était étaient quel quelle quels quelles qui
        que quoi où comment pourquoi quand combien et ou ne pas avec pour dans sur par ce cette
        ces cet je tu vous nous il ils elle elles on y a ont peut peuvent doit dois faut mon ma
        mes notre nos votre vos leur leurs au aux se sa son ses en est-ce qu'est-ce""",
    SPANISH: """el la los las un una unos unas es son era eran fue qué cuál cuáles quién
        quiénes dónde cómo por porque cuándo cuánto cuánta cuántos cuántas y o no con para en
        del al se lo le les su sus mi mis tu tus hay puede pueden debe deben está están este
        esta estos estas ese esa sobre cual que""",
}

# Letters and marks of one language only among the four (é is French's and Spanish's).
_LETTERS = {
    GERMAN: "äöüß",
    FRENCH: "àâçèêëîïôûùœ",
    SPANISH: "áíóúñ¿¡",
}
_SHARED_LETTERS = {"é": (FRENCH, SPANISH)}
# French elision: l'appareil, d'un, qu'il, n'est, c'est, s'il, j'ai.
_ELISION = re.compile(r"\b(?:l|d|qu|n|c|s|j|m|t)['’][^\W\d_]", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")

LETTER_CAP = 1.5  # below LEAST: letters alone (Müller, a café) never make a question German
LEAST = 2.0  # a question with fewer clues than this for its language stays English


def _weights() -> dict[str, dict[str, float]]:
    """Each listed word's weight for each language that lists it."""
    lists = {lang: frozenset(words.split()) for lang, words in _WORDS.items()}
    count = Counter(word for words in lists.values() for word in words)
    return {lang: {w: 1.0 / count[w] for w in words} for lang, words in lists.items()}


_WEIGHTS = _weights()


def scores(text: str) -> dict[str, float]:
    """How much of each language `text` shows: its listed words, and for the other three their
    own letters (capped) and, for French, elided articles."""
    lowered = text.lower().replace("’", "'")
    words = _WORD.findall(lowered)
    out = {lang: sum(weights.get(w, 0.0) for w in words) for lang, weights in _WEIGHTS.items()}
    letters: dict[str, float] = {lang: 0.0 for lang in _LETTERS}
    for lang, own in _LETTERS.items():
        letters[lang] += sum(lowered.count(ch) for ch in own)
    for ch, langs in _SHARED_LETTERS.items():
        for lang in langs:
            letters[lang] += lowered.count(ch) / len(langs)
    for lang, found in letters.items():
        out[lang] += min(found, LETTER_CAP)
    out[FRENCH] += len(_ELISION.findall(lowered))
    return out


def language_of(question: str) -> str:
    """The question's language: German, French or Spanish when its clues for that language
    are at least LEAST and more than for any other, English otherwise (few words, names, a
    mix, or English)."""
    found = scores(question)
    best = max((GERMAN, FRENCH, SPANISH), key=lambda lang: found[lang])
    others = [score for lang, score in found.items() if lang != best]
    if found[best] >= LEAST and found[best] > max(others):
        return best
    return ENGLISH
