"""The fleet and drift: the home page's environments and the /drift page."""

from __future__ import annotations

FLEET = {
    "fleet": "Окружения",
    "recent_tasks": "Последние задачи",
    "failed_tasks": "Завершились ошибкой",
    "no_failed_tasks": "Ошибок нет",
    "address": "Адрес",
    "model": "Языковая модель",
    "model_in_use": "{model}",
    "model_none": "без языковой модели",
    # drift page, home fleet
    "drift": "Расхождения",
    "drift_all": "все окружения",
    "drift_check_now": "Проверить сейчас",
    "drift_checking": "Проверяется…",
    "drift_check_failed": "Проверить не удалось: сервер не ответил; попробуйте позже",
    "drift_checked": "проверено {when}",
    "drift_checked_title": "Время в UTC",
    "drift_not_checked": "ещё не проверялись",
    "drift_first_check": "Идёт первая проверка: отчёт появится здесь, как только она закончится",
    "drift_refreshing": "Проверяются заново окружения, куда недавно выкатывали: {names}",
    "drift_progress": "Проверено дашбордов: {done} из {total}",
    "drift_progress_listing": "Перечисляются дашборды окружений…",
    "drift_rule": (
        "Каждое окружение сравнивается с веткой main в git и с окружением предыдущей стадии "
        "(разработка → тестирование → продуктив). «Изменён прямо здесь» — отличается от обоих "
        "и новее их; "
        "«отстаёт от источника» — в источнике или в git есть более новая другая версия; "
        "«отсутствует» — есть в источнике или в git, но не здесь."
    ),
    "drift_source": "Источник: {source} и ветка main в git",
    "drift_first_stage": "Первая стадия: сравнивается только с веткой main в git",
    "drift_unreachable": "не отвечает: не проверено",
    "drift_none": "Расхождений нет",
    "drift_compare": "Сравнить",
    "drift_here": "здесь",
    "drift_in_source": "в источнике",
    "drift_in_git": "в git",
    "drift_state_in_sync": "совпадает",
    "drift_state_edited_here": "изменён прямо здесь",
    "drift_state_behind_source": "отстаёт от источника",
    "drift_state_missing": "отсутствует",
    "drift_count_in_sync": "совпадают",
    "drift_count_edited_here": "изменены здесь",
    "drift_count_behind_source": "отстают",
    "drift_count_missing": "отсутствуют",
    "fleet_drift": "Расхождения: {count}",
    "fleet_no_drift": "Расхождений нет",
    "fleet_drift_unknown": "Расхождения не проверялись",
    "fleet_drift_rechecking": "Расхождения проверяются заново после выкатки",
    "superset_version": "Superset {version}",
    "version_unknown": "версия неизвестна",
    "failed_validations": "Проверки с ошибками",
    "no_failed_validations": "Проверок с ошибками нет",
    "validation_errors": "ошибок: {count}",
    "task_kind_drift_watch": "проверка расхождений",
}
