"""Russian text of what the Superset client itself says (Superset's own words pass through)."""

from __future__ import annotations

TIMED_OUT = "нет ответа вовремя ({path})"
UNREACHABLE = "недоступен по адресу {url}: {error}"
ACCOUNT_REJECTED = "сервисная учётная запись отклонена: {message}"
LOGIN_REFUSED = "вход сервисной учётной записи отклонён; проверьте её секрет"
SUPERSET_FAILED = "Superset ответил HTTP {status}"
HTTP_STATUS = "HTTP {status}: {message}"
NO_DETAILS = "без подробностей"
RELEASE_TOO_OLD = (
    "работает на Superset {release}, а sstools сопоставляет объекты окружений по UUID, которых "
    "списки Superset до 5.0 не отдают; обновите его до 5.0 или новее"
)
NO_SCHEMA = "схемы {schema!r} нет в базе {database}"
NO_TABLE = "таблицы {table!r} нет в схеме {schema!r} базы {database}"
