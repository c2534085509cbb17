"""Every sentence of the offline answers (Russian), in one catalogue: a translation is a file."""

from __future__ import annotations

from sstools.agent.texts import PLAN_KINDS as CARD_KINDS
from sstools.texts import STAGES as STAGES  # the API's words for a stage, said the same
from sstools.texts import http as http_texts

DONE = "Готово."
YES = "да"
NO = "нет"
NONE = "нет"  # an empty list of names
MORE_NAMES = "…и ещё {count}"
OPEN = "Открыть: {links}"
SHOWN_FIRST = "Показаны первые {shown} из {total}."
KIB = "{size} КБ"
MIB = "{size} МБ"
# One, few, many: «1 дашборд», «3 дашборда», «5 дашбордов».
NOUNS: dict[str, tuple[str, str, str]] = {
    "dashboard": ("дашборд", "дашборда", "дашбордов"),
    "chart": ("график", "графика", "графиков"),
    "dataset": ("датасет", "датасета", "датасетов"),
    "database": ("база данных", "базы данных", "баз данных"),
    "file": ("файл", "файла", "файлов"),
    "row": ("строка", "строки", "строк"),
    "column": ("колонка", "колонки", "колонок"),
    "table": ("таблица", "таблицы", "таблиц"),
    "schema": ("схема", "схемы", "схем"),
    "environment": ("окружение", "окружения", "окружений"),
    "task": ("задача", "задачи", "задач"),
    "backup": ("копия", "копии", "копий"),
    "branch": ("ветка", "ветки", "веток"),
    "role": ("роль", "роли", "ролей"),
    "problem": ("проблема", "проблемы", "проблем"),
    "finding": ("замечание", "замечания", "замечаний"),
    "object": ("объект", "объекта", "объектов"),
    "tool": ("инструмент", "инструмента", "инструментов"),
    "byte": ("байт", "байта", "байт"),
}

RESULT = "результат"  # the heading of a result whose tool is not known
FAILED = "Не получилось: {message}"
OPEN_SSTOOLS = "в sstools"
OPEN_SUPERSET = "в Superset"
NOTHING_FOUND = "Ничего не найдено."
# FastAPI's field messages, as the executor passes them on.
VALIDATION_MESSAGES = (
    (r"String should match pattern '[^']*'", "неверный формат"),
    (r"Field required", "обязательное поле"),
    (r"Input should be a valid integer", "должно быть целым числом"),
    (r"String should have at most (\d+) characters?", r"не длиннее \1 символов"),
    (r"Input should be greater than or equal to (\d+)", r"не меньше \1"),
    (r"Extra inputs are not permitted", "лишний параметр"),
)

# Keys a result may carry, as a person names them; keys not listed are left out of the answer.
LABELS = {
    "title": "Название",
    "name": "Название",
    "object_name": "Объект",
    "status": "Состояние",
    "state": "Состояние",
    "env_id": "Окружение",
    "target_env_id": "Куда",
    "source_env_id": "Откуда",
    "source": "Источник",
    "stage": "Стадия",
    "created_at": "Создано",
    "created_by": "Создал",
    "started_by": "Запустил",
    "changed_on": "Изменён",
    "updated_at": "Обновлено",
    "started_at": "Начато",
    "finished_at": "Завершено",
    "time": "Время",
    "at": "Когда",
    "author": "Автор",
    "message": "Сообщение",
    "summary": "Итог",
    "owners": "Владельцы",
    "charts": "Графики",
    "dashboards": "Дашборды",
    "datasets": "Датасеты",
    "databases": "Базы данных",
    "published": "Опубликован",
    "reachable": "Отвечает",
    "total": "Всего",
    "count": "Количество",
    "error": "Ошибка",
    "branch": "Ветка",
    "description": "Описание",
    "database_name": "База данных",
    "schema": "Схема",
    "table": "Таблица",
    "sql": "SQL",
    "columns": "Колонки",
    "metrics": "Метрики",
    "rows": "Строки",
    "row_count": "Строк",
    "files": "Файлы",
    "bytes": "Размер",
    "objects": "Объекты",
    "problems": "Проблемы",
    "findings": "Замечания",
    "fix": "Как исправить",
    "severity": "Важность",
    "review": "Ревью",
    "imported": "Импортировано",
    "not_imported": "Не импортировано",
    "unchanged": "Без изменений",
    "restored": "Восстановлено",
    "not_restored": "Не восстановлено",
    "deleted_dashboards": "Удалённые дашборды",
    "deleted_charts": "Удалённые графики",
    "removed": "Удалено",
    "default": "По умолчанию",
    "pushed": "Отправлено в удалённый репозиторий",
    "created": "Создано",
    "applicable": "Можно применить",
    "superset_version": "Версия Superset",
    "git_status": "Git",
    "last_validation": "Проверка",
    "role": "Роль",
    "backend": "Движок",
}

