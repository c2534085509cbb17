"""What DBOS stores of a task — workflow inputs, step outputs, errors — as JSON, never pickles.

DBOS's default serializer pickles, and a pickle read back runs whatever code it names: write
access to the system database would be code execution in every worker. This serializer writes
only JSON values (``None``, bool, int, float, str, lists, dicts with string keys) — and a
datetime, the time of a scheduled tick, as tagged ISO text — and refuses anything else when it
is *written*, so a workflow handing DBOS an object fails at once, in
tests, rather than losing it. Exceptions (a step's failure DBOS checkpoints) are written as
their type's name and message; reading one back rebuilds :class:`TaskFailed` with its reason
and report, any other as :class:`RecordedStepError` — data only, no class is looked up by name.

DBOS also reads a row by the serializer named in it, and would still unpickle a row that says
``py_pickle``: :func:`refuse_pickles` takes that reader away, so a forged row fails to load
instead of running code. Tasks' system databases are new with this serializer (sstools-1 never
shipped pickled rows to keep), so nothing stored earlier needs reading.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import dbos._serialization as dbos_serialization
from dbos import Serializer

from sstools.errors import SstoolsError
from sstools.tasks.failure import TaskFailed

NAME = "sstools_json"
_TAG = "__sstools__"  # marks an encoded exception; a plain dict may not use this key


class RecordedStepError(SstoolsError):
    """A step's failure read back from a checkpoint: its original type's name and message."""

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(message)
        self.type_name = type_name


class JsonSerializer(Serializer):
    def name(self) -> str:
        return NAME

    def serialize(self, data: Any) -> str:
        return json.dumps(_encode(data), ensure_ascii=False, separators=(",", ":"))

    def deserialize(self, serialized_data: str) -> Any:
        return _decode(json.loads(serialized_data))


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):  # DBOS passes a workflow's arguments as a tuple
        return [_encode(item) for item in value]
    if isinstance(value, dict):
        if _TAG in value:
            raise TypeError(f"a task value may not hold the key {_TAG!r}")
        if not all(isinstance(key, str) for key in value):
            raise TypeError("a task value's dict keys must be strings")
        return {key: _encode(item) for key, item in value.items()}
    if isinstance(value, datetime):  # the scheduler's tick time, the one date DBOS writes
        return {_TAG: "datetime", "iso": value.isoformat()}
    if isinstance(value, TaskFailed):
        return {_TAG: "task_failed", "reason": value.reason, "result": _encode(value.result)}
    if isinstance(value, BaseException):
        type_name = (
            value.type_name if isinstance(value, RecordedStepError) else type(value).__name__
        )
        return {_TAG: "error", "type": type_name, "message": str(value)}
    raise TypeError(
        f"{type(value).__name__} is not a JSON value: a task's inputs and step outputs must be "
        "plain data (str, int, float, bool, None, lists, dicts with string keys)"
    )


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    if value.get(_TAG) == "datetime":
        return datetime.fromisoformat(str(value["iso"]))
    if value.get(_TAG) == "task_failed":
        return TaskFailed(str(value["reason"]), _decode(value.get("result")))
    if value.get(_TAG) == "error":
        return RecordedStepError(str(value.get("type")), str(value.get("message")))
    return {key: _decode(item) for key, item in value.items()}


class _PicklesRefused(Serializer):
    """Stands in for DBOS's pickle serializer: a row that claims to be a pickle is not read."""

    def name(self) -> str:
        return "py_pickle"

    def serialize(self, data: Any) -> str:
        raise TypeError("sstools never writes pickles into the task system database")

    def deserialize(self, serialized_data: str) -> Any:
        raise TypeError("a pickled value in the task system database is refused (not unpickled)")


def refuse_pickles() -> None:
    """Make DBOS refuse to unpickle any row (its module-level default serializer, replaced)."""
    dbos_serialization.DBOSDefaultSerializer = _PicklesRefused()
