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

_ENGLISH = r"deployed|applied|restored|rolled\s+back|committed|migrated"
# Also how a state reads («was created by alice», "updated 2 hours ago"): only with "just done".
_ENGLISH_IF_JUST_DONE = (
    r"created|deleted|removed|updated|changed|modified|saved|backed\s+up|published"
)
_JUST_DONE_EN = r"successfully|just|now|done|has\s+been|have\s+been"
_CLAIM = re.compile(rf"(?<![\w-])(?:{texts.CLAIMED_CHANGE}|{_ENGLISH})(?![\w-])", re.I)
_CLAIM_IF_JUST_DONE = re.compile(
    rf"(?<![\w-])(?:{texts.CLAIMED_IF_JUST_DONE}|{_ENGLISH_IF_JUST_DONE})(?![\w-])", re.I
)
_JUST_DONE = re.compile(rf"(?<![\w-])(?:{texts.JUST_DONE}|{_JUST_DONE_EN})(?![\w-])", re.I)
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
        if _NOT_A_CLAIM.search(sentence):
            continue
        if _CLAIM.search(sentence):
            return True
        if _CLAIM_IF_JUST_DONE.search(sentence) and _JUST_DONE.search(sentence):
            return True
    return False