# -- dashboards ----------------------------------------------------------------------------------
SEARCH_FOUND = "Найдено: {count}."
SEARCH_HEAD = "| Дашборд | Опубликован | Изменён | Ссылки |"
HEALTH_OK = "{title} в {env}: в порядке."
HEALTH_DEGRADED = "{title} в {env}: есть проблемы ({count})."
HEALTH_GIT = "Git: {status}"
HEALTH_COMMIT = "последний коммит {when}, {author}: «{message}»"
HEALTH_CHANGED = "Изменён: {when}"
HEALTH_PUBLISHED = "Опубликован: {value}"
HEALTH_OWNERS = "Владельцы: {names}"
HEALTH_CHARTS = "Графики ({count}): {names}"
HEALTH_BROKEN = "без данных: {names}"
HEALTH_NOT_CHECKED = "Проверка: не проверялся"

# -- tasks ---------------------------------------------------------------------------------------
TASK_KINDS = {
    "deploy": "Выкатка",
    "migration": "Миграция",
    "rollback": "Откат",
    "commit": "Коммит",
    "backup": "Резервная копия",
    "restore": "Восстановление",
    "validation": "Проверка дашборда",
    "documentation": "Документация дашборда",
}
TASK_STATUSES = {
    "queued": "в очереди",
    "running": "выполняется",
    "succeeded": "выполнена",
    "failed": "завершилась ошибкой",
    "cancelled": "отменена",
}
TASK_VERDICT = "{kind}{objects}: {status}."
# A task just started: the chat follows it live and says its end once, so this says nothing the
# end will contradict; asked about a running task, the answer says how to ask again.
TASK_STARTED = "{kind}{objects}: задача запущена."
TASK_FOLLOW = (
    "Задача ещё идёт; спросите «статус задачи {id}» позже, чтобы узнать, чем она закончилась."
)
TASK_ID = "Номер задачи: `{id}`"
TASK_WHERE = "Окружение: {env}"
TASK_SOURCE = "Откуда: {source}"
TASK_BY = "Запустил: {who}, {when}"
TASK_FINISHED = "Завершена: {when}"
TASK_STEP = "Шаг {step} из {total}: {name}"
TASK_ERROR = "Ошибка: {error}"
TASKS_NONE = "Задач пока нет."
TASKS_FOUND = "Задач: {count}."
TASKS_HEAD = "| Задача | Объекты | Где | Кто | Состояние | Запущена |"
TASKS_APPROVED = "{who}, одобрил(а) {approver}"
TIMELINE_HEAD = "| Когда | Что | Кто | Где |"
TIMELINE_FOUND = "«{title}»: версий — {count}, новые сверху."
TIMELINE_NONE = "У «{title}» пока нет сохранённых версий."
TIMELINE_KINDS = {
    "git": "коммит в git",
    "snapshot": "снимок перед выкаткой",
    "backup": "резервная копия",
    "live": "текущее состояние",
}

