"""The words of deploys, migrations and rollbacks: summaries, refusals, task steps (Russian).

A task is named by the first 8 hex digits of its id (``{task:.8}``), a dashboard by its title.
"""

from __future__ import annotations

from collections.abc import Collection, Sized

from sstools.russian import plural_form

_SHOWN_TITLES = 5


def datasets_not_moved(moved: list[tuple[str, str]], target_env_id: str) -> str:
    """«; набор «energy» уже есть в staging на подключении «Демо-данные»: …» — why a mapping that
    would move existing datasets cannot apply."""
    shown = ", ".join(f"«{name}» (на «{connection}»)" for name, connection in moved[:_SHOWN_TITLES])
    more = f" и ещё {len(moved) - _SHOWN_TITLES}" if len(moved) > _SHOWN_TITLES else ""
    return (
        f"; уже есть в {target_env_id} на другом подключении: {shown}{more} — импорт Superset "
        "не переносит существующий набор данных на другое подключение"
    )


def plan_summary(
    changed: list[str],
    planned: int,
    target_env_id: str,
    unresolved: Sized,
    origin: str = "",
    *,
    created: Collection[str] = (),
    removed: list[str] | None = None,
) -> str:
    """«1 дашборд будет создан, 2 будут изменены в prod: A, B, C» or «Изменений нет: …», plus
    what will not resolve and what the import takes off the target's dashboards; ``origin``
    follows the target (« из копии …» for a restore). ``created``: which of ``changed`` are new."""
    if changed:
        made = [title for title in changed if title in created]
        parts = []
        if made:
            parts.append(f"{len(made)} {plural_form(len(made), *DASHBOARDS_WILL_BE_CREATED)}")
        if len(changed) > len(made):
            rest = len(changed) - len(made)
            parts.append(f"{rest} {plural_form(rest, *DASHBOARDS_WILL_BE_CHANGED)}")
        titles = ", ".join(f"«{title}»" for title in changed[:_SHOWN_TITLES])
        more = f" и ещё {len(changed) - _SHOWN_TITLES}" if len(changed) > _SHOWN_TITLES else ""
        text = f"{', '.join(parts)} в {target_env_id}{origin}: {titles}{more}"
    else:
        noun = plural_form(
            planned, "дашборд совпадает", "дашборда совпадают", "дашбордов совпадают"
        )
        text = f"Изменений нет: {planned} {noun} с {target_env_id}"
    removed = removed or []
    if removed:
        charts = plural_form(len(removed), *CHARTS_WILL_BE_REMOVED)
        names = ", ".join(f"«{name}»" for name in removed[:_SHOWN_TITLES])
        text += f"; {len(removed)} {charts} с дашборда в {target_env_id}: {names}"
    kept_off = len(unresolved) - len(removed)
    if kept_off > 0:
        charts = plural_form(
            kept_off,
            "график не будет перенесён",
            "графика не будут перенесены",
            "графиков не будут перенесены",
        )
        text += f"; {kept_off} {charts}: их набор данных не найдётся в цели"
    return text


# The forms for one, a few and many (plural_form); the agent's cards count a plan in them too.
DASHBOARDS_WILL_BE_CREATED = (
    "дашборд будет создан",
    "дашборда будут созданы",
    "дашбордов будут созданы",
)
DASHBOARDS_WILL_BE_CHANGED = (
    "дашборд будет изменён",
    "дашборда будут изменены",
    "дашбордов будут изменены",
)
CHARTS_WILL_BE_REMOVED = ("график будет убран", "графика будут убраны", "графиков будут убраны")


# -- planning (sstools/domain/deploy/planner.py, _sources.py, _bundle.py, errors.py) ---------

UNKNOWN_DASHBOARD = "дашборда {dashboard} нет в {where}"
IN_ENVIRONMENT = "окружении {env}"  # «дашборда 5 нет в окружении dev»
IN_BRANCH = "ветке {branch}"
SOURCE_MISSING = "source: укажите env_id или git_ref"
DASHBOARDS_MISSING = "dashboard_ids: укажите дашборды — dashboard_ids или dashboard_uuids"
SOURCE_ENV_MISSING = "source.env_id: dashboard_ids — это id окружения-источника; укажите его"
TARGET_IS_SOURCE = "target_env_id: цель совпадает с источником"
NO_TARGET_DATABASE = (
    "database_mapping: в цели нет базы «{wanted}» (по UUID или имени); базы цели: {known}"
)
NO_DATABASES = "нет"
CHART_WITHOUT_DATASET = "у графика нет набора данных в источнике: он не будет перенесён"
CHART_REMOVED = (
    "у графика нет набора данных ни в источнике, ни в цели: выкатка уберёт его с дашборда в цели"
)
DATABASE_UNMAPPED = "база данных набора не сопоставлена с базой цели (database_mapping)"
SNAPSHOT_MESSAGE = "Снимок {env} перед задачей {task:.8}"

