"""A word the answers use, explained in words (issue 36): «что вообще значит дрейф?», "what does
failed mean?", "explain what a virtual dataset is", «чем миграция отличается от выкатки?».

Read on the spaced text (folded to one Latin alphabet, so «chto takoe dreyf» is the same
question): an asking phrase, the term, and nothing after it but "is" or "mean" — "what is
running on prod?" asks for the tasks, not for what «running» means.
"""

from __future__ import annotations

import re
from functools import cache

from sstools.agent.offline.intent import spaced
from sstools.agent.texts import meaning_words
from sstools.agent.texts import offline as texts
from sstools.agent.texts import vocabulary as vocab


def _phrase(words: str, *, prefix: bool) -> str:
    """A phrase as a pattern: its words spaced, each a word's start when ``prefix``."""
    tail = "[a-z]*" if prefix else ""
    return " ".join(re.escape(word) + tail for word in spaced(words).split())


@cache
def _asked() -> re.Pattern[str]:
    asking = "|".join(_phrase(one, prefix=False) for one in meaning_words.MEANING_ASKED)
    fillers = "|".join(_phrase(one, prefix=False) for one in meaning_words.MEANING_FILLERS)
    terms = "|".join(
        f"(?P<{key}>{'|'.join(_phrase(one, prefix=True) for one in spelled)})"
        for key, spelled in meaning_words.TERMS.items()
    )
    # "… mean for a task?", «… у миграции»: what the term is of, then nothing else
    of = r"(?: (?:for|of|u|dlya|pri) (?:a |an |the )?[a-z]+)?"
    verb = r"(?: (?:is|are|mean|means|znachit))?"
    tail = "|".join(_phrase(one, prefix=False) for one in meaning_words.MEANING_TAILS)
    # «зачем бэкапы, если всё в гите»: the doubt that follows asks nothing else
    doubt = r"(?: (?:esli|if|when|raz) .*)?"
    return re.compile(
        rf"(?:^| )(?:{asking}) (?:(?:{fillers}) )*(?:{terms}){verb}{of}{verb}(?: (?:{tail}))*"
        rf"{doubt}$"
    )


@cache
def _two() -> re.Pattern[str]:
    """«чем миграция отличается от выкатки?», "difference between a deploy and a migration"."""
    terms = "|".join(
        _phrase(one, prefix=True) for spelled in meaning_words.TERMS.values() for one in spelled
    )
    # "virtual vs physical dataset — what's the difference?": the two, then the question
    versus = (
        rf"(?P<first>{terms})\w* (?:vs|versus|ili) (?P<second>{terms})\w*(?: \S+)*? (?:{_ASKS_HOW})"
    )
    return re.compile(
        rf"(?:chem|difference between|differ|raznits\w* mezhdu) (?:a |an |the )?(?P<one>{terms})"
        rf" (?:otlichaet\w* ot|and|from|vs|i) (?:a |an |the )?(?P<other>{terms})\w*(?: \S+){{0,2}}$"
        rf"|{versus}"
    )


_ASKS_HOW = r"difference|raznits\w*|otlich\w*|differ\w*"


def _term(said: str) -> str | None:
    asked = _asked().search(said)
    return next(key for key, value in asked.groupdict().items() if value) if asked else None


def meaning(text: str) -> str | None:
    """What the term (or the two terms) the message asks about means, or None when it asks for
    something else."""
    for sentence in vocab.SENTENCE_END.split(text):  # «что такое датасет? я из финансов»
        said = spaced(sentence)
        two = _two().search(said)
        if two is not None:
            parts = ("one", "other") if two["one"] else ("first", "second")
            keys = [term for part in parts if (term := _term(f"what is {two[part]}"))]
            return "\n\n".join(texts.MEANINGS[key] for key in dict.fromkeys(keys)) or None
        term = _term(said)
        if term:
            return texts.MEANINGS[term]
    return None
