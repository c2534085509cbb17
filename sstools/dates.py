"""Dates as people write them in Russian: «30 ноября 2026, 00:19», not ISO 8601."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo

# Genitive: the month follows the day («30 ноября»), so it is never the nominative «ноябрь».
MONTHS_GENITIVE = (
    "января",
    "февраля",
    "марта",
    "апреля",
    "мая",
    "июня",
    "июля",
    "августа",
    "сентября",
    "октября",
    "ноября",
    "декабря",
)


def human_datetime(value: datetime | str | None, zone: tzinfo = UTC) -> str:
    """``value`` in ``zone`` as «30 ноября 2026, 00:19»; a naive value is taken as UTC.

    Superset's ``changed_on_utc`` comes without an offset, and our models already read it as
    UTC; a string is accepted so templates may pass what JSON gave them.
    """
    if value is None or value == "":
        return "—"
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    local = moment.astimezone(zone)
    month = MONTHS_GENITIVE[local.month - 1]
    return f"{local.day} {month} {local.year}, {local:%H:%M}"
