"""What the offline planner says itself: its questions back and its refusals (issue 22 §2, §3).

A question back names what is missing in words and offers choices; it never prints an
argument's name (``task_id``). Each one starts with the tool's title, so a person knows what
the question is for.
"""

from __future__ import annotations

# What the question is about, per tool: «какой дашборд {verb}?».
VERBS = {
    "deploy_dashboard": "выкатить",
    "execute_migration": "перенести",
    "preview_migration": "сравнить",
    "get_health_summary": "посмотреть",
    "run_llm_validation": "проверить",
    "run_llm_documentation": "описать",
    "commit_changes": "закоммитить",
    "rollback_deploy": "откатить",
    "get_task_status": "посмотреть",
    "restore_backup": "восстановить",
    "superset_execute_sql": "выполнить",
    "superset_format_sql": "отформатировать",
    "superset_create_dataset": "создать",
}
DEFAULT_VERB = "выполнить"

ASK_DASHBOARD = (
    "«{tool}»: какой дашборд {verb}? Назовите его номер («дашборд 12») "
    "или откройте страницу дашборда и спросите там."
)
ASK_DASHBOARDS = (
    "«{tool}»: какие дашборды {verb}? Назовите их номера («дашборды 7 и 8») "
    "или откройте страницу дашборда."
)
# A commit's message when the person gave none: what it is, never the request's own words.
COMMIT_MESSAGE = "{title}: снимок из {env}"
COMMIT_MESSAGE_UNTITLED = "Снимок дашбордов из {env}"
ASK_TARGET = "«{tool}»: в какое окружение — {choices}?"
ASK_ENVIRONMENT = "«{tool}»: какое окружение — {choices}?"
OR = " или "
ASK_BRANCH = (
    "«{tool}»: как назвать новую ветку? Напишите название, например «feature/новые-фильтры»."
)
ASK_SQL = "«{tool}»: какой SQL {verb}? Вставьте текст запроса после команды."
ASK_BACKUP = "«{tool}»: какая резервная копия нужна? {choices}"
BACKUP_CHOICES = "Последние копии: {items}."
BACKUP_NONE = "Спросите «покажи бэкапы», чтобы увидеть, какие есть."
ASK_TASK = "«{tool}»: какую задачу {verb}? {choices}"
ASK_DEPLOY = "«{tool}»: какую выкатку {verb}{where}? {choices}"
ASK_WHERE = " в {env}"
TASK_CHOICES = "Последние задачи этого разговора: {items}."
TASK_CHOICE = "{kind} {id} ({status})"
TASK_NONE = (
    "В этом разговоре задач ещё не было: назовите задачу по первым 8 цифрам её номера "
    "или спросите «покажи последние задачи»."
)
DEPLOY_NONE = (
    "В этом разговоре выкаток не было: назовите задачу выкатки по первым 8 цифрам её номера "
    "или спросите «история выкаток»."
)
ASK_TABLE = "«{tool}»: из какой таблицы? Напишите «таблица …» и, если нужно, «схема …»."
ASK_OTHER = "«{tool}»: уточните, пожалуйста: {labels}."

# -- «расскажи про этот дашборд»: what it shows, not its status (issue 22 §4) -------------------
OVERVIEW_TITLE = "{title} — что показывает"
OVERVIEW_CHARTS = "Графики ({count}): {names}"
OVERVIEW_NO_CHARTS = "Графиков нет: дашборд пустой"
OVERVIEW_DATASETS = "Данные: {count} — {ids}"
OVERVIEW_DATASET = "датасет #{id} (его название Superset не сообщил)"
OVERVIEW_OWNERS = "Владельцы: {names}"
OVERVIEW_WHERE = "Где находится: окружение {env}, {published}; изменён {when}"
OVERVIEW_PUBLISHED = "опубликован"
OVERVIEW_DRAFT = "черновик (не опубликован)"
OVERVIEW_GIT = "В git: {status}"
OVERVIEW_STATUS_HINT = "Состояние и проблемы: спросите «как дела у дашборда»."

