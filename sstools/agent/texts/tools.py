"""The tools in people's words (Russian): each tool's title, and what a tool says back.

A title names the tool on cards, in logs and in the offline answers; every tool has one here,
by its name (a tool declared without one is refused when the catalogue is built). The notes tell
the model how to get more of a shortened answer; the argument messages say what a call lacks.
"""

from __future__ import annotations

TITLES = {
    "search_dashboards": "Поиск дашбордов",
    "get_health_summary": "Сводка состояния дашборда",
    "run_llm_validation": "Проверка дашборда",
    "run_llm_documentation": "Документация дашборда",
    "superset_explore_database": "Обзор базы данных и датасета",
    "superset_format_sql": "Форматирование SQL",
    "superset_audit_permissions": "Аудит прав доступа",
    "superset_execute_sql": "Выполнение SQL",
    "superset_create_dataset": "Создание датасета",
    "deploy_dashboard": "Выкатка дашборда",
    "execute_migration": "Миграция дашбордов",
    "preview_migration": "Предпросмотр миграции",
    "rollback_deploy": "Откат выкатки",
    "list_environments": "Список окружений",
    "get_task_status": "Статус задачи",
    "list_tasks": "Список задач",
    "run_backup": "Резервная копия окружения",
    "list_backups": "Список резервных копий",
    "restore_backup": "Восстановление из резервной копии",
    "create_branch": "Создание ветки",
    "commit_changes": "Коммит изменений",
    "get_git_status": "Статус git",
    "list_branches": "Список веток",
    "get_drift": "Расхождения с git и источником",
    "get_dashboard_timeline": "История версий дашборда",
    "get_dashboard_data": "Данные дашборда",
    "show_capabilities": "Мои возможности",
}

# -- notes on a shortened answer (the model reads them) ------------------------------------------
MORE_DETAIL = "всё: detail=true"
MORE_PAGE = "дальше: page={page}"
MORE_QUERY = "уточните запрос (фильтр, агрегаты, LIMIT/OFFSET)"
LIST_CUT = "{key}: показаны {shown} из {total}; {how}"
MARKDOWN_CUT = "markdown: первые {shown} из {total}; {how}"
CHANGES_CUT = "objects: показаны {shown} из {total} изменяемых; {how}"

# -- what a call lacks ---------------------------------------------------------------------------
# Which object a call needs and the page does not name, in words (never the argument's name).
NOT_IN_CONTEXT = (
    "назовите {what} — по названию или номеру: страница, с которой вы пришли, его не называет"
)
OBJECT_WORDS = {"dashboard": "дашборд", "dataset": "набор данных", "migration": "миграцию"}
NO_SOURCE = "назовите окружение, откуда переносить: ни просьба, ни страница его не называют"
NO_DASHBOARDS = "назовите дашборды, которые перенести"
NO_DATABASE = "назовите базу данных"
NO_TABLE_OR_SQL = "назовите таблицу — или дайте SQL и имя для виртуального набора данных"
NO_RESTORE_PLAN = "нет оценки восстановления: повторите, чтобы увидеть план"

# -- a write asked only for its plan (dry_run) ---------------------------------------------------
DRY_RUN_TITLE = "{tool} (только план)"
NO_DRY_RUN = "у «{tool}» нет плана: показать, что изменится, нельзя"
# The offline answer to a dry run, after its plan.
DRY_RUN_NOTHING_CHANGED = "Это только план: ничего не изменено."
DRY_RUN_NO_PLAN = "Ничего не изменено."
DRY_RUN_HOW_TO_APPLY = (
    "Чтобы применить его, попросите выполнить: сначала появится карточка подтверждения."
)
