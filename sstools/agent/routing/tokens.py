"""The one tokeniser of "which tool does this message mean": the router's BM25 and the offline
planner both read messages and tool texts through it.

A word is folded (case, «ё», compatibility forms), transliterated to one Latin alphabet and cut
to its first letters: a crude stem that also ignores Russian endings, so «покажи дашборды»,
"pokazhi dashbordy" and "dashboards" share tokens.
"""

from __future__ import annotations

import re

from sstools.agent.texts.vocabulary import OBJECT_WORDS, STOP_WORDS, TRANSLIT
from sstools.russian import normalize

STEM_LENGTH = 5

WORD = re.compile(r"[\w-]+", re.UNICODE)
_LATIN = re.compile(r"[a-z0-9]+")


def fold(text: str) -> str:
    """Folded and transliterated: the form words are compared in."""
    return normalize(text).translate(TRANSLIT).replace("kh", "h")


STOP = frozenset(fold(word) for word in STOP_WORDS)
_OBJECTS = frozenset(fold(word)[:STEM_LENGTH] for word in OBJECT_WORDS)


def stem(word: str) -> str:
    return fold(word)[:STEM_LENGTH]


def words(text: str) -> list[str]:
    """The message's words, folded but whole (a query, an environment id): no stop-words and no
    object words («дашборд»), which say what, not what to do."""
    return [
        word
        for word in WORD.findall(normalize(text))
        if fold(word) not in STOP and stem(word) not in _OBJECTS
    ]


def tokens(text: str) -> list[str]:
    """Every stem of the text that may say which tool is meant (what BM25 indexes)."""
    latin = _LATIN.findall(fold(text))
    return [part[:STEM_LENGTH] for part in latin if part not in STOP]
