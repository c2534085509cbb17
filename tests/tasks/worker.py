"""A sstools server process for the kill -9 tests: ``python -m tests.tasks.worker CONFIG.json``.

It builds the real app (whose start-up recovers tasks), optionally starts one task of
:mod:`tests.tasks.workflows`, prints JSON lines (``started``, ``recovered``) and exits once no
task is unfinished — unless it is killed first, which is the point.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from sstools.app import create_app
from sstools.config import Settings
from sstools.logs import configure_logging
from sstools.tasks import TaskKind, _runtime
from tests.tasks import workflows
from tests.tasks.support import eventually


def _say(**line: Any) -> None:
    print(json.dumps(line), flush=True)


async def main(config: dict[str, Any]) -> None:
    began = time.perf_counter()
    configure_logging("WARNING")
    settings = Settings(_env_file=None, **config["settings"])
    app = create_app(settings)
    tasks = app.state.services.tasks
    async with app.router.lifespan_context(app):
        _say(
            event="recovered",
            seconds=time.perf_counter() - began,
            launch_seconds=_runtime.launch_seconds,
        )
        if "start" in config:
            workflow = getattr(workflows, config["start"]["workflow"])
            task = await tasks.start(
                TaskKind.migration,
                env_id="ss-dev",
                source="git:main",
                objects=["Energy KPIs"],
                object_keys=["dashboard:energy"],
                started_by="engineer",
                workflow=workflow,
                args=config["start"]["args"],
            )
            _say(event="started", task_id=task.id, launch_seconds=_runtime.launch_seconds)

        async def idle() -> bool:
            return all(task.status.finished for task in await tasks.list(limit=500))

        await eventually(idle, timeout_s=300)
        _say(event="idle", seconds=time.perf_counter() - began)


if __name__ == "__main__":
    asyncio.run(main(json.loads(Path(sys.argv[1]).read_text())))
