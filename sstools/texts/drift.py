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
