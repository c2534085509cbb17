"""Does a model's answer claim a change was made? («Дашборд успешно развернут в prod.»)

The server knows what ran in a turn; a model may say otherwise. :func:`claims_a_change` reads
the answer sentence by sentence for a finished change (deployed, created, deleted, restored,
committed, …, in Russian or English) that is not negated, future, conditional or asked about.
It is a heuristic that errs towards saying nothing: the graph only marks a claim when no write
ran in the turn, so a true «Создан: 42» after a write is never marked.
"""

from __future__ import annotations

import re

from sstools.agent import texts

_ENGLISH = (
    r"deployed|created|deleted|removed|updated|changed|modified|saved|applied|restored|"
    r"rolled\s+back|committed|migrated|backed\s+up|published"
)
_CLAIM = re.compile(rf"(?<![\w-])(?:{texts.CLAIMED_CHANGE}|{_ENGLISH})(?![\w-])", re.I)
# Words that make a sentence something other than a report of a finished change.
_NOT_A_CLAIM = re.compile(
    rf"(?<![\w-])(?:{texts.NOT_A_CLAIM}|"
    r"not|no|nothing|never|will|would|can|could|if|should|may)(?![\w-])|n't|\?",
    re.I,
)
_SENTENCES = re.compile(r"(?<=[.!?…\n])\s+|\n")


def claims_a_change(text: str) -> bool:
    """Whether some sentence of ``text`` reports a change as done."""
    for sentence in _SENTENCES.split(text or ""):
        if _CLAIM.search(sentence) and not _NOT_A_CLAIM.search(sentence):
            return True
    return False
