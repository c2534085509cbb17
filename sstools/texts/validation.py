"""Russian texts of validation findings, the review status and the «последняя проверка» line."""

from __future__ import annotations

from datetime import datetime

from sstools.russian import human_datetime, plural_form

MISSING_DATASET = "датасет графика удалён или недоступен"
MISSING_DATASET_NUMBERED = "датасет #{dataset} графика удалён или недоступен"
MISSING_DATASET_FIX = (
    "Восстановите датасет или откройте график в Superset, выберите другой датасет и сохраните"
)
QUERY_FAILED = "запрос графика завершился ошибкой: {error}"
QUERY_FAILED_FIX = (
    "Откройте график в Superset (Explore), исправьте столбцы и метрики под текущий датасет"
)
EMPTY_DASHBOARD = "на дашборде нет графиков"
EMPTY_DASHBOARD_FIX = "Добавьте графики или удалите ненужный дашборд"
NO_DATABASE = "у датасета нет подключения к базе данных"
NO_DATABASE_FIX = "Укажите датасету подключение к базе в Superset или удалите его"
NO_OWNERS = "не указаны владельцы"
NO_OWNERS_FIX = "Назначьте владельцев в свойствах объекта в Superset"
NO_DESCRIPTION = "нет описания"
NO_DESCRIPTION_FIX = "Добавьте описание графика в его свойствах в Superset"
UNPUBLISHED = "дашборд не опубликован в продуктивном окружении"
UNPUBLISHED_FIX = "Опубликуйте дашборд или удалите его из prod, если он больше не нужен"

REVIEW_DONE = "проверка моделью выполнена"
REVIEW_NOT_CONFIGURED = "модель не настроена: только автоматические проверки"
REVIEW_FAILED = "модель не ответила пригодно ({error}): только автоматические проверки"

STEP_COLLECT = "чтение дашборда"
STEP_QUERIES = "запросы графиков"
STEP_REVIEW = "проверка моделью"
STEP_STORE = "сохранение результатов"

UNREACHABLE = "не удалось прочитать дашборд {dashboard} в {env}: {error}"

REVIEW_ANSWER = "ответ"  # where a review answer fails to validate, when it names no field

NEVER_RUN = "не проверялся"
LAST_RUN = "последняя проверка: {when}, {problems}"
NOT_FOUND = "дашборд {dashboard} в {env} ещё не проверялся: запустите проверку"


def problems_text(problems: int, errors: int) -> str:
    """«нет проблем», «1 проблема», «3 проблемы (ошибок: 1)»."""
    if problems == 0:
        return "проблем нет"
    text = f"{problems} {plural_form(problems, 'проблема', 'проблемы', 'проблем')}"
    return f"{text} (ошибок: {errors})" if errors else text


def last_run_text(when: datetime, problems: int, errors: int) -> str:
    return LAST_RUN.format(when=human_datetime(when), problems=problems_text(problems, errors))


# A start over SSTOOLS_VALIDATION_LIMIT_PER_DASHBOARD (429).
TOO_OFTEN = (
    "дашборд «{title}» в окружении {env} уже проверяли {amount} {times} за {window} — это "
    "предел; следующую проверку можно начать через {wait} с"
)

TIMES = ("раз", "раза", "раз")  # «{amount} {times}» of TOO_OFTEN, here and in documentation's


def window_text(seconds: int) -> str:
    """A throttle's window: «1 ч», «10 мин», «45 с»."""
    if seconds % 3600 == 0:
        return f"{seconds // 3600} ч"
    return f"{seconds // 60} мин" if seconds % 60 == 0 else f"{seconds} с"
