"""What can go wrong talking to Superset, as a small typed hierarchy::

SupersetError                 any failure; carries the environment id
 ├── SupersetUnavailable      connection refused, timeout, a 5xx that does not blame the input
 ├── SupersetAuthError        the service account's login was refused (check its secret)
 ├── SupersetForbidden        403: the service account lacks that permission
 ├── SupersetNotFound         404: no such object in that environment
 ├── SupersetBadRequest       400/422, or a 5xx whose typed error blames the query
 └── ReleaseTooOld            a release sstools cannot work with (its lists carry no UUIDs)

``message`` is safe to show: :func:`public_text` has taken the backend's internals out of it
(the SQL it ran, driver class names, tracebacks); the client logs the full text.
"""

from __future__ import annotations

import re

from sstools.errors import SstoolsError
from sstools.texts import superset as texts

_TRACEBACK = "Traceback (most recent call last)"
# SQLAlchemy appends the statement it ran and its parameters: our internals, not the user's.
_STATEMENT = re.compile(r"\[(?:SQL|parameters): .*", re.DOTALL)
_BACKGROUND = re.compile(r"\(Background on this error at:[^)]*\)")
_DRIVER_CLASS = re.compile(r"\((?:[\w]+\.)*\w+(?:Error|Exception|Warning)\)\s*")
PUBLIC_TEXT_CHARS = 300


def public_text(raw: str) -> str:
    """A backend's error text without its internals, on one line, at most 300 characters."""
    text = raw.split(_TRACEBACK, 1)[0]
    text = _DRIVER_CLASS.sub("", _BACKGROUND.sub("", _STATEMENT.sub("", text)))
    text = " ".join(text.split())
    if len(text) > PUBLIC_TEXT_CHARS:
        text = text[: PUBLIC_TEXT_CHARS - 1] + "…"
    return text or texts.NO_DETAILS


class SupersetError(SstoolsError):
    def __init__(
        self, env_id: str, message: str, *, field: str | None = None, status: int | None = None
    ) -> None:
        super().__init__(f"{env_id}: {message}")
        self.env_id = env_id
        self.message = message
        self.field = field  # the request field Superset's refusal blames, when known
        self.status = status  # the HTTP status Superset answered with; None: no answer


class SupersetUnavailable(SupersetError):
    """No usable answer: no connection or a timeout (``status`` None), or a 5xx (its status)."""

    def __init__(self, env_id: str, message: str, *, status: int | None = None) -> None:
        super().__init__(env_id, message, status=status)


class SupersetAuthError(SupersetError):
    pass


class SupersetForbidden(SupersetError):
    pass


class SupersetNotFound(SupersetError):
    pass


class SupersetBadRequest(SupersetError):
    pass


class ReleaseTooOld(SupersetError):
    """The environment runs a release older than :data:`sstools.superset.versions.OLDEST`."""

    def __init__(self, env_id: str, release: str) -> None:
        super().__init__(env_id, texts.RELEASE_TOO_OLD.format(release=release))
        self.release = release
