"""Async client for the Apache Superset REST API. Knows nothing of the agent."""

from sstools.superset._session import SessionKeys
from sstools.superset.client import SupersetClient, SupersetPool
from sstools.superset.errors import (
    ReleaseTooOld,
    SupersetAuthError,
    SupersetBadRequest,
    SupersetError,
    SupersetForbidden,
    SupersetNotFound,
    SupersetUnavailable,
)

__all__ = [
    "ReleaseTooOld",
    "SessionKeys",
    "SupersetAuthError",
    "SupersetBadRequest",
    "SupersetClient",
    "SupersetError",
    "SupersetForbidden",
    "SupersetNotFound",
    "SupersetPool",
    "SupersetUnavailable",
]
