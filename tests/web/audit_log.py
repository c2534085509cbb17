"""An audit log as the app writes it, for the /audit tests (tests/web and tests/browser):
:func:`seed_audit` says what is in it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from uuid import uuid4

from sstools import clock
from sstools.config import Settings
from sstools.storage import audit
from sstools.storage.db import create_engine, session_factory
from sstools.storage.models import Confirmation, TaskRecord, WriteRequest
from tests.rig import store_rows, task_record

FORMULA_NAME = '=HYPERLINK("http://evil.test","Отчёт")'


def make_card(
    tool: str, env_id: str, by: str, *, kind: str = "write", **decision: Any
) -> Confirmation:
    now = clock.now()
    event = {
        "type": "confirm_required",
        "tool": tool,
        "title": {"deploy_dashboard": "Выкатка дашборда"}.get(tool, "Выполнение SQL"),
        "decision": {"kind": kind, "env_id": env_id, **decision},
    }
    return Confirmation(
        id=uuid4().hex,
        conversation_id=uuid4().hex,
        interrupt_id="i",
        call_id=f"call_{uuid4().hex[:6]}",
        tool=tool,
        args_hash="h",
        env_id=env_id,
        username=by,
        event=event,
        status="approved",
        created_at=now,
        expires_at=now + timedelta(minutes=5),
    )


async def log_entry(settings: Settings, ago: timedelta, **entry: Any) -> None:
    """One audit row written by the app's own writer, ``ago`` before now."""
    engine = create_engine(settings.database_url)
    async with session_factory(engine)() as session:
        with clock.moved_to(clock.now() - ago):
            await audit.record(session, **entry)
    await engine.dispose()


async def log_decision(
    settings: Settings, ago: timedelta, card: Confirmation, outcome: str, **detail: Any
) -> None:
    """The row the app writes when the card's person decides it (``outcome``), ``ago`` before
    now; ``detail`` adds to it or overrides who decided and which card."""
    await log_entry(
        settings,
        ago,
        **{
            "action": "confirmation_decided",
            "outcome": outcome,
            "username": card.username,
            "conversation_id": card.conversation_id,
            "confirmation_id": card.id,
            **detail,
        },
    )


def _two_people_deploy() -> tuple[Confirmation, TaskRecord, TaskRecord]:
    """A prod deploy the engineer asked for and engineer2 approved, and the rollback that undid
    it twenty minutes later."""
    card = make_card(
        "deploy_dashboard",
        "prod",
        "engineer",
        digest="a" * 64,
        objects=["дашборд «Отчёт по энергопотреблению»: изменить (css)"],
    )
    card.first_approved_by, card.second_by = "engineer", "engineer2"
    card.task_id = uuid4().hex
    now = clock.now()
    snapshot = {"commit": "c" * 40, "files": 6}
    deploy = task_record(
        id=card.task_id,
        objects=["Отчёт по энергопотреблению"],
        env_id="prod",
        approved_by="engineer2",
        result={"imported": ["Отчёт по энергопотреблению"], "snapshot": snapshot},
        created_at=now - timedelta(minutes=30),
    )
    rollback = task_record(
        kind="rollback",
        objects=["Отчёт по энергопотреблению"],
        env_id="prod",
        created_at=now - timedelta(minutes=20),
    )
    return card, deploy, rollback


async def seed_audit(settings: Settings) -> dict[str, Any]:
    """A prod deploy two people approved and a rollback undid, a dev deploy the engineer approved
    alone (its object named like a formula), a prod SQL change the admin asked and denied, an
    MCP deploy of the engineer's whose task failed, an old deploy, and a read the engineer
    confirmed — plus reads nobody confirmed and a card's edit."""
    dev = make_card(
        "deploy_dashboard", "ss-dev", "engineer", digest="d" * 64, objects=[FORMULA_NAME]
    )
    dev.task_id = uuid4().hex
    sql = make_card(
        "superset_execute_sql",
        "prod",
        "admin",
        arguments=[{"label": "SQL", "value": "DELETE FROM sales"}],
    )
    old = make_card(
        "deploy_dashboard",
        "ss-dev",
        "engineer",
        digest="e" * 64,
        objects=["дашборд «Склад»: изменить"],
    )
    read = make_card("superset_execute_sql", "ss-dev", "engineer", kind="read")
    failed_task = task_record(objects=["Продажи"], status="failed", error="Superset не ответил")
    dev_task = task_record(id=dev.task_id, objects=["Отчёт"], result={"imported": ["Отчёт"]})
    held = WriteRequest(
        kind="deploy",
        body={},
        env_id="ss-dev",
        digest="f" * 64,
        title="Выкатка в Dev: «Продажи»",
        objects=["Продажи"],
        requested_by="engineer",
        requester_id="u",
        requester_token_version=0,
        approver_role="engineer",
        status="approved",
        expires_at=clock.now() + timedelta(hours=1),
        decided_by="engineer",
        task_id=failed_task.id,
    )
    prod, prod_task, rollback = _two_people_deploy()
    await store_rows(
        settings, dev, sql, old, read, failed_task, dev_task, held, prod, prod_task, rollback
    )
    minute = timedelta(minutes=1)
    await log_entry(
        settings,
        31 * minute,
        action="approval_requested",
        outcome="awaiting_second",
        username="engineer",
        env_id="prod",
        conversation_id=prod.conversation_id,
        confirmation_id=prod.id,
        tool=prod.tool,
        approver_role="engineer",
    )
    await log_entry(
        settings,
        30 * minute,
        action="approval_decided",
        outcome="approved",
        username="engineer2",
        env_id="prod",
        requested_by="engineer",
        first_approved_by="engineer",
        second_by="engineer2",
        conversation_id=prod.conversation_id,
        confirmation_id=prod.id,
        tool=prod.tool,
    )
    for _ in range(5):  # reads, as the executor logs every call: no action of anyone's
        await log_entry(
            settings,
            minute,
            action="tool_call",
            outcome="ok",
            username="engineer",
            tool="list_tasks",
            kind="read",
        )
    await log_decision(settings, timedelta(days=10), old, "approved")
    await log_decision(  # the dev card was edited first: the edit closes nothing
        settings,
        5 * minute,
        dev,
        "edited",
        confirmation_id=uuid4().hex,
        reason="цель: Superset prod → Superset dev",
    )
    await log_decision(settings, 4 * minute, read, "approved")
    await log_decision(settings, 3 * minute, dev, "approved")
    await log_decision(settings, 2 * minute, sql, "denied", reason="+не сегодня")
    await log_entry(
        settings,
        2 * minute,
        action="approval_requested",
        outcome="awaiting_first",
        username="engineer",
        env_id="ss-dev",
        write_request_id=held.id,
        kind="deploy",
        face="mcp",
    )
    await log_entry(
        settings,
        minute,
        action="write_request_decided",
        outcome="first_approved",
        username="engineer",
        env_id="ss-dev",
        write_request_id=held.id,
        kind="deploy",
        requested_by="engineer",
    )
    await log_entry(
        settings,
        minute,
        action="write_request_decided",
        outcome="approved",
        username="engineer",
        env_id="ss-dev",
        write_request_id=held.id,
        kind="deploy",
        requested_by="engineer",
        task_id=failed_task.id,
    )
    return {
        "prod": prod,
        "rollback": rollback,
        "dev": dev,
        "sql": sql,
        "old": old,
        "held": held,
        "failed_task": failed_task,
    }
