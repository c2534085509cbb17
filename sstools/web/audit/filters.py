"""The audit's filters as the address gives them (the page's form, ``GET /api/audit``, the CSV),
read into :class:`AuditFilters` once: a bad value is a 422 naming its field in words, and an
engineer's filters are always narrowed to their own actions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Annotated
from urllib.parse import urlencode

from fastapi import Depends, HTTPException, Query

from sstools.auth.roles import Role
from sstools.auth.tokens import Caller
from sstools.http.auth import CurrentUser
from sstools.http.deps import ServicesDep
from sstools.http.errors import field_error
from sstools.storage.audit_query import (
    PAGE_SIZE_MAX,
    WRITE_TOOLS,
    AuditFilters,
    AuditOutcome,
    Cursor,
)
from sstools.web._kit import PageUser
from sstools.web.strings import UI

PAGE_SIZE = 50
_CURSOR = re.compile(r"^(\d{1,16})\.(\d{1,10})$")  # microseconds since the epoch . row id
_ROW_ID_MAX = 2**31 - 1  # the log's ids are 32-bit integers on PostgreSQL

Text = Annotated[str | None, Query(max_length=200)]


@dataclass(frozen=True)
class AuditQuery:
    """The filters as asked (for the form and the links) and as the query runs them."""

    person: str
    env_id: str
    tool: str
    outcome: str
    date_from: str
    date_to: str
    size: int
    after: Cursor | None

    def filters(self, user: Caller) -> AuditFilters:
        since = _day(self.date_from, "from") if self.date_from else None
        until = _day_after(self.date_to) if self.date_to else None
        return AuditFilters(
            person=self.person or None,
            env_id=self.env_id or None,
            tool=self.tool or None,
            outcome=AuditOutcome(self.outcome) if self.outcome else None,
            since=since,
            until=until,
            own=None if user.role.allows(Role.admin) else user.username,
        )

    def link(self, **changed: str) -> str:
        """The same filters as query parameters, with ``changed`` (for the next page, the CSV)."""
        params = {
            "person": self.person,
            "env_id": self.env_id,
            "tool": self.tool,
            "outcome": self.outcome,
            "from": self.date_from,
            "to": self.date_to,
        } | changed
        return urlencode({key: value for key, value in params.items() if value})


def _day(value: str, field: str) -> datetime:
    try:
        day = date.fromisoformat(value)
    except ValueError:
        day = None
    if day is None or len(value) != 10:
        label = UI[f"audit_filter_{field}"]
        message = UI["audit_bad_date"].format(field=label, value=value[:32])
        raise field_error(field, message, where="query", kind="date_parsing")
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _day_after(value: str) -> datetime | None:
    """The end of the day ``value`` (exclusive); None for the calendar's last day: no end."""
    day = _day(value, "to")
    return None if day.date() == date.max else day + timedelta(days=1)


def encode_cursor(cursor: Cursor) -> str:
    micros = int(cursor.at.timestamp() * 1_000_000)
    return f"{micros}.{cursor.id}"


def _cursor(value: str) -> Cursor:
    match = _CURSOR.match(value)
    if match is None:
        raise field_error("after", UI["audit_bad_after"], where="query")
    micros, row_id = int(match.group(1)), int(match.group(2))
    if row_id > _ROW_ID_MAX:
        raise field_error("after", UI["audit_bad_after"], where="query")
    at = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=micros)
    return Cursor(at=at, id=row_id)


def _choice(value: str | None, allowed: tuple[str, ...], field: str, words: str) -> str:
    value = (value or "").strip()
    if value and value not in allowed:
        raise field_error(field, UI[words].format(value=value[:32]), where="query")
    return value


def audit_query(
    services: ServicesDep,
    person: Text = None,
    env_id: Text = None,
    tool: Text = None,
    outcome: Text = None,
    date_from: Annotated[str | None, Query(alias="from", max_length=32)] = None,
    date_to: Annotated[str | None, Query(alias="to", max_length=32)] = None,
    after: Annotated[str | None, Query(max_length=40)] = None,
    size: Annotated[str | None, Query(max_length=8)] = None,
) -> AuditQuery:
    env = (env_id or "").strip()
    if env and env not in services.environments:
        known = ", ".join(services.environments)
        message = UI["audit_bad_env"].format(value=env[:32], known=known)
        raise field_error("env_id", message, where="query")
    who = (person or "").strip()
    if len(who) > 64:
        raise field_error("person", UI["audit_bad_person"], where="query")
    rows = PAGE_SIZE
    if size:
        if not size.isdecimal() or not 1 <= int(size) <= PAGE_SIZE_MAX:
            message = UI["audit_bad_size"].format(max=PAGE_SIZE_MAX)
            raise field_error("size", message, where="query")
        rows = int(size)
    asked = AuditQuery(
        person=who,
        env_id=env,
        tool=_choice(tool, WRITE_TOOLS, "tool", "audit_bad_tool"),
        outcome=_choice(outcome, tuple(AuditOutcome), "outcome", "audit_bad_outcome"),
        date_from=(date_from or "").strip(),
        date_to=(date_to or "").strip(),
        size=rows,
        after=_cursor(after.strip()) if after and after.strip() else None,
    )
    since = _day(asked.date_from, "from") if asked.date_from else None
    until = _day(asked.date_to, "to") if asked.date_to else None
    if since and until and until < since:
        raise field_error("to", UI["audit_bad_range"], where="query")
    return asked


AuditQueryDep = Annotated[AuditQuery, Depends(audit_query)]


def _audit_reader(user: CurrentUser) -> Caller:
    """Analysts read no audit: a 403 in words, before any filter is read."""
    if not user.role.allows(Role.engineer):
        raise HTTPException(403, UI["audit_forbidden"])
    return user


def _audit_page_reader(user: PageUser) -> Caller:
    return _audit_reader(user)


AuditReader = Annotated[Caller, Depends(_audit_reader)]
AuditPageReader = Annotated[Caller, Depends(_audit_page_reader)]
