"""The words of a question about what a term means or how a thing works («что значит дрейф?»,
"how does a rollback work?"): data :mod:`sstools.agent.offline.meanings` matches, not text anyone
reads (the explanations are :data:`sstools.agent.texts.offline.MEANINGS`).
"""

from __future__ import annotations

# «что вообще значит дрейф?», "what does failed mean?", "explain what a virtual dataset is": a
# word the answers use, explained in words. Each word of a phrase is a word's start, folded.
MEANING_ASKED = (
    "что значит", "что означает", "что такое", "что вообще значит", "что вообще такое",
    "что вообще означает", "объясни что такое", "расшифруй", "what is", "what are", "what does",
    "what do", "what s", "explain what", "explain", "meaning of",
    # How it works and what it is for: «как работает откат», "how does a rollback work".
    "как работает", "как работают", "как устроен", "как устроена", "как устроено",
    "зачем нужен", "зачем нужна", "зачем нужны", "для чего нужен", "для чего нужна", "how does",
    "how do", "what is the point of", "what s the point of",
    # Why it is there at all: «зачем вообще бэкапы, если всё в гите?», "why do we need staging".
    "зачем вообще", "зачем делать", "зачем вообще делать", "зачем нам", "why do we need",
    "why do we even need", "why do we have", "why bother with",
)  # fmt: skip
MEANING_FILLERS = (
    "a", "an", "the", "статус", "status", "слово", "term", "этот", "это", "environment",
    "dashboard", "dataset",
)  # fmt: skip
# Words that may close such a question and ask nothing more: «что такое дрейф в вашем понимании».
MEANING_TAILS = (
    "в вашем понимании", "в твоем понимании", "у вас", "у тебя", "тут", "здесь", "вообще",
    "по смыслу", "here", "exactly", "in your terms", "in this tool", "work", "works",
    "простыми словами", "in simple words", "in plain words", "in plain english", "even mean",
    "actually mean", "for a dashboard", "у дашборда", "нужен", "нужна", "нужны", "нужно",
    "окружения", "окружений", "дашборда", "дашбордов", "датасета", "в окружении",
)  # fmt: skip
TERMS = {
    "degraded": ("degraded", "есть проблемы"),
    "ok": ("ok", "в порядке"),
    "queued": ("queued", "в очереди"),
    "running": ("running", "выполняется"),
    "succeeded": ("succeeded", "выполнена"),
    "failed": ("failed", "завершилась ошибкой"),
    "cancelled": ("cancelled", "отменена"),
    "drift": ("дрейф", "drift", "расхождени"),
    "virtual_dataset": ("виртуальн датасет", "virtual dataset", "виртуальн", "virtual"),
    "physical_dataset": ("физическ датасет", "physical dataset", "физическ", "physical"),
    "migration": ("миграци", "migration"),
    "deploy": ("выкатк", "деплой", "deploy"),
    "rollback": ("откат", "rollback", "roll back"),
    "backup": ("бэкап", "бекап", "резервн копи", "backup"),
    "dry_run": ("dry run", "пробн прогон"),
    "dataset": ("датасет", "dataset", "набор данных"),
    "published": ("published", "опубликован", "publish"),
    # «прод» only in the forms no other word starts with («прода» is also «продажи»)
    "environments": ("окружени", "environments", "стейдж", "staging", "продом", "проде"),
}
