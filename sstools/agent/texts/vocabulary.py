"""Matching vocabulary: the words people type, as data the matching reads (not text anyone reads).

The one stop-list and the one transliteration that :mod:`sstools.agent.routing.tokens` folds
messages and tool texts with, and what the offline planner and its answers recognise in text
they are given. What a tool is called in people's words (its keywords) is in
``sstools/agent/routing/tools.yaml``.
"""

from __future__ import annotations

import re

# Russian letters to Latin, so «покажи дашборды», "pokazhi dashbordy" and "dashboards" meet.
TRANSLIT = str.maketrans(
    {
        "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ж": "zh", "з": "z",
        "и": "i", "й": "y", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p",
        "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "h", "ц": "ts", "ч": "ch",
        "ш": "sh", "щ": "sch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu", "я": "ya",
    }
)  # fmt: skip

# Words that say nothing about which tool is meant, in both languages (Russian as typed, or
# already transliterated: both fold to the same token).
STOP_WORDS = (
    # English
    "a", "an", "the", "of", "for", "to", "in", "on", "at", "me", "my", "is", "are", "be", "it",
    "this", "that", "these", "what", "which", "how", "please", "can", "you", "i", "do", "and",
    "or", "with", "from", "all", "any", "show",
    # Russian
    "в", "во", "на", "по", "про", "о", "об", "мне", "мой", "моя", "все", "это", "этот", "эта",
    "этого", "этому", "эту", "как", "что", "где", "какой", "какая", "какие", "есть", "ли",
    "у", "с", "со", "для", "из", "к", "ко", "пожалуйста", "можно", "давай", "ты", "нам",
    "ну", "а", "и", "покажи", "скажи",
)  # fmt: skip

# The object itself («дашборд», «датасет») says what, not what to do: no intent, no query.
OBJECT_WORDS = ("дашборд", "датасет", "dashboard", "dataset")

# How the health summary's last validation begins when there was one («последняя проверка: …»).
LAST_VALIDATION = "последняя"

# «база 3», "database 3", "db 3": the database a message names by its id.
DATABASE_MENTION = re.compile(r"(?:баз[аеуы]|database|db)\D{0,3}([0-9]{1,9})", re.IGNORECASE)
