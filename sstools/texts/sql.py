"""Russian text of ``/api/sql``: what formatting needs, the operation a write needs a role for."""

from __future__ import annotations

ENV_WITH_DATABASE = "env_id нужен вместе с database_id"
WRITES_OPERATION = "SQL, который пишет ({reason})"
WRITE_OBJECT = "данные базы «{database}»"

# -- why a piece of SQL is a read or a write (sstools/sql), and why it does not parse ----------
ONLY_QUERIES = "только запросы"
NOT_SQL = "{language} — не SQL: sstools не может его прочесть и отличить чтение от записи"
NO_DIALECT = (
    "для {name} в sqlglot нет диалекта, а ни один из {count} диалектов, известных sstools, "
    "этот SQL не читает: отличить чтение от записи нельзя"
)
WRITES_BEFORE_ERROR = "{partial} — ещё до места, где SQL перестаёт разбираться ({reading})"
AS_READ_BY = "как его читает {dialect}"
READ_AS = "{reason} ({reading})"
SPLIT_DIFFERENTLY = "диалекты делят SQL на разное число операторов ({counts})"
EMPTY = "SQL пустой"
NO_STATEMENT = "в SQL нет ни одного оператора"
NOT_READABLE_AS = "SQL не читается как SQL диалекта {dialect}"
GENERIC_DIALECT = "общего"
TOO_DEEP = "SQL вложен слишком глубоко: sstools читает до {levels} уровней вложенности"
TOO_DEEP_HERE = "{too_deep}; в этом SQL — {deepest}"
SESSION = {
    "SET": "SET меняет сеанс для следующих операторов (настройку, роль или схему)",
    "USE": "USE переключает базу данных для следующих операторов",
    "RESET": "RESET меняет сеанс для следующих операторов",
    "DISCARD": "DISCARD меняет сеанс для следующих операторов",
}
STATEMENT = "оператор {keyword}"
NOT_KNOWN_READ_ONLY = "{keyword} — не оператор, про который sstools знает, что он только читает"
BARE_KEYWORD = (
    "{keyword} после запроса начинает отдельный оператор в SQL Server, "
    "где между операторами не нужна «;»"
)
INSIDE_QUERY = "{keyword} внутри запроса"
SELECT_INTO = "SELECT … INTO создаёт таблицу (или задаёт переменные для следующих операторов)"
ROW_LOCKS = "FOR UPDATE/SHARE блокирует строки"
TABLE_HINT = "табличная подсказка {hints} берёт блокировки"
SEQUENCE = "{column} продвигает последовательность"
EXECUTABLE_COMMENT = "MySQL выполняет тело исполняемого комментария /*! … */"
EXPLAIN_NOT_A_QUERY = "EXPLAIN не запроса (а EXPLAIN ANALYZE его выполняет)"
EXPLAIN_UNREADABLE = (
    "EXPLAIN запроса, который sstools не может прочесть (а EXPLAIN ANALYZE его выполняет)"
)
EXPLAIN_WRITES = "EXPLAIN оператора, который пишет ({reason})"
FUNCTION_QUALIFIED = "функция {schema}.{name}() указана со схемой: возможно, пользовательская"
FUNCTION_ACTS = "функция {name}() действует за пределами запроса"
FUNCTION_SETS_SESSION = "функция {name}() с аргументом меняет состояние сеанса"
FUNCTION_UNKNOWN = "про функцию {name}() не известно, что она только читает"
CHAINED = "->> {keyword}: Snowflake выполняет оператор после ->>"
SHOW_CHAINED = "SHOW … ->> выполняет оператор после него"
# Where the parser stopped; its own description (sqlglot's, in English) comes first.
DOES_NOT_PARSE = "SQL не разбирается"
END_OF_SQL = "конец SQL"
AT = "{description}. Строка {line}, столбец {col}"
AT_WORD = "{description}. Строка {line}, столбец {col}, у {token!r}"
NEVER_CLOSED = "«{what}» в строке {line}, столбец {col} открыто и нигде не закрыто"
NO_TOKENS = (
    "SQL не делится на лексемы около {snippet!r}: не остались ли открытыми комментарий или кавычка?"
)
