"""Words of the MCP face (``/mcp``, ``sstools mcp``): what a host shows its person."""

from __future__ import annotations

ENV_ARGUMENT = (
    "The environment id (see list_environments): where the tool reads or, for a deploy, the "
    "source; the chat takes it from the page"
)
OBJECT_ARGUMENT = {
    "dashboard_id": "The dashboard's id in that environment: the chat takes it from the page",
    "dataset_id": "The dataset's id in that environment: the chat takes it from the page",
}
UNKNOWN_TOOL = "Нет инструмента «{tool}». Список инструментов: tools/list."
BAD_PLACE = "Аргументы указаны неверно: {problems}."
NO_PLAN = "План изменения не получен: {problem}. Ничего не записано."
NO_PLAN_ANSWER = "сервис не ответил"
REFUSED = "Сервер отказал: {detail}. Ничего не записано."
CONFIRM = (
    "{title}.\nСреда: {env} (стадия: {stage}).\nЧто изменится: {impact}.\n"
    "Объекты: {objects}.\nПлан {digest}: применится ровно он, один раз. Применить?"
)
CONFIRM_CALL = "{title}.\nАргументы: {arguments}.\nВыполнить?"
CONFIRM_FIELD = "Применить этот план"
DECLINED = "Ничего не изменено: вы отклонили изменение."
DECLINED_REASON = "отклонено в клиенте MCP"
NEEDS_APPROVAL = (
    "Ничего не записано: изменение ждёт вашего одобрения. Посмотрите план и одобрите его "
    "на странице {link} (запрос {id}); о его судьбе скажет get_task_status с этим id."
)
STARTED = "Одобрено: изменение запущено задачей {task_id}; за ней следит get_task_status."
DONE = "Одобрено и выполнено."
NEEDS_ELICITATION = (
    "Этот клиент MCP не умеет спрашивать подтверждение, а «{title}» без него не выполняется: "
    "сделайте это в чате sstools (/agent)."
)
NO_CHANGES = "изменений нет"
UNKNOWN_IMPACT = "не удалось оценить"
NOT_YOUR_SESSION = "такой сессии MCP у вас нет: начните новую"
