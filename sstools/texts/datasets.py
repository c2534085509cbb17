"""Russian text of creating datasets: what a request lacks and what Superset or the SQL refuses."""

from __future__ import annotations

TABLE_OR_SQL = "укажите table (физический набор данных) или sql и name (виртуальный)"
NOT_BOTH = "укажите table или sql, но не оба"
NAME_MISSING = "виртуальному набору данных нужно имя (name)"
SCHEMA_MISSING = "физическому набору данных нужна схема таблицы (schema)"
NO_DATABASE = "базы {database} нет в {env!r}"
NO_SCHEMA = "схемы {schema!r} нет в базе {database!r} (есть: {known})"
NO_SCHEMAS = "никаких"
NO_TABLE = "таблицы {table!r} нет в схеме {schema!r} базы {database!r}"
DATABASE_SILENT = "база {name!r} (id {id}) в окружении {env!r} не отвечает: {message}"
EXISTS = "набор данных {name!r} уже есть в базе {database!r} (id {id})"
SQL_WRITES = "виртуальный набор данных может только читать, а этот SQL пишет ({reason})"
SQL_SEVERAL = "виртуальный набор данных — один запрос, а не несколько"
SQL_FAILS = "запрос не выполняется: {message}"