VALIDATION_ERRORS = "Проверка нашла ошибок: {errors}, предупреждений: {warnings}."
VALIDATION_CLEAN = "Проверка не нашла проблем."
VALIDATION_NOTES = "Заметок: {count}."
VALIDATION_REVIEW = "Ревью модели: {review}"
SEVERITIES = {"error": "ошибка", "warning": "предупреждение", "info": "заметка"}
SEVERITY = "замечание"  # a severity not in SEVERITIES
FINDING = "{severity}: {object} — {message}{fix}"
FINDING_FIX = " (как исправить: {fix})"
OBJECT_KINDS = {**CARD_KINDS, "database": "база данных"}  # a finding names it in full

DOCUMENTATION_DONE = "Документация написана ({author}) и сохранена в git: `{path}`."
DOCUMENTATION_STORED = (
    "Документация написана ({author}) и сохранена в sstools; в git (`{path}`) её коммитит инженер."
)
DOCUMENTATION_AUTHORS = {"template": "по шаблону, без модели", "model": "моделью"}
DOCUMENTATION_CHARTS = "Описаны графики: {names}"
DOCUMENTATION_MODEL_ERROR = "Модель не справилась, документ собран по шаблону: {error}"

BACKUP_DONE = "Копия {id}: {counts}; {size}, {files}."
BACKUP_REMOVED = "Удалены старые копии: {names}"
DEPLOY_IMPORTED = "Перенесены: {names}"
DEPLOY_NOT_IMPORTED = "Не перенесены: {names}"
DEPLOY_UNCHANGED = "Без изменений: {names}"
DEPLOY_SNAPSHOT = "Снимок цели до выкатки сохранён в git: выкатку можно откатить."
# A deploy's snapshot (the branch snapshots/<task id>), named by the deploy's short id.
SNAPSHOT = "снимок перед выкаткой {task}"
RESTORE_IMPORTED = "Восстановлено: {counts}"
RESTORE_SKIPPED = "Не восстановлены графики без датасета: {names}"
ROLLBACK_RESTORED = "Возвращены: {names}"
ROLLBACK_NOT_RESTORED = "Не возвращены: {names}"
ROLLBACK_DELETED = "Удалены созданные выкаткой: {names}"

# -- plans ---------------------------------------------------------------------------------------
PLAN_VERDICT = "{changes} в «{target}» из {source}."
PLAN_NOTHING = "Ничего не изменится в «{target}»: всё уже совпадает с тем, что взято из {source}."
PLAN_ACTIONS = {
    "create": "будет создан",
    "update": "будет изменён",
    "unchanged": "без изменений",
    "delete": "будет удалён",
}
PLAN_LINE = "{kind} {name}: {action}{fields}"
PLAN_KINDS = {kind: word.capitalize() for kind, word in CARD_KINDS.items()}
PLAN_OBJECT = "Объект"  # an object of a kind not in PLAN_KINDS
PLAN_DATABASE = "База {source} → {target} (сопоставлена по {by})"
PLAN_MATCHED_BY = {"uuid": "UUID", "name": "имени", "sqlalchemy_uri": "адресу подключения"}
PLAN_DIGEST = "Отпечаток плана: `{digest}…`"
PLAN_UNRESOLVED = "Не будут перенесены графики без датасета: {names}"
PLAN_CHARTS_REMOVED = "Будут убраны с дашборда в цели графики без датасета: {names}"
PLAN_OBJECTS = "Всего в плане: {count}"
PLAN_NOT_APPLICABLE = "Применить этот план нельзя."
PLAN_GIT_SOURCE = "ветки git «{ref}»"
PLAN_COMMIT_SOURCE = "коммита git {commit}"
PLAN_BACKUP_SOURCE = "копии `{id}`"
PLAN_SNAPSHOT_SOURCE = "снимка перед выкаткой {task}"

