"""Russian text of a dashboard's health, git status and placements across environments."""

from __future__ import annotations

GIT_NOT_VERSIONED = "не версионирован"
GIT_CLEAN = "совпадает с веткой {branch}"
GIT_MODIFIED = "изменён относительно ветки {branch} (файлов: {files})"
GIT_STATUS_UNKNOWN = "git-статус недоступен"
GIT_STATUS_FAILED = "git-статус недоступен ({error})"
SUMMARY = "«{title}» в {env}: {verdict}. Git: {git}. Изменён: {changed}. {validation}."
VERDICT_OK = "в порядке"
VERDICT_DEGRADED = "есть проблемы — {problems}"
CHART_DATASET_MISSING = "график «{chart}» ссылается на несуществующий датасет"
NO_OWNERS = "у дашборда нет владельцев"
NO_CHARTS = "на дашборде нет графиков"
NOT_FOUND = "дашборда {dashboard} нет"

# «Сравнить цифры»: the same dashboard's numbers in two environments.
COMPARE_SAME_ENVIRONMENT = "сравнивать можно только с другим окружением"
NOT_IN_ENVIRONMENT = "в {env} этого дашборда нет"
