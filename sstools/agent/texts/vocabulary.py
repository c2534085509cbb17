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

# -- a question or a command (the offline planner: a question never becomes a write card) -------
# Matched on the folded text (sstools.agent.routing.tokens.fold) as the start of a word, so
# «покажите» and "pokazhi" match «покаж»; a phrase's words follow one another.

# Asks what a write would change: answered with its plan (a dry run or the preview tool).
PLAN_QUESTIONS = (
    "что изменит", "что поменяет", "что будет", "что произойд", "что случит", "изменится ли",
    "предпросмотр", "превью", "план", "сравни",
    "what would", "what will", "what changes", "what is going to", "whats going to",
    "preview", "dry run", "dryrun", "plan", "diff",
)  # fmt: skip

# Orders a write: the whole word (the imperative, not «выкатить» in «что будет, если выкатить»).
WRITE_COMMANDS = (
    "выкати", "выкатывай", "выкатим", "разверни", "разворачивай", "задеплой", "задеплоить",
    "сделай", "запусти", "откати", "откатись", "восстанови", "мигрируй", "перенеси",
    "переноси", "закоммить", "создай", "забэкапь", "опубликуй", "закинь", "перекинь", "удали",
    "выполни", "верни", "заведи",
)  # fmt: skip

# An English write verb a command starts with («please deploy…», "go ahead and migrate").
WRITE_COMMANDS_EN = (
    "deploy", "migrate", "rollback", "roll", "restore", "back", "commit", "create", "push",
    "promote", "ship", "release", "run", "make", "take", "revert", "undo", "move", "copy",
    "delete", "bring", "recover", "snapshot", "save",
)  # fmt: skip

# What a command may start with before its verb.
COMMAND_LEAD = ("please", "ok", "okay", "go ahead and", "now", "pls")

# Asks to be shown something: a read.
READ_QUESTIONS = (
    "покаж", "показ", "посмотр", "каки", "какой", "какая", "какую", "каков", "спис", "истори",
    "есть ли", "были ли", "был ли", "когда", "сколько", "что", "где", "кто",
    "show", "list", "which", "history", "is there", "are there", "do we have", "did", "when",
    "how many", "what", "whats", "where", "who", "any",
)  # fmt: skip

# A question mark after these is politeness: «можешь выкатить в prod?» is a command.
POLITE_ASKS = (
    "можешь", "можете", "сможешь", "можно", "пожалуйста", "давай",
    "could you", "can you", "would you", "please", "pls", "plz",
)  # fmt: skip

# What a question is about (then a read answers it: the backups, the task history).
BACKUP_WORDS = ("бэкап", "бекап", "backup", "резервн", "копи", "архив", "archive")
RESTORE_WORDS = ("восстан", "restore", "recover")
HISTORY_WORDS = (
    "истори", "последн", "недавн", "прошл", "были", "было", "был", "запуска", "сегодня",
    "вчера", "идут", "идет", "выполня", "спис", "history", "recent", "last", "past",
    "running", "ran", "today", "yesterday", "list",
)  # fmt: skip
TASK_WORDS = (
    "выкат", "деплой", "депло", "миграц", "задач", "релиз", "запуск",
    "deploy", "migrat", "task", "release", "job",
)  # fmt: skip

# «дашборд 6», «дашборды 10 и 11», "dashboards 3,4", «борд #7»: the dashboards a message names.
DASHBOARD_MENTION = re.compile(
    r"(?:дашборд|дэшборд|борд|dashboard)\w*\s*#?\s*([0-9]{1,9}(?:\s*(?:,|и|and)\s*[0-9]{1,9})*)",
    re.IGNORECASE,
)

# What a plan question names when it asks about a rollback (else a deploy or a migration).
ROLLBACK_WORDS = ("откат", "откати", "rollback", "roll back", "undo", "revert", "верн")