# -- git -----------------------------------------------------------------------------------------
GIT_CLEAN = "Незакоммиченных изменений нет (ветка «{branch}»)."
GIT_CHANGED = "Есть изменения, не сохранённые в git (ветка «{branch}»): {count}."
GIT_HEAD = "Последний коммит: {when}, {author} — «{message}»"
GIT_NO_COMMIT = "Коммитов ещё нет."
GIT_DASHBOARD_STATUS = {
    "clean": "совпадает с веткой",
    "modified": "изменён",
    "untracked": "не версионирован",
    "missing": "нет в окружении",
}
GIT_FILES = "изменённых файлов: {count}"
BRANCHES_FOUND = "Веток: {count}."
BRANCH_DEFAULT = " (основная)"
BRANCH_LINE = "«{name}»{default}: последний коммит {when}, {author}"
BRANCH_NAME = "«{name}»{default}"
BRANCH_SNAPSHOT = " (снимок перед выкаткой {task})"
BRANCH_CREATED = "Ветка «{name}» создана от коммита «{message}»."
COMMIT_CREATED = "Сохранено в git: коммит `{id}` в ветке «{branch}», {files}."
COMMIT_NOTHING = "Нечего сохранять: в git уже то же самое."
COMMIT_DASHBOARDS = "Дашборды: {names}"
COMMIT_PUSH_FAILED = "Отправить в удалённый репозиторий не удалось: {error}"
FILE_CHANGES = {"added": "добавлен", "modified": "изменён", "deleted": "удалён"}
FILE_CHANGED = "изменён"  # a change not in FILE_CHANGES

# -- backups -------------------------------------------------------------------------------------
BACKUPS_NONE = "Резервных копий этого окружения нет."
BACKUPS_FOUND = "Резервных копий: {count}; последняя — {when}."
BACKUPS_HEAD = "| Копия | Когда | Кто | Содержимое | Размер |"
BACKUPS_UNREADABLE = "Не читаются (повреждены?): {names}"
RESTORE_SUMMARY = "Подробно: {summary}"

# -- environments --------------------------------------------------------------------------------
ENVIRONMENTS_ALL_UP = "Окружений: {count}; все отвечают."
ENVIRONMENTS_SOME_DOWN = "Окружений: {count}; не отвечают: {names}."
ENVIRONMENTS_HEAD = "| Окружение | Стадия | Отвечает | Версия Superset | Superset |"
ENVIRONMENTS_MIXED = (
    "Версии Superset разные ({versions}): в окружение с более старой версией выкатка переносит "
    "то, что та версия принимает, а заполненное поле, которого она не знает, — отказ до записи."
)

# -- sql and databases ---------------------------------------------------------------------------
SQL_ROWS = "Запрос вернул {count} {rows}{limited}."
ROWS_RETURNED = ("строку", "строки", "строк")  # accusative: «вернул 1 строку»
SQL_LIMITED = " (показаны не все: сработал предел)"
SQL_NO_ROWS = "Запрос выполнен; строк нет."
SQL_RAN = "Выполненный запрос:"
SQL_FORMATTED = "SQL отформатирован:"
DATABASES_FOUND = "Баз данных: {count}."
DATABASE_LINE = "{name} (#{id}, {backend}){sqllab}"
DATABASE_SQLLAB = ", доступна в SQL Lab"
SCHEMAS_FOUND = "Схем: {count}: {names}."
TABLES_FOUND = "Таблиц: {count}: {names}."
COLUMNS_FOUND = "Колонок: {count}."
COLUMNS_HEAD = "| Колонка | Тип |"
DATASET_CREATED = "Датасет {name} создан ({kind}, #{id})."
DATASET_KINDS = {"physical": "физический", "virtual": "виртуальный"}

# -- permissions ---------------------------------------------------------------------------------
AUDIT_VERDICT = "{object} видят роли: {names}."
AUDIT_NOBODY = "{object} не видит ни одна роль, кроме администраторов."
AUDIT_OBJECTS = {"dataset": "Датасет", "dashboard": "Дашборд", "database": "Базу данных"}
AUDIT_OBJECT = "Объект"  # an object type not in AUDIT_OBJECTS
AUDIT_HEAD = "| Роль | Видит | Через что | Чего не хватает |"
AUDIT_NOTES = {
    "Admin reaches everything in Superset regardless of grants.": (
        "Роль Admin видит в Superset всё, независимо от прав."
    ),
    "The dashboard is a draft: only its owners and admins see it listed.": (
        "Дашборд — черновик: в списке его видят только владельцы и администраторы."
    ),
}
GRANT_PATTERNS = (
    (r"^can_read on Dataset$", "чтение датасетов (`can_read`)"),
    (r"^can_read on Dashboard$", "чтение дашбордов (`can_read`)"),
    (r"^(\w+)$", "`{0}`"),
    (r"^a data grant covering (.+) \(e\.g\. datasource_access\)$", "доступ к данным «{0}»"),
    (r"^data access to dataset (.+)$", "доступ к данным датасета «{0}»"),
    (r"^listed in the dashboard's roles$", "роль указана в ролях дашборда"),
    (r"^not among the dashboard's roles \(DASHBOARD_RBAC\)$", "роли нет среди ролей дашборда"),
    (r"^(\w+) on (.+)$", "`{0}` на {1}"),
    (r"^(.+): (\w+)(?: on (.+))?$", "«{0}»: `{1}`"),
)

