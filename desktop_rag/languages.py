"""Which language a text is in, from its function words and letters: a question's (English,
German, French, Spanish, Italian or Portuguese, for the refusals said in it) and a passage's or
a question's among the languages the full-text index stems (those and Dutch)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import cache

ENGLISH = "en"
GERMAN = "de"
FRENCH = "fr"
SPANISH = "es"
ITALIAN = "it"
PORTUGUESE = "pt"
DUTCH = "nl"
CHINESE = "zh"
JAPANESE = "ja"
KOREAN = "ko"
# Each language's name in English, for the words that name a library's language.
NAMES = {
    ENGLISH: "English",
    GERMAN: "German",
    FRENCH: "French",
    SPANISH: "Spanish",
    ITALIAN: "Italian",
    PORTUGUESE: "Portuguese",
    DUTCH: "Dutch",
    CHINESE: "Chinese",
    JAPANESE: "Japanese",
    KOREAN: "Korean",
}
# The languages whose clues were tuned together for the refusals (language_of): adding a
# language shares out the weight of the words it has in common with them.
LANGUAGES = (ENGLISH, GERMAN, FRENCH, SPANISH)
# The languages a question's refusal is said in: those, and Italian and Portuguese, told
# among all six (language_of).
REFUSED = (*LANGUAGES, ITALIAN, PORTUGUESE)
# The languages a passage may be told to be in (text_language, for store/stems.py).
STEMMED = (ENGLISH, GERMAN, FRENCH, SPANISH, ITALIAN, PORTUGUESE, DUTCH)

# Short words a language uses in nearly every question and sentence: articles, pronouns,
# question words, prepositions, auxiliaries. A word of two languages' lists counts half for each
# (among the languages compared). They are also the words a language's stems leave out.
# Italian's article "i" is not listed: manuals' package tables ("V:0, I:5") are full of it.
WORDS = {
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
    ITALIAN: """il lo la gli le un uno una di del dello della dei degli delle da dal dallo
        dalla dai nel nello nella nei negli nelle con su sul sullo sulla sui per tra fra è sono
        era erano essere stato stata che chi cosa come dove perché quando quale quali quanto
        quanti quante e o non ci si mi ti vi ne io lui lei noi voi loro mio mia tuo suo sua
        questo questa questi queste quello quella può possono deve devono ho hai ha hanno
        anche più al alla ai agli allo se""",
    PORTUGUESE: """o a os as um uma uns umas de do da dos das em no na nos nas por pelo pela
        pelos pelas para com é são era eram foi ser está estão estava que qual quais quem onde
        como porque quando quanto quanta quantos quantas e ou não se lhe eu você nós eles elas
        ele ela seu sua seus suas meu minha este esta estes estas esse essa isso isto aquele
        pode podem deve devem há tem têm ao aos também mais muito""",
    DUTCH: """de het een is zijn was waren wordt worden werd wat wie waar waarom hoe wanneer
        welk welke en of niet geen met voor van te naar in op aan bij uit over ik je jij u wij
        we zij ze hij er dit dat deze die kan kunnen moet moeten zal zou heeft hebben ook nog
        maar als om door mijn uw hun onze dan""",
}

# Words a language's passages use often that its list above leaves out, read where all the
# STEMMED languages are compared (adding them to WORDS would move the refusals' language):
# Spanish's "de" and "a", which French's and Portuguese's lists hold, above all.
MORE_WORDS = {
    ENGLISH: "",
    GERMAN: "sein ein oder aber wenn werden diese dieser dieses durch als wird um",
    FRENCH: "plus tout tous toutes être aussi si mais sans entre très cela peut lorsque",
    SPANISH: """de a como más pero también si sin entre desde hasta muy ya cada todo todos
        ser ha han usted cuando donde otro otra otros otras puede cuando""",
    ITALIAN: "posso puoi devo viene vengono ogni tutti tutto molto ancora sempre però",
    PORTUGUESE: "",
    DUTCH: "",
}

# Letters and marks a language writes; a letter several of the languages compared write counts
# for each a share (é is French's, Spanish's, Italian's and Portuguese's).
_LETTERS = {
    GERMAN: "äöüß",
    FRENCH: "àâçèêëîïôûùœé",
    SPANISH: "áíóúñ¿¡é",
    ITALIAN: "àèéìòù",
    PORTUGUESE: "ãõâêôçáéíóúà",
}
# French elision: l'appareil, d'un, qu'il, n'est, c'est, s'il, j'ai. Italian elides too
# (l'utente, dell'utente, un'altra, c'è): where Italian is compared, l' counts half for each
# and Italian's own forms for Italian.
_ELISION = re.compile(r"\b(?:l|d|qu|n|c|s|j|m|t)['’][^\W\d_]", re.IGNORECASE)
_ELIDED_L = re.compile(r"\bl['’][^\W\d_]", re.IGNORECASE)
_ITALIAN_ELISION = re.compile(
    r"\b(?:dell|all|nell|sull|dall|un|quest|quell|c)['’][^\W\d_]", re.IGNORECASE
)
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")

LETTER_CAP = 1.5  # below LEAST: letters alone (Müller, a café) never make a question German
LEAST = 2.0  # a question with fewer clues than this for its language stays English
# A passage is in a language when at least this share of its words are that language's clues
# (a sentence of running text is about a third function words), at least PASSAGE_LEAST of them,
# and more than PASSAGE_MARGIN times the clues for any other language: a listing, a table of
# names or a passage mixing two languages is left as English, read as before.
PASSAGE_SHARE = 0.08
PASSAGE_LEAST = 4.0
PASSAGE_MARGIN = 1.25


def listed(lang: str, more: bool = True) -> frozenset[str]:
    """A language's listed words, with MORE_WORDS's unless told not to."""
    return frozenset(f"{WORDS[lang]} {MORE_WORDS[lang] if more else ''}".split())


@cache
def _weights(languages: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """Each listed word's weight for each of these languages that lists it (MORE_WORDS too
    where all the STEMMED languages are compared)."""
    more = languages == STEMMED
    lists = {lang: listed(lang, more) for lang in languages}
    count = Counter(word for words in lists.values() for word in words)
    return {lang: {w: 1.0 / count[w] for w in words} for lang, words in lists.items()}


@cache
def _letters(languages: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Each letter of these languages, with the languages that write it."""
    out: dict[str, list[str]] = {}
    for lang in languages:
        for ch in _LETTERS.get(lang, ""):
            out.setdefault(ch, []).append(lang)
    return {ch: tuple(langs) for ch, langs in out.items()}