# -- by name, from the fleet (issue 36) ----------------------------------------------------------
ASK_WHICH_DASHBOARD = "«{tool}»: какой дашборд вы имеете в виду — {choices}?"
ASK_WHICH_TASK = "«{tool}»: какую из них — {choices}? Назовите первые 8 цифр номера."
NOT_THERE = "Дашборда «{title}» в {env} нет: его туда ещё не выкатывали."
# «откати…» where no rollback is offered (a dashboard's chat before any deploy in it).
ROLLBACK_ELSEWHERE = (
    "Откатить можно выкатку или перенос: нажмите «Откатить…» у задачи — в истории дашборда, "
    "на странице задачи или у строки задачи в этом чате, — или напишите «откати выкатку» и "
    "первые 8 цифр её номера в общем чате агента."
)
# What the request means is not done from this page (a backup beside a dashboard).
ELSEWHERE = (
    "«{tool}» не делается со страницы {page}: откройте агента без объекта (общий чат) и "
    "попросите там."
)
PAGES = {"dashboard": "дашборда", "dataset": "датасета", "migration": "миграций"}
# The deploy named was undone already: nothing left to roll back.
ALREADY_ROLLED_BACK = (
    "Выкатка {id} уже откачена — откатывать нечего. Вернуть другую версию можно из истории "
    "версий дашборда."
)
# An answer in words when the message asks for nothing a tool does: thanks, a greeting.
SMALL_TALK = "Пожалуйста! Спросите, что нужно: например, «что ты умеешь?»."
# «что значит статус degraded?», «что такое дрейф?»: what a word the answers use means, in words.
MEANINGS = {
    "degraded": (
        "«Есть проблемы» (degraded) — у дашборда нашлось хотя бы одно из трёх: график, чей "
        "датасет удалён или недоступен; ни одного владельца; ни одного графика. Какие именно — "
        "спросите «как он?» на странице дашборда."
    ),
    "ok": "«В порядке» (ok) — у всех графиков есть датасет, у дашборда есть владелец и графики.",
    "queued": "«В очереди» (queued) — задача принята и ждёт свободного исполнителя.",
    "running": "«Выполняется» (running) — задача идёт; её шаги видны на странице задачи.",
    "succeeded": "«Выполнена» (succeeded) — задача закончилась без ошибок.",
    "failed": (
        "«Завершилась ошибкой» (failed) — задача остановилась на одном из шагов; какая ошибка и "
        "на каком шаге — на странице задачи."
    ),
    "cancelled": "«Отменена» (cancelled) — задачу остановили, не дав ей закончиться.",
    "drift": (
        "Дрейф — расхождение: дашборд в окружении уже не такой, как его версия в git (его "
        "поправили прямо в Superset), или окружение отстаёт от того, откуда в него выкатывают. "
        "Спросите «что расходится на проде?», чтобы увидеть расхождения."
    ),
    "virtual_dataset": (
        "Виртуальный датасет — датасет Superset на SQL-запросе, а не на одной таблице базы "
        "(такой называют физическим). Создать: «сделай виртуальный датасет sales_eu из select …»."
    ),
    "physical_dataset": (
        "Физический датасет — датасет Superset на одной таблице базы, со всеми её колонками. "
        "Создать: «сделай датасет из таблицы regions»."
    ),
    "migration": (
        "Миграция — перенос нескольких дашбордов с их графиками и датасетами из одного окружения "
        "в другое (например, из dev в staging). Сначала показывается план: что будет создано и "
        "что перезапишется; переносится только после подтверждения."
    ),
    "deploy": (
        "Выкатка — перенос одного дашборда в следующее окружение (dev → staging → prod). Сначала "
        "план изменений, затем подтверждение; перед записью делается снимок, к которому можно "
        "откатиться."
    ),
    "rollback": (
        "Откат — возврат дашборда к снимку, сделанному перед выкаткой, в том окружении, куда "
        "выкатывали. Спросите «откати последнюю выкатку на стейдже»."
    ),
    "backup": (
        "Резервная копия (бэкап) — снимок дашбордов окружения, из которого его можно "
        "восстановить. Делать и восстанавливать копии может администратор."
    ),
    "dry_run": (
        "Пробный прогон (dry run) — план без записи: что изменится, если выполнить, но ничего "
        "не меняется."
    ),
}
