"""Issue 39 §1: ``GET /api/audit`` stays fast over a big audit log.

A fresh SQLite database gets ``LOG_ROWS`` audit rows shaped as the app writes them: mostly the
executor's read calls (no action of anyone's), with one decided chat card in ten and one MCP
request in forty, their cards, requests and tasks. The app runs in this process; an admin asks
for the first page (50 actions), and for a filtered one (one person's refusals in prod), ``VIEWS``
times each. Baseline, in the same run: what grouping the log without the query would cost —
read every row of the log, newest first, and keep the actions' rows in Python.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import uuid4

import httpx
import yaml
from sqlalchemy import insert, select

from bench.sandbox_app import bench_user
from bench.table import Row
from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.storage.db import create_engine, session_factory
from sstools.storage.models import AuditEntry, Confirmation, TaskRecord, WriteRequest

LOG_ROWS = 100_000
VIEWS = 20
GOAL_RATIO = 0.10
PEOPLE = ("engineer", "engineer2", "admin", "analyst")
ENVS = ("dev", "prod")


def _settings(root: Path) -> Settings:
    """One dev and one prod environment nobody listens on: the audit asks Superset nothing."""
    (root / "secrets.env").write_text("SVC_PASSWORD=x\n")
    environments = [
        {
            "id": env,
            "name": env.title(),
            "stage": env,
            "url": "http://127.0.0.1:9",
            "username": "svc",
            "password_env": "SVC_PASSWORD",
        }
        for env in ENVS
    ]
    document = {"environments": environments, "secrets_file": "secrets.env"}
    (root / "environments.yaml").write_text(yaml.safe_dump(document))
    return Settings(
        _env_file=None,
        database_url=f"sqlite:///{root / 'sstools.db'}",
        checkpoints_file=root / "checkpoints.db",
        environments_file=root / "environments.yaml",
        git_dir=root / "git",
        backup_dir=root / "backups",
        bundle_dir=root / "bundles",
        llm_base_url=None,
        drift_watch_cron="",
    )


def _card(n: int, at: datetime, task_id: str) -> dict[str, Any]:
    env = ENVS[n % 2]
    event = {
        "tool": "deploy_dashboard",
        "title": "Выкатка дашборда",
        "decision": {
            "kind": "write",
            "digest": f"{n:064x}",
            "objects": [f"дашборд «Отчёт {n}»: изменить (css)"],
        },
    }
    return {
        "id": uuid4().hex,
        "conversation_id": uuid4().hex,
        "interrupt_id": "i",
        "call_id": f"call_{n}",
        "tool": "deploy_dashboard",
        "args_hash": "h",
        "env_id": env,
        "username": PEOPLE[n % 3],
        "event": event,
        "status": "approved",
        "created_at": at,
        "expires_at": at + timedelta(minutes=5),
        "task_id": task_id,
    }


def _log(now: datetime) -> tuple[list[dict[str, Any]], ...]:
    entries: list[dict[str, Any]] = []
    cards: list[dict[str, Any]] = []
    requests: list[dict[str, Any]] = []
    tasks: list[dict[str, Any]] = []
    for n in range(LOG_ROWS):
        at = now - timedelta(seconds=LOG_ROWS - n)
        who = PEOPLE[n % 3]
        if n % 10 == 0:
            task_id = uuid4().hex
            card = _card(n, at, task_id)
            cards.append(card)
            tasks.append(
                {
                    "id": task_id,
                    "kind": "deploy",
                    "workflow": "bench",
                    "objects": [f"Отчёт {n}"],
                    "env_id": card["env_id"],
                    "started_by": who,
                    "status": "succeeded",
                    "created_at": at,
                }
            )
            outcome = "denied" if n % 70 == 0 else "approved"
            detail = {"confirmation_id": card["id"], "conversation_id": card["conversation_id"]}
            entries.append(
                {"at": at, "username": who, "action": "confirmation_decided", "outcome": outcome}
                | {"env_id": None, "detail": detail}
            )
        elif n % 40 == 5:
            request_id = uuid4().hex
            requests.append(
                {
                    "id": request_id,
                    "kind": "deploy",
                    "body": {},
                    "env_id": "prod",
                    "digest": f"{n:064x}",
                    "title": f"Выкатка в Prod: «Отчёт {n}»",
                    "objects": [f"Отчёт {n}"],
                    "requested_by": who,
                    "requester_id": "u",
                    "requester_token_version": 0,
                    "approver_role": "engineer",
                    "status": "approved",
                    "created_at": at,
                    "expires_at": at + timedelta(hours=1),
                    "decided_by": "engineer2",
                }
            )
            detail = {"write_request_id": request_id, "kind": "deploy", "requested_by": who}
            entries.append(
                {"at": at, "username": "engineer2", "action": "write_request_decided"}
                | {"outcome": "approved", "env_id": "prod", "detail": detail}
            )
        else:
            detail = {"tool": "list_tasks", "kind": "read", "attempts": 1, "latency_ms": 12}
            entries.append(
                {"at": at, "username": who, "action": "tool_call", "outcome": "ok"}
                | {"env_id": ENVS[n % 2], "detail": detail}
            )
    return entries, cards, requests, tasks


async def _fill(settings: Settings) -> None:
    entries, cards, requests, tasks = _log(datetime.now(UTC))
    engine = create_engine(settings.database_url)
    async with session_factory(engine)() as session:
        for table, rows in (
            (Confirmation, cards),
            (WriteRequest, requests),
            (TaskRecord, tasks),
            (AuditEntry, entries),
        ):
            for start in range(0, len(rows), 5000):
                await session.execute(insert(table), rows[start : start + 5000])
        await session.commit()
    await engine.dispose()


async def _naive(settings: Settings) -> float:
    """The baseline: the whole log read, newest first, its actions' rows kept in Python."""
    engine = create_engine(settings.database_url)
    began = time.perf_counter()
    async with session_factory(engine)() as session:
        rows = await session.execute(
            select(AuditEntry).order_by(AuditEntry.at.desc(), AuditEntry.id.desc())
        )
        kept = [
            entry
            for (entry,) in rows
            if entry.action in ("confirmation_decided", "write_request_decided")
        ][:50]
    took = time.perf_counter() - began
    await engine.dispose()
    assert len(kept) == 50
    return took


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