def _words(lowered: str) -> list[str]:
    return _WORD.findall(lowered)


def scores(text: str, languages: Iterable[str] = LANGUAGES) -> dict[str, float]:
    """How much of each language `text` shows, among `languages` (LANGUAGES or STEMMED): its
    listed words, and their own letters (capped) and elided articles."""
    langs = tuple(languages)
    lowered = text.lower().replace("’", "'")
    return _scores(lowered, _words(lowered), langs)


def _scores(lowered: str, words: list[str], langs: tuple[str, ...]) -> dict[str, float]:
    weights = _weights(langs)
    out = {lang: sum(weights[lang].get(w, 0.0) for w in words) for lang in langs}
    letters: dict[str, float] = {lang: 0.0 for lang in langs if lang in _LETTERS}
    for ch, writers in _letters(langs).items():
        times = lowered.count(ch)
        if times:
            for lang in writers:
                letters[lang] += times / len(writers)
    for lang, found in letters.items():
        out[lang] += min(found, LETTER_CAP)
    if FRENCH in out:
        elided = len(_ELISION.findall(lowered))
        if ITALIAN in out:
            shared = len(_ELIDED_L.findall(lowered)) / 2
            out[FRENCH] += elided - shared
            out[ITALIAN] += shared + len(_ITALIAN_ELISION.findall(lowered))
        else:
            out[FRENCH] += elided
    return out


def _clear(found: dict[str, float]) -> str:
    best = max((lang for lang in found if lang != ENGLISH), key=lambda lang: found[lang])
    others = [score for lang, score in found.items() if lang != best]
    if found[best] >= LEAST and found[best] > max(others):
        return best
    return ENGLISH


def language_among(question: str, languages: Iterable[str]) -> str:
    """The question's language among `languages`: the one other than English whose clues are
    at least LEAST and more than any other's, English otherwise."""
    return _clear(scores(question, languages))


def language_of(question: str) -> str:
    """The question's language for its refusal: Italian or Portuguese when told so among all
    REFUSED languages, otherwise German, French or Spanish when its clues for that language
    are at least LEAST and more than for any other of LANGUAGES, English otherwise (few words,
    names, a mix, or English).

    Two steps, because among six languages the words Italian and Portuguese share with the
    others (das, que, l') count less for them: "Wie funktioniert das?" and "Comment
    réinitialiser l'appareil ?" fall short of LEAST and would be refused in English. A German,
    French or Spanish question is told by the four languages' clues, as before."""
    among_all = language_among(question, REFUSED)
    if among_all in (ITALIAN, PORTUGUESE):
        return among_all
    return language_among(question, LANGUAGES)


def question_language(question: str) -> str:
    """As language_of, among all the STEMMED languages: which language's stems a question is
    also searched by (English: none)."""
    return _clear(scores(question, STEMMED))


def text_language(text: str) -> str:
    """A passage's language among STEMMED: the one whose clues are at least PASSAGE_SHARE of
    its words and PASSAGE_LEAST, and PASSAGE_MARGIN times any other's; English otherwise."""
    lowered = text.lower().replace("’", "'")
    words = _words(lowered)
    found = _scores(lowered, words, STEMMED)
    best = max(found, key=lambda lang: found[lang])
    if best == ENGLISH:
        return ENGLISH
    others = max(score for lang, score in found.items() if lang != best)
    enough = max(PASSAGE_LEAST, PASSAGE_SHARE * len(words))
    if found[best] >= enough and found[best] > PASSAGE_MARGIN * others:
        return best
    return ENGLISH