# -- capabilities --------------------------------------------------------------------------------
CAPABILITIES_OFFERED = "Здесь я могу ({count}):"
CAPABILITIES_HIDDEN = "Недоступно здесь:"
CAPABILITIES_NONE = "Здесь мне нечего предложить."
ROLE_NAMES = http_texts.ROLES  # a role is called the same on every face
HIDDEN_BY_OBJECT = "не относится к {object}"
OBJECT_DATIVE = {"dashboard": "дашборду", "dataset": "датасету", "migration": "миграциям"}
HIDDEN_REASONS = {
    "context": "не относится к тому, что открыто на странице",
    "role": "нужна роль «{role}»",
    "no_environment": "нужно выбрать окружение",
}

# -- confirmation cards: a call's arguments as labelled values -----------------------------------
CARD_LABELS = {
    "dashboard_id": "Дашборд",
    "dashboard_ids": "Дашборды",
    "target_env_id": "Куда",
    "source_env_id": "Откуда",
    "env_id": "Окружение",
    "git_ref": "Ветка git",
    "sql": "SQL",
    "database_id": "База данных",
    "database_mapping": "Базы данных",
    "schema_name": "Схема",
    "table": "Таблица",
    "name": "Название",
    "message": "Сообщение коммита",
    "task_id": "Задача",
    "backup_id": "Резервная копия",
    "limit": "Предел строк",
    "query": "Слова в названии",
    "page": "Страница",
    "object_type": "Вид объекта",
    "object_id": "Объект",
    "detail": "Подробно",
}
CARD_BRANCH = "Ветка"
CARD_ENVIRONMENT = "Окружение"
CARD_SOURCE = "Откуда"
CARD_OTHER = "Параметр «{name}»"
CARD_OBJECT = "{name} (#{id})"
CARD_ENV = "{id} ({name})"
CARD_OBJECT_TYPES = {"dataset": "датасет", "dashboard": "дашборд", "database": "база данных"}

# -- drift: each environment against git main and its upstream stage (get_drift) ------------------
DRIFT_CHECKED = "Расхождения на {when}."
DRIFT_ENV_CLEAN = "**{env}** ({stage}): все дашборды совпадают с git и с источником."
DRIFT_ENV_FOUND = "**{env}** ({stage}): расходятся {count}:"
DRIFT_ENV_UNREACHABLE = "**{env}** ({stage}): окружение не ответило, расхождения неизвестны."
DRIFT_STATES = {
    "edited_here": "изменён прямо в этом окружении (новее git и источника)",
    "behind_source": "отстаёт от {source}",
    "missing": "отсутствует (есть в {source} или в git)",
}
DRIFT_NO_SOURCE = "источника"
DRIFT_ADOPT = (
    "Как свести изменённый напрямую: принять правку в git — на странице дашборда в его "
    "окружении попросите «закоммить этот дашборд в git»"
)
DRIFT_PUT_BACK = "; или вернуть как в git — «выкати этот дашборд в {env} из main»"
DRIFT_CARDS = ". Оба шага — с карточкой подтверждения."
DRIFT_CARD = ". С карточкой подтверждения."
DRIFT_PAGE = "Все расхождения: [страница «Расхождения»](/drift)."
