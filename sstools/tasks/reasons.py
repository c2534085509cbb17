"""What a task's reason may say of an error: the reason is kept on the task record, which every
user reads (and the model, through ``get_task_status``)."""

from __future__ import annotations

import httpx
import structlog

from sstools.superset import SupersetError, SupersetUnavailable
from sstools.tasks.serializer import RecordedStepError
from sstools.texts import tasks as texts
from sstools.texts import transport

_log = structlog.get_logger(__name__)


def error_words(exc: BaseException) -> str:
    """What a task's reason may say of ``exc``: Superset's own text (an import's refusal can
    name a driver's settings and ``encrypted_extra``'s keys) becomes a fixed sentence with the
    HTTP status, the text going to the server's log; no answer at all keeps our own words (a
    timeout, an unreachable address); a connection's own failure its kind; any other error its
    message."""
    if isinstance(exc, SupersetUnavailable) and exc.status is None:
        return exc.message
    if isinstance(exc, SupersetError):
        _log.warning(
            "task_superset_error",
            env_id=exc.env_id,
            status=exc.status,
            error=type(exc).__name__,
            message=exc.message,
        )
        if exc.status is None:
            return texts.SUPERSET_REFUSED_NO_STATUS.format(env=exc.env_id)
        return texts.SUPERSET_REFUSED.format(env=exc.env_id, status=exc.status)
    if isinstance(exc, RecordedStepError) and exc.type_name.startswith("Superset"):
        # Read back after a restart: its text is Superset's, its status not recorded.
        _log.warning("task_superset_error", error=exc.type_name, message=str(exc))
        return texts.SUPERSET_REFUSED_RECORDED
    if isinstance(exc, httpx.HTTPError | OSError):  # their text is English, maybe with an address
        _log.warning("task_connection_error", error=type(exc).__name__, message=str(exc))
        return transport.reason(exc)
    return str(exc)
