"""The agent page's words: the chat, its cards and their decisions, the context line."""

from __future__ import annotations

AGENT = {
    "message_placeholder": "Спросите про этот объект…",
    "message_placeholder_general": "Спросите про дашборды, датасеты, выкатки…",
    "send": "Отправить",
    "wait_run": "Агент ещё отвечает — дождитесь окончания",
    "confirm": "Подтвердить",
    "deny": "Отклонить",
    "dismiss": "Закрыть",
    "access_denied": "Недостаточно прав",
    "production": "⚠️ ПРОДУКТИВ",
    "read_only": "чтение данных",
    "tool_running": "выполняется",
    "tool_done": "готово",
    "tool_waiting": "ждёт подтверждения",
    "tool_declined": "не выполнено: отменено",
    "tool_denied": "отклонено",
    "card_approved": "Подтверждено: {who}, {when}",
    "card_denied": "Отклонено: {who}, {when}",
    "card_denied_because": " — «{reason}»",
    "deny_reason": "Причина отказа",
    "deny_reason_placeholder": "Почему нет? (необязательно — агент учтёт)",
    "card_expired": "Не подтверждено вовремя: {when}",
    "card_edited": "Изменено: {who}, {when} — план пересчитан, см. ниже",
    "edit_card": "Изменить…",
    "edit_replan": "Пересчитать план",
    "edit_nothing": "Ничего не изменено: выберите другое значение",
    "edit_failed": "Не удалось изменить карточку — попробуйте ещё раз",
    "tool_edited": "изменено на карточке",
    "tool_approved_ahead": "выполняется без карточки: вы одобрили похожие в dev",
    "tool_ran_ahead": "без карточки: вы одобрили похожие в dev",
    "task_found": "Найдено ошибок: {errors}, предупреждений: {warnings}.",
    "task_found_nothing": "Ошибок и предупреждений не найдено.",
    "approve_similar": "Одобрять похожие до конца сеанса",
    "approve_similar_title": (
        "Та же операция в том же dev-окружении больше не спросит подтверждения в этом разговоре, "
        "пока вы не выйдете из всех сеансов или не смените пароль, и не дольше срока, заданного "
        "администратором (обычно час)"
    ),
    "card_settled": "Решение уже принято",
    "context_looking": "ищу в {env}…",
    "context_absent_dashboard": "в {env} этого дашборда нет",
    "context_absent_dataset": "в {env} этого датасета нет",
    "context_unknown_dashboard": "{env} не отвечает — неизвестно, есть ли там этот дашборд",
    "context_unknown_dataset": "{env} не отвечает — неизвестно, есть ли там этот датасет",
    "context_filters": "фильтры: {filters}",
    "figure_untitled": "График",
    "entry_not_a_dashboard": "Откройте дашборд в Superset и нажмите закладку ещё раз.",
    "entry_unknown_superset": (
        "Superset по адресу {origin} не подключён к sstools: добавьте его в файл окружений или "
        "откройте дашборд в подключённом окружении."
    ),
    "entry_bad_filters": (
        "Фильтры дашборда не прочитать (их больше 10 или они не той формы): откройте агента без "
        "них — кнопкой «Спросить агента» на странице дашборда в sstools."
    ),
    "entry_title": "Агент из Superset",
    "entry_intro": (
        "Перетащите ссылку на панель закладок браузера. На дашборде в Superset нажмите её: "
        "откроется агент с этим дашбордом, его окружением и фильтрами, как они стоят."
    ),
    "entry_link": "Спросить агента (sstools)",
    "context_filter_except": "кроме",
    "context_more": "ещё {n}",
    "context_chart": "график #{id}",
    "context_sql": "SQL Lab, база #{id}",
    "reconnecting": "Соединение потеряно, переподключаюсь…",
    "session_expired": "сессия истекла, обновите страницу",
    "context_unavailable": "контекст недоступен",
    "timeout": "Превышено время ожидания",
    "error": "Ошибка",
    "arguments": "Параметры",
    "impact": "Влияние",
    # 👍 / 👎 under an answer (the glyphs are the stylesheet's; these are their names).
    "feedback_group": "Оценка ответа",
    "feedback_up": "Хороший ответ",
    "feedback_down": "Плохой ответ",
    "feedback_comment": "Что не так с ответом",
    "feedback_comment_placeholder": "Что не так? (необязательно — поможет исправить агента)",
    "feedback_saved": "Спасибо, оценка сохранена",
    "feedback_commented": "Спасибо, оценка и комментарий сохранены",
    "feedback_failed": "Не удалось сохранить оценку — попробуйте ещё раз",
}


# The empty /agent page offers these, by the page's object (None: no object): questions people
# ask there, each answered by a read (tests/agent/test_suggestions.py asks each one).
SUGGESTIONS: dict[str | None, list[str]] = {
    "dashboard": [
        "Как дела у этого дашборда?",
        "На каких датасетах он построен?",
        "Какие графики на нём сломаны?",
        "Кто последний раз его выкатывал?",
    ],
    "dataset": [
        "Какие колонки в этом датасете?",
        "На каких дашбордах он используется?",
        "Что хранится в этом датасете?",
    ],
    None: [
        "Что сейчас сломано?",
        "Какие дашборды отличаются от git?",
        "Покажи последние задачи",
        "Найди дашборды про продажи",
    ],
}