# -- applying a plan (sstools/domain/deploy/apply.py and its routes) ------------------------------

STEP_CONNECTIVITY = "проверка подключения к базам цели"
STEP_SNAPSHOT = "снимок текущей версии цели в git"
STEP_IMPORT = "импорт «{title}»"
STEP_RESTORE = "восстановление «{title}» из снимка"
STEP_DELETE_CREATED = "удаление созданного выкаткой"
BUNDLE_MISSING = "файлы для импорта ({key}…) не найдены или повреждены; оцените выкатку заново"
TARGET_UNREACHABLE = "цель {env} недоступна, ничего не изменено: {error}"
SNAPSHOT_FAILED = "не удалось снять текущую версию цели, ничего не изменено: {error}"
IMPORT_FAILED = "импорт «{title}» не удался: {error}"
IMPORT_SET_FAILED = "импорт {titles} не удался: {error}"
ROLLBACK_FAILED = "откат не завершён: {error}"
STALE_PLAN = (
    "цель изменилась после оценки: план, который вы одобрили, больше не совпадает с "
    "окружением {env}; оцените выкатку заново"
)
DIGEST_MISSING = "нужен digest плана: сначала оцените выкатку (POST /api/deploy/plan)"
ONE_DASHBOARD = "выкатка переносит один дашборд; для нескольких используйте /api/migrations"
NOT_APPLICABLE = (
    "у цели нет подключения для базы «{database}»; укажите database_mapping или создайте "
    "подключение в цели"
)
# A rollback has no mapping to give: the snapshot's databases are the target's own.
ROLLBACK_UNMAPPED = (
    "в {env} нет подключения для базы «{database}» из снимка: откат не создаёт подключений — "
    "создайте его в {env} и повторите"
)
ROLLBACK_KIND = "откатить можно только выкатку или миграцию, а задача {task:.8} — {kind}"
ROLLBACK_ENV = "задача {task:.8} выкатывала в «{env}», а не в «{asked}»"
ROLLBACK_UNFINISHED = "задача {task:.8} ещё выполняется; откатить можно после её окончания"
ROLLBACK_NO_SNAPSHOT = (
    "у задачи {task:.8} нет снимка, откатить её нельзя: по настройкам sstools окружения стадии "
    "«{stage}» не снимаются перед выкаткой, или задача остановилась до снимка"
)
ROLLBACK_NOT_OWNER = (
    "задачу {task:.8} запустил {owner}: откатить её может он или администратор; попросите их "
    "или администратора"
)
ROLLBACK_DIGEST_MISSING = (
    "нужен digest плана отката: сначала оцените откат (POST /api/deploy/{task_id}/rollback/plan)"
)
STALE_ROLLBACK = (
    "цель изменилась после оценки отката: план, который вы одобрили, больше не совпадает с "
    "окружением {env}; оцените откат заново"
)
ROLLBACK_SNAPSHOT_UNUSABLE = "откат задачи {task:.8} невозможен, ничего не изменено: {reason}"
ROLLBACK_UNPINNED = (
    "в результате задачи нет коммита снимка (задача старше закрепления снимков), а ветке "
    "снимка верить нельзя"
)
ROLLBACK_WHERE = "снимке (коммит {commit})"


def quoted(titles: list[str]) -> str:
    """«A», «B» и ещё 7: the dashboards one import step lands, by title."""
    shown = ", ".join(f"«{title}»" for title in titles[:_SHOWN_TITLES])
    more = f" и ещё {len(titles) - _SHOWN_TITLES}" if len(titles) > _SHOWN_TITLES else ""
    return shown + more


def step_import(titles: list[str]) -> str:
    """The import step of a deploy: «импорт «A», «B»» (one step for them all)."""
    return f"импорт {quoted(titles)}"


def step_restore(titles: list[str]) -> str:
    return f"восстановление {quoted(titles)} из снимка"


def rollback_summary(
    *,
    task_id: str,
    deployed_by: str,
    restore_summary: str,
    restores: int,
    deleted_dashboards: int,
    deleted_charts: int,
) -> str:
    """«Откат задачи 1a2b3c4d (запустил ирина): 1 дашборд будет изменён в prod: «A»; будут
    удалены созданные ею: 1 дашборд, 2 графика»."""
    parts = [restore_summary] if restores or not (deleted_dashboards or deleted_charts) else []
    deleted = [
        f"{count} {plural_form(count, *forms)}"
        for count, forms in (
            (deleted_dashboards, ("дашборд", "дашборда", "дашбордов")),
            (deleted_charts, ("график", "графика", "графиков")),
        )
        if count
    ]
    if deleted:
        parts.append(f"будут удалены созданные ею: {', '.join(deleted)}")
    return f"Откат задачи {task_id[:8]} (запустил {deployed_by}): {'; '.join(parts)}"


