"""Russian text of durable tasks: what starting or cancelling refuses, why a task ended."""

from __future__ import annotations

NOT_FOUND = "задачи {task!r} нет"
CONFLICT = (
    "в окружении {env} уже выполняется задача {task} ({kind}, запустил {user}), "
    "которая меняет {objects}; "
)
CONFLICT_SAME_OBJECTS = "те же объекты"
CONFLICT_CANCELLED = "она отменена, но её текущий шаг ещё не закончился: подождите"
CONFLICT_RUNNING = "дождитесь её окончания или отмените её"
FINISHED = "задача {task} уже завершена (статус {status})"
TOO_MANY = (
    "у вас уже выполняется столько задач, сколько можно одному пользователю "
    "(предел: {limit}); дождитесь, пока одна из них закончится, и повторите"
)
CANCEL_ADMIN_ONLY = "задачу {task} ({kind}) может отменить только администратор"
CANCEL_NOT_YOURS = (
    "задачу {task} запустил {owner}: отменить её может только он сам или администратор"
)

START_FAILED = "не удалось запустить: {error}"
CANCELLED_BY = "отменена пользователем {user}"
INTERRUPTED = "прервано перезапуском сервера; шаг {step} из {total} «{name}» не завершён"
INTERRUPTED_BEFORE_START = "прервано перезапуском сервера до начала выполнения"
UNEXPECTED_FAILURE = "задача завершилась внутренней ошибкой ({kind}); подробности в журнале сервера"
WORKFLOW_GONE = "прервано перезапуском сервера: эта версия сервера не умеет продолжить задачу"
# The checkpointed marker before a step that must not run twice: a DBOS step name, keep it.
STEP_BEGUN = "{name}: начало"
