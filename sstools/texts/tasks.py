"""Russian text of durable tasks: what starting or cancelling refuses, why a task ended.

A task is named by the first 8 hex digits of its id (``{task:.8}``), as people quote it, and
its kind and status by the words below; except where a client reads them back (the task it
asked for and did not find, and the task that holds an object: its whole id and its kind).
"""

from __future__ import annotations

KINDS = {
    "deploy": "выкатка",
    "migration": "миграция",
    "rollback": "откат",
    "commit": "коммит",
    "backup": "резервная копия",
    "restore": "восстановление",
    "validation": "проверка",
    "documentation": "документация",
    "drift_watch": "проверка расхождений",
}
STATUSES = {
    "queued": "в очереди",
    "running": "выполняется",
    "succeeded": "выполнена",
    "failed": "завершилась ошибкой",
    "cancelled": "отменена",
}

NOT_FOUND = "задачи {task!r} нет"
CONFLICT = (
    "в окружении {env} уже выполняется задача {task} ({kind}, запустил {user}), "
    "которая меняет {objects}; "
)
CONFLICT_SAME_OBJECTS = "те же объекты"
CONFLICT_CANCELLED = "она отменена, но её текущий шаг ещё не закончился: подождите"
CONFLICT_RUNNING = "дождитесь её окончания или отмените её"
FINISHED = "задача {task:.8} уже завершена ({status})"
TOO_MANY = (
    "у вас уже выполняется столько задач, сколько можно одному пользователю "
    "(предел: {limit}); дождитесь, пока одна из них закончится, и повторите"
)
CANCEL_ADMIN_ONLY = "задачу {task:.8} ({kind}) может отменить только администратор"
CANCEL_NOT_YOURS = (
    "задачу {task:.8} запустил {owner}: отменить её может только он сам или администратор"
)
CANCEL_NAMESAKE = (
    "задачу {task:.8} запустила прежняя, удалённая учётная запись с именем {owner}: отменить её "
    "может администратор"
)

START_FAILED = "не удалось запустить: {error}"
# Superset refused a step: its own text may name settings and keys, so it stays in the log.
SUPERSET_REFUSED = "Superset {env} ответил ошибкой (HTTP {status}); подробности — в журнале сервера"
SUPERSET_REFUSED_NO_STATUS = "Superset {env} ответил ошибкой; подробности — в журнале сервера"
SUPERSET_REFUSED_RECORDED = "Superset ответил ошибкой; подробности — в журнале сервера"
CANCELLED_BY = "отменена пользователем {user}"
INTERRUPTED = "прервано перезапуском сервера; шаг {step} из {total} «{name}» не завершён"
INTERRUPTED_BEFORE_START = "прервано перезапуском сервера до начала выполнения"
UNEXPECTED_FAILURE = "задача завершилась внутренней ошибкой ({kind}); подробности в журнале сервера"
WORKFLOW_GONE = "прервано перезапуском сервера: эта версия сервера не умеет продолжить задачу"
# The checkpointed marker before a step that must not run twice: a DBOS step name, keep it.
STEP_BEGUN = "{name}: начало"