# -- a plan's changed fields in words (sstools/domain/deploy/planner.py, FieldChange.label) -------

# The longest known prefix of a dotted key names it; what follows is kept in brackets.
FIELD_LABELS = {
    ".": "весь объект",
    "css": "CSS",
    "sql": "SQL",
    "description": "описание",
    "slice_name": "название",
    "dashboard_title": "название",
    "table_name": "таблица",
    "slug": "адрес (slug)",
    "published": "опубликован",
    "certified_by": "кем сертифицирован",
    "certification_details": "сертификация",
    "cache_timeout": "время кэша",
    "viz_type": "тип графика",
    "position": "расположение графиков",
    "metadata": "настройки дашборда",
    "json_metadata": "настройки дашборда",
    "metadata.native_filter_configuration": "фильтры",
    "json_metadata.native_filter_configuration": "фильтры",
    "metadata.chart_configuration": "перекрёстные фильтры",
    "metadata.global_chart_configuration": "перекрёстные фильтры",
    "metadata.cross_filters_enabled": "перекрёстные фильтры",
    "metadata.color_scheme": "цветовая схема",
    "metadata.label_colors": "цвета подписей",
    "metadata.shared_label_colors": "цвета подписей",
    "metadata.refresh_frequency": "частота обновления",
    "metadata.timed_refresh_immune_slices": "графики без автообновления",
    "metadata.expanded_slices": "развёрнутые графики",
    "metadata.filter_scopes": "области фильтров",
    "metadata.default_filters": "фильтры по умолчанию",
    "params": "параметры графика",
    "params.metrics": "метрики",
    "params.metric": "метрика",
    "params.groupby": "группировка",
    "params.columns": "колонки",
    "params.adhoc_filters": "фильтры графика",
    "params.time_range": "период",
    "params.row_limit": "лимит строк",
    "params.color_scheme": "цветовая схема",
    "params.viz_type": "тип графика",
    "query_context": "запрос графика",
    "metrics": "метрики",
    "columns": "колонки",
    "database_uuid": "база данных",
    "schema": "схема",
    "catalog": "каталог",
    "extra": "дополнительные настройки",
    "template_params": "параметры шаблона",
    "main_dttm_col": "основная колонка времени",
    "filter_select_enabled": "выбор значений фильтра",
    "fetch_values_predicate": "условие значений фильтра",
    "offset": "сдвиг часового пояса",
    "normalize_columns": "нормализация колонок",
    "always_filter_main_dttm": "фильтр по основной колонке времени",
    "theme_uuid": "тема дашборда",
    "theme_id": "тема дашборда",
    "tags": "теги",
    "folders": "папки набора",
    "currency_code_column": "колонка кода валюты",
    "source_db_engine": "диалект SQL источника",
    "data_file": "файл данных примера",
    "columns.datetime_format": "формат даты колонок",
    "configuration_method": "способ настройки подключения",
    "encrypted_extra": "секретные настройки подключения",
    "masked_encrypted_extra": "секретные настройки подключения",
    "impersonate_user": "вход от имени пользователя",
    "extra.per_user_caching": "кэш на пользователя",
    "extra.schema_options": "настройки схем",
}

_OBJECT_KINDS = {
    "dashboards": "у дашборда",
    "charts": "у графика",
    "datasets": "у набора данных",
    "databases": "у подключения",
}


def version_skew(
    *, source: str | None, target: str, env: str, kind: str, name: str, field: str
) -> str:
    """A plan refused before any write: the target's Superset has no place for a field."""
    source_words = f"источник — на {source}" if source else "версия Superset источника неизвестна"
    return (
        f"{env} работает на Superset {target}, {source_words}: "
        f"{_OBJECT_KINDS.get(kind, kind)} «{name}» заполнено поле «{field_label(field)}» "
        f"({field}), которого Superset {target} не принимает. Ничего не изменено: уберите "
        f"его в источнике или обновите {env}"
    )


def translated(target: str, fields: list[tuple[str, int]]) -> str:
    """What a plan took out for an older target (field, objects): its summary's words, the
    card's line."""
    listed = ", ".join(f"{field_label(field)} ×{count}" for field, count in fields)
    return f"Для Superset {target} из файлов убраны поля, которых он не знает: {listed}"


def field_label(field: str) -> str:
    """«CSS», «фильтры», «расположение графиков (CHART-1.meta.width)»; the key where no words."""
    parts = field.split(".") if field != "." else ["."]
    for end in range(len(parts), 0, -1):
        words = FIELD_LABELS.get(".".join(parts[:end]))
        if words is not None:
            rest = ".".join(parts[end:])
            return f"{words} ({rest})" if rest else words
    return field
