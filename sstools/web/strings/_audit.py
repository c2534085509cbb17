"""The words of /audit: the agent's writes as they were asked, approved and run."""

from __future__ import annotations

AUDIT = {
    "audit": "Журнал действий",
    "audit_short": "Журнал",
    "audit_intro": (
        "Каждое изменение, которое агент (в чате или через MCP) или API предложил и которое "
        "одобрили или отклонили: кто просил, что, кто одобрил, какая задача и чем закончилась."
    ),
    "audit_intro_own": "Вы видите только свои действия: те, что просили или решали вы.",
    "audit_forbidden": "Журнал действий доступен инженерам и администраторам.",
    "audit_none": "За выбранное время таких действий нет",
    "audit_when": "Когда",
    "audit_who": "Кто просил",
    "audit_what": "Что",
    "audit_approved_by": "Одобрили",
    "audit_refused_by": "отклонил(а): {who}",
    "audit_outcome": "Итог",
    "audit_task": "Задача",
    "audit_digest": "план {digest}",
    "audit_rolled_back": "Откачено:",
    "audit_reason": "причина: {reason}",
    "audit_nobody": "—",
    "audit_call_failed": "Не выполнено: {why}",
    "audit_call_failed_unknown": "вызов не удался",
    "audit_face_chat": "чат",
    "audit_face_mcp": "MCP",
    "audit_face_api": "API",
    "audit_outcome_approved": "одобрено",
    "audit_outcome_refused": "отклонено",
    "audit_outcome_failed": "сбой",
    "audit_filter_person": "Кто просил",
    "audit_filter_tool": "Действие",
    "audit_filter_outcome": "Итог",
    "audit_filter_from": "С",
    "audit_filter_to": "По",
    "audit_export": "Скачать CSV",
    "audit_next": "Раньше →",
    "audit_first": "← К новым",
    "audit_bad_date": "«{field}»: дата в виде ГГГГ-ММ-ДД, например 2026-12-01 (получено «{value}»)",
    "audit_bad_range": "«По» не может быть раньше «С»",
    "audit_bad_outcome": "«Итог»: одно из approved, refused, failed (получено «{value}»)",
    "audit_bad_tool": "«Действие»: такого изменяющего действия нет (получено «{value}»)",
    "audit_bad_env": "«Окружение»: такого окружения нет (получено «{value}»); есть: {known}",
    "audit_bad_after": "«after»: ссылка на следующую страницу испорчена — откройте первую",
    "audit_bad_size": "«size»: от 1 до {max} строк на странице",
    "audit_bad_person": "«Кто просил»: имя до 64 символов",
    "audit_tool_deploy_dashboard": "Выкатка дашборда",
    "audit_tool_execute_migration": "Миграция дашбордов",
    "audit_tool_rollback_deploy": "Откат выкатки",
    "audit_tool_restore_backup": "Восстановление из резервной копии",
    "audit_tool_run_backup": "Резервная копия окружения",
    "audit_tool_superset_execute_sql": "Изменение данных SQL",
    "audit_tool_superset_create_dataset": "Создание датасета",
    "audit_tool_create_branch": "Создание ветки",
    "audit_tool_commit_changes": "Коммит изменений",
    "audit_csv_columns": (
        "когда (UTC),кто просил,откуда,действие,окружение,объекты,одобрили,отклонил,итог,"
        "причина,план,задача,состояние задачи,результат,откат"
    ),
}
