"""With PROMETHEUS_MULTIPROC_DIR, ``/metrics`` in one worker shows what another worker counted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# A worker that makes two tool calls' worth of counts, then exits.
WORKER = """
from sstools import metrics
metrics.TOOL_CALLS.labels(tool="search_dashboards", outcome="ok").inc(2)
"""

# Another worker that answers the scrape, through the real route.
SCRAPER = """
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sstools.config import Settings
from sstools.http.deps import get_settings
from sstools.web.metrics import router

app = FastAPI()
app.include_router(router)
app.dependency_overrides[get_settings] = lambda: Settings(_env_file=None)
print(TestClient(app).get("/metrics").text)
"""


def _python(code: str, folder: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(folder)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


def test_a_scrape_merges_the_counts_of_every_worker(tmp_path: Path) -> None:
    _python(WORKER, tmp_path)
    _python(WORKER, tmp_path)
    scraped = _python(SCRAPER, tmp_path)
    line = 'sstools_tool_calls_total{outcome="ok",tool="search_dashboards"} 4.0'
    assert line in scraped.splitlines()
