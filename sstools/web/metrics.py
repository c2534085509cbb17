"""``GET /metrics``: the Prometheus metrics of :mod:`sstools.metrics`, in the text format.

Open unless ``SSTOOLS_METRICS_TOKEN`` is set; then Prometheus sends it as a bearer token
(``authorization: {credentials: …}`` in its scrape config). With ``PROMETHEUS_MULTIPROC_DIR`` set,
the answer merges every worker's counts (prometheus_client's multiprocess mode).
"""

from __future__ import annotations

import os
import secrets

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)

from sstools.http.deps import SettingsDep
from sstools.texts import http as texts

router = APIRouter(include_in_schema=False)


def _registry() -> CollectorRegistry:
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return REGISTRY
    merged = CollectorRegistry()  # a fresh one per scrape, as prometheus_client asks
    multiprocess.MultiProcessCollector(merged)  # type: ignore[no-untyped-call]
    return merged


@router.get("/metrics")
async def prometheus_metrics(request: Request, settings: SettingsDep) -> Response:
    if settings.metrics_token is not None:
        expected = f"Bearer {settings.metrics_token.get_secret_value()}"
        sent = request.headers.get("Authorization", "")
        if not secrets.compare_digest(expected.encode(), sent.encode()):
            raise HTTPException(
                401,
                texts.METRICS_UNAUTHORIZED,
                headers={"WWW-Authenticate": "Bearer"},
            )
    return Response(generate_latest(_registry()), media_type=CONTENT_TYPE_LATEST)
