"""A word the answers use, explained in words (issue 36): «что вообще значит дрейф?», "what does
failed mean?", "explain what a virtual dataset is".

Read on the spaced text (folded to one Latin alphabet, so «chto takoe dreyf» is the same
question): an asking phrase, the term, and nothing after it but "is" or "mean" — "what is
running on prod?" asks for the tasks, not for what «running» means.
"""

from __future__ import annotations

import re
from functools import cache

from sstools.agent.offline.intent import spaced
from sstools.agent.texts import offline as texts
from sstools.agent.texts import vocabulary as vocab


def _phrase(words: str, *, prefix: bool) -> str:
    """A phrase as a pattern: its words spaced, each a word's start when ``prefix``."""
    tail = "[a-z]*" if prefix else ""
    return " ".join(re.escape(word) + tail for word in spaced(words).split())


@cache
def _asked() -> re.Pattern[str]:
    asking = "|".join(_phrase(one, prefix=False) for one in vocab.MEANING_ASKED)
    fillers = "|".join(_phrase(one, prefix=False) for one in vocab.MEANING_FILLERS)
    terms = "|".join(
        f"(?P<{key}>{'|'.join(_phrase(one, prefix=True) for one in spelled)})"
        for key, spelled in vocab.TERMS.items()
    )
    return re.compile(
        rf"(?:^| )(?:{asking}) (?:(?:{fillers}) )*(?:{terms})(?: (?:is|are|mean|means|znachit))?$"
    )


def meaning(text: str) -> str | None:
    """What the term the message asks about means, or None when it asks for something else."""
    asked = _asked().search(spaced(text))
    if asked is None:
        return None
    term = next(key for key, value in asked.groupdict().items() if value)
    return texts.MEANINGS[term]
