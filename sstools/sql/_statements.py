"""Statements judged by their words where sqlglot's tree alone would mislead.

* A bare alias that is a statement keyword (``SELECT 1 DELETE FROM t``): every dialect sqlglot
  knows reads ``DELETE`` as the alias of ``1``, while SQL Server, which needs no ``;`` between
  statements and reserves the word, runs ``SELECT 1`` and then ``DELETE FROM t``.
* ``SHOW …`` and ``EXPLAIN …``, which most dialects keep as an opaque command: SHOW only reads;
  EXPLAIN is a read when the statement it explains is one (``EXPLAIN ANALYZE`` runs it).
* ``TABLE x`` (``SELECT * FROM x``), which some dialects read as a column ``TABLE`` aliased ``x``.
* ``SET`` and ``USE`` stay writes on purpose, with a reason that says why.
"""

from __future__ import annotations

import itertools

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokenizer_core import Token, TokenType

from sstools.texts import sql as texts


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words SQL Server reserves that begin a statement: after a select list or a table it cannot be
# an alias, so the next statement starts there. Those that only act on what an earlier flagged
# statement made, or only print or jump (OPEN, CLOSE, FETCH, DEALLOCATE, PRINT, RAISERROR,
# RETURN, BREAK, CONTINUE, GOTO, ELSE, END, READTEXT), are left out: OPEN and CLOSE are also
# everyday aliases for prices.
STATEMENT_KEYWORDS = _words(
    """
    ALTER BACKUP BEGIN BULK CHECKPOINT COMMIT CREATE DBCC DECLARE DELETE DENY DISK DROP DUMP
    EXEC EXECUTE GRANT IF INSERT KILL LOAD MERGE RECONFIGURE RESTORE REVERT REVOKE ROLLBACK
    SAVE SET SETUSER SHUTDOWN TRUNCATE UPDATE UPDATETEXT USE WAITFOR WHILE WRITETEXT
    """
)

# Why statements that change only the session are still writes: they change how every later
# statement on the connection runs (its role, schema, database, settings).
SESSION_REASONS = texts.SESSION

# What may stand between EXPLAIN and the statement it explains, in the dialects that have it.
_EXPLAIN_OPTIONS = _words(
    """
    ANALYZE ANALYSE VERBOSE COSTS BUFFERS SETTINGS WAL TIMING SUMMARY SERIALIZE MEMORY
    GENERIC_PLAN FORMAT TEXT JSON XML YAML TRUE FALSE ON OFF NONE BINARY QUERY PLAN EXTENDED
    PARTITIONS LOGICAL DISTRIBUTED IO VALIDATE TYPE AST SYNTAX PIPELINE ESTIMATE TREE HEADER
    GRAPH COST CODEGEN FORMATTED TABULAR DEPENDENCY AUTHORIZATION
    """
)
_EXPLAIN_PUNCTUATION = frozenset(
    {TokenType.L_PAREN, TokenType.R_PAREN, TokenType.COMMA, TokenType.EQ, TokenType.NUMBER}
)
_QUERY_STARTS = frozenset({"SELECT", "WITH", "VALUES", "TABLE"})
_CHAINED_STATEMENT = "->>"  # Snowflake's flow operator runs the statement after it


def bare_statement_keyword(node: exp.Expr) -> str | None:
    """The keyword, when ``node`` is an alias spelt as an unquoted statement keyword."""
    if isinstance(node, exp.Alias):
        identifier = node.args.get("alias")
    elif isinstance(node, exp.TableAlias):
        identifier = node.this
    else:
        return None
    if not isinstance(identifier, exp.Identifier) or identifier.quoted:
        return None
    word = identifier.name.upper()
    return word if word in STATEMENT_KEYWORDS else None


# Snowflake statements that may follow its flow operator, besides the statement keywords.
_FLOW_STATEMENTS = STATEMENT_KEYWORDS | _words(
    "SELECT WITH VALUES TABLE CALL COPY PUT GET REMOVE LIST SHOW DESCRIBE DESC UNDROP COMMENT"
)


def chained_statement_reason(tokens: list[Token]) -> str | None:
    """Why ``… ->> DELETE …`` writes: Snowflake runs the statement after its flow operator.

    Other dialects read ``->>`` as JSON extraction and the keyword after it as a column, so the
    statement looks like one query; a JSON key is a string or a quoted name, never a keyword.
    """
    for arrow, following in itertools.pairwise(tokens):
        if (
            arrow.text == _CHAINED_STATEMENT
            and following.token_type not in (TokenType.STRING, TokenType.IDENTIFIER)
            and following.text.upper() in _FLOW_STATEMENTS
        ):
            return texts.CHAINED.format(keyword=following.text.upper())
    return None


def is_table_shorthand(statement: exp.Expr) -> bool:
    """``TABLE x`` as the dialects that lack it read it: the column ``TABLE``, aliased ``x``."""
    return (
        isinstance(statement, exp.Alias)
        and isinstance(statement.this, exp.Column)
        and not statement.this.table
        and not statement.this.this.quoted
        and statement.this.name.upper() == "TABLE"
    )


def command_body(command: exp.Command) -> str:
    body = command.args.get("expression")
    if isinstance(body, exp.Expression):
        return body.name if isinstance(body, exp.Literal) else body.sql()
    return str(body or "")


def show_write_reason(body: str) -> str | None:
    if _CHAINED_STATEMENT in body:
        return texts.SHOW_CHAINED
    return None


def explained_statement(body: str, dialect: str) -> str | None:
    """The statement an EXPLAIN body explains, after its options; None when there is none."""
    try:
        tokens: list[Token] = Dialect.get_or_raise(dialect or None).tokenize(body)
    except SqlglotError:
        return None
    depth = 0
    for token in tokens:
        word = token.text.upper()
        if depth == 0 and word in _QUERY_STARTS:
            return body[token.start :]
        if token.token_type is TokenType.L_PAREN:
            depth += 1
        elif token.token_type is TokenType.R_PAREN:
            depth -= 1
        elif word not in _EXPLAIN_OPTIONS and token.token_type not in _EXPLAIN_PUNCTUATION:
            return None
    return None
