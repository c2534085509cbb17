"""Async client for the Apache Superset REST API. Knows nothing of the agent."""

from sstools.superset._session import SessionKeys
from sstools.superset.client import SupersetClient, SupersetPool
from sstools.superset.errors import (
    SupersetAuthError,
    SupersetBadRequest,
    SupersetError,
    SupersetForbidden,
    SupersetNotFound,
    SupersetUnavailable,
)

__all__ = [
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
