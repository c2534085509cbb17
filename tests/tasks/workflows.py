"""Workflows for the task tests: each step appends its number to a file, optionally waiting
for a flag file first, so a test controls exactly where a workflow is when it looks (or kills)."""

from __future__ import annotations

import time
from pathlib import Path

from sstools.tasks import TaskFailed, context, task_step, task_workflow

LOG = "steps.log"
GATE_TIMEOUT_S = 120.0


def gate(folder: Path, step: int) -> Path:
    return folder / f"go-{step}"


def written(folder: Path) -> list[int]:
    path = folder / LOG
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def _append(folder: str, step: int, gated: bool) -> int:
    deadline = time.monotonic() + GATE_TIMEOUT_S
    while gated and not gate(Path(folder), step).exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"nobody opened {gate(Path(folder), step)}")
        time.sleep(0.01)
    with (Path(folder) / LOG).open("a") as log:
        log.write(f"{step}\n")
    return step


@task_workflow
def write_steps(task_id: str, folder: str, total: int, gated: bool = False) -> dict[str, object]:
    """Steps 1..total, each checkpointed; the result names the environment from the context."""
    done = [
        task_step(task_id, n, total, f"шаг {n}", _append, folder, n, gated)
        for n in range(1, total + 1)
    ]
    return {"steps": done, "environments": list(context().environments)}


@task_workflow
def fragile(task_id: str, folder: str) -> dict[str, object]:
    """Step 2 must not run twice (think: a half-done import): after a kill the task fails."""
    task_step(task_id, 1, 3, "шаг 1", _append, folder, 1, True)
    task_step(task_id, 2, 3, "шаг 2", _append, folder, 2, True, resumable=False)
    task_step(task_id, 3, 3, "шаг 3", _append, folder, 3, True)
    return {"steps": [1, 2, 3]}


@task_workflow
def half_done(task_id: str, folder: str) -> dict[str, object]:
    """Fails at step 2 with a partial report."""
    task_step(task_id, 1, 2, "шаг 1", _append, folder, 1, False)
    raise TaskFailed("шаг 2 не удался: цель недоступна", {"imported": ["A"], "not_imported": ["B"]})


@task_workflow
def leaky(task_id: str, folder: str, secret: str) -> dict[str, object]:
    """Fails with an unexpected error whose text quotes a credential, as a client's error may."""
    task_step(task_id, 1, 1, "шаг 1", _append, folder, 1, False)
    raise RuntimeError(f"401 from the endpoint: Authorization: Bearer {secret}")