async def _measure(root: Path) -> dict[str, float]:
    settings = _settings(root)
    token = await bench_user(settings, Role.admin)
    await _fill(settings)
    app = create_app(settings)
    results: dict[str, float] = {}
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://sstools.bench",
            headers={"Authorization": f"Bearer {token}"},
            timeout=60,
        ) as client,
    ):
        for name, params in (
            ("first", {"size": "50"}),
            ("filtered", {"person": "engineer", "env_id": "dev", "outcome": "refused"}),
        ):
            assert (await client.get("/api/audit", params=params)).status_code == 200
            times = []
            for _ in range(VIEWS):
                began = time.perf_counter()
                answer = await client.get("/api/audit", params=params)
                times.append(time.perf_counter() - began)
                assert answer.status_code == 200, answer.text
                assert answer.json()["rows"], name
            results[name] = _median(times)
    results["naive"] = _median([await _naive(settings) for _ in range(3)])
    return results


def rows() -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        measured = asyncio.run(_measure(Path(tmp)))
    naive = measured["naive"]
    baseline = f"whole log read and grouped in Python: {naive * 1000:.0f} ms"
    out = []
    for name, metric in (
        ("first", f"GET /api/audit, first page of 50 over {LOG_ROWS:_} log rows, median ms"),
        ("filtered", "GET /api/audit, one person's refusals in one environment, median ms"),
    ):
        ratio = measured[name] / naive
        out.append(
            Row(
                area="audit page",
                metric=metric.replace("_", " "),
                measured=f"{measured[name] * 1000:.0f}",
                baseline=baseline,
                ratio=ratio,
                goal=f"≤ {GOAL_RATIO:.2f}×",
                met=ratio <= GOAL_RATIO,
            )
        )
    return out
