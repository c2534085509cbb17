"""The words of approvals: the /approvals list, a request's page, a card waiting for a second
person, the home page's «what waits for you»."""

from __future__ import annotations

APPROVALS = {
    "approvals": "Ожидают одобрения",
    "approvals_badge_title": "Ожидают одобрения: изменения, которые ждут вашего одобрения",
    "approvals_short": "Одобрения",
    "sections": "Разделы",
    "home_yours": "Ждут вашего одобрения: {count}",
    "agent_suggestions": "Можно спросить, например:",
    "agent_back_to_object": "← к странице объекта",
    "agent_offline_notice": (
        "Языковая модель не подключена: агент понимает короткие просьбы о дашбордах, датасетах, "
        "выкатках и задачах и отвечает по шаблону."
    ),
    "task_who_approved": "{who}, одобрил(а) {second}",
    "approval_more": "и ещё {count}",
    "approvals_none": "Сейчас ничего не ждёт одобрения",
    "approvals_intro": (
        "Изменения в окружениях, где их одобряют двое: запросивший подтвердил, нужен второй "
        "человек с нужной ролью."
    ),
    "approval_title": "Одобрение изменения",
    "approval_approve": "Одобрить",
    "approval_deny": "Отклонить",
    "approval_reason": "Причина отказа",
    "approval_reason_placeholder": "Почему нет? (необязательно — запросивший и агент увидят)",
    "approval_requested_by": "Запросил",
    "approval_requested_at": "Запрошено",
    "approval_first_at": "Подтверждено запросившим",
    "approval_expires": "Ждёт до",
    "approval_needs": "Одобряет",
    "approval_needs_first": (
        "сначала запросивший; где нужны два человека — затем роль «{role}» или выше"
    ),
    "approval_needs_role": "роль «{role}» или выше, не запросивший",
    "approval_decided_by": "Решение",
    "approval_state": "Состояние",
    "approval_state_pending": "Ждёт подтверждения запросившим",
    "approval_state_awaiting_first": "Ждёт вашего решения",
    "approval_state_awaiting_second": "Ожидает второго одобрения",
    "approval_state_approved": "Одобрено — изменение выполняется в беседе запросившего",
    "approval_state_approved_task": "Одобрено — изменение запущено задачей",
    "approval_task": "Задача",
    "approval_task_open": "Открыть задачу",
    "approval_mcp_prompt": (
        "Запрос сделан из клиента MCP: изменение выполнится от вашего имени ровно по плану, "
        "показанному здесь; где нужны два человека, после вас его одобрит второй."
    ),
    "approval_held_prompt": (
        "Запрос сделан через API: изменение выполнится от имени запросившего ровно по плану, "
        "который он видел; если цель с тех пор изменилась, ничего не запишется."
    ),
    "approval_state_denied": "Отклонено",
    "approval_state_expired": "Истекло — ничего не изменено",
    "approval_state_target_moved": "Не применено: цель изменилась с момента запроса",
    "approval_first_not_yours": "Сначала этот запрос одобряет или отклоняет тот, кто его сделал.",
    "approval_own": "Это ваш запрос: одобрить его должен другой человек.",
    "approval_namesake": (
        "Этот запрос сделала прежняя, удалённая учётная запись с вашим именем: решает другой "
        "человек."
    ),
    "approval_not_your_role": "Одобрить может роль «{role}»; у вас — «{yours}».",
    "approval_link": "Ссылка для второго человека",
    "approval_open": "Открыть",
    "approval_failed": "Не получилось",
    "card_awaiting_second": (
        "Ожидает второго одобрения: {who} подтвердил(а) в {when}; нужен другой человек с ролью "
        "«{role}», до {until}"
    ),
    "card_awaiting_link": "Страница запроса — ссылка для второго человека",
    "card_second_approved": "Одобрено вторым: {who}, {when} (запросил(а) {first})",
    "card_target_moved": "Не применено: цель изменилась с момента запроса ({who}, {when})",
    "tool_awaiting_second": "ожидает второго одобрения",
}
