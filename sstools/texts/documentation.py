"""Section titles and template sentences of a dashboard's document (Russian)."""

from __future__ import annotations

PURPOSE = "Назначение"
CHARTS = "Графики"
FILTERS = "Фильтры"
OWNERS = "Владельцы"
DEPLOYED = "Где развёрнут"
GIT = "Состояние в git"
SECTIONS = (PURPOSE, CHARTS, FILTERS, OWNERS, DEPLOYED, GIT)

PURPOSE_TEXT = (
    "Дашборд «{title}» в окружении {env} показывает {charts} по данным {datasets}. {published}"
)
PUBLISHED = "Опубликован."
UNPUBLISHED = "Не опубликован (черновик)."
CERTIFIED = " Сертифицирован: {who}."
NO_CHARTS = "пока ничего (графиков нет)"
NO_DATASETS = "ни одного датасета"
CHARTS_HEADER = "| График | Тип | Датасет | Метрики |\n|---|---|---|---|"
DATASET_MISSING = "датасет удалён"
NO_METRICS = "—"
NO_FILTERS = "Нативных фильтров нет."
FILTER_LINE = "- **{name}** ({type}){columns}"
NO_OWNERS = "Владельцы не указаны."
DEPLOYED_HEADER = "| Окружение | Стадия | Есть | Изменён |\n|---|---|---|---|"
PRESENT_YES = "да, #{id}"
PRESENT_NO = "нет"
PRESENT_UNKNOWN = "не ответило"
LAST_COMMIT = "Последний коммит: {commit}."

MISSING_SECTIONS = "нет разделов: {sections}"
UNNAMED_CHARTS = "не названы графики: {charts}"
TOO_LONG = "документ длиннее {chars} символов"
COMMIT_OPERATION = "коммит документации в git (commit)"

STEP_COLLECT = "чтение дашборда"
STEP_WRITE = "написание документа"
STEP_COMMIT = "коммит в git"
STEP_STORE = "сохранение"
COMMIT_MESSAGE = "Документация дашборда «{title}»"
NOT_FOUND = "документации дашборда {dashboard} в {env} ещё нет: запустите её создание"

# A start over SSTOOLS_DOCUMENTATION_LIMIT_PER_DASHBOARD (429).
TOO_OFTEN = (
    "документацию дашборда «{title}» в окружении {env} уже писали {amount} {times} за {window} — "
    "это предел; следующую можно начать через {wait} с"
)
