"""Russian text of the drift watch: each state in words, and what `sstools drift` prints."""

from __future__ import annotations

STATES = {
    "in_sync": "совпадает",
    "edited_here": "изменён прямо в этом окружении",
    "behind_source": "отстаёт от источника",
    "missing": "отсутствует",
}

ENVIRONMENT = "{name} ({env}): {summary}"
NO_DRIFT = "расхождений нет"
DRIFTED = "расхождений: {count}"
UNREACHABLE = "не отвечает ({error}): не проверено"
DASHBOARD = "  «{title}» — {state}"
WATCH = "проверка расхождений"
# A check asked for over SSTOOLS_DRIFT_CHECK_LIMIT_PER_USER (429).
CHECK_LIMITED = (
    "вы уже запускали проверку расхождений {amount} {times} за {window} — это предел; следующую "
    "можно запустить через {wait} с, а последний отчёт виден и сейчас"
)
