"""A fake Superset whose dashboards are numbered, served over HTTP by a process of its own.

Dashboard *n* is titled ``Дашборд n``; :data:`NAMED` finds the numbers an answer names, which is
how ``bench/scale.py`` tells an answer about another conversation's dashboard (cross-talk).
"""

from __future__ import annotations

import multiprocessing
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sstools.testing import free_port
from sstools.testing.fake_superset import FakeSuperset
from sstools.testing.fleet import SupersetOverHttp


def title(dashboard_id: int) -> str:
    return f"Дашборд {dashboard_id}"


NAMED = re.compile(r"«Дашборд (\d+)»")


def _fake(dashboards: int) -> FakeSuperset:
    return FakeSuperset(
        dashboards=[
            {"id": i, "dashboard_title": title(i), "published": True}
            for i in range(1, dashboards + 1)
        ]
    )


def _serve_fake(port: int, dashboards: int, ready: Any) -> None:
    """The fake Superset in its own process, so it does not share the client's interpreter."""
    superset = SupersetOverHttp(_fake(dashboards), port=port)
    with superset:
        ready.set()
        while True:
            time.sleep(3600)


@contextmanager
def fake_superset_process(dashboards: int) -> Iterator[str]:
    """The URL of a fake Superset with ``dashboards`` dashboards, served by a child process."""
    port = free_port()
    context = multiprocessing.get_context("spawn")
    ready = context.Event()
    process = context.Process(target=_serve_fake, args=(port, dashboards, ready), daemon=True)
    process.start()
    try:
        if not ready.wait(60):
            raise RuntimeError("the fake Superset did not start")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.join(10)
