"""Russian text of what the Superset client itself says (Superset's own words pass through)."""

from __future__ import annotations

TIMED_OUT = "нет ответа вовремя ({path})"
UNREACHABLE = "недоступен по адресу {url}: {error}"
ACCOUNT_REJECTED = "сервисная учётная запись отклонена: {message}"
LOGIN_REFUSED = "вход сервисной учётной записи отклонён; проверьте её секрет"
SUPERSET_FAILED = "Superset ответил HTTP {status}"
HTTP_STATUS = "HTTP {status}: {message}"
NO_DETAILS = "без подробностей"
NO_SCHEMA = "схемы {schema!r} нет в базе {database}"
NO_TABLE = "таблицы {table!r} нет в схеме {schema!r} базы {database}"
