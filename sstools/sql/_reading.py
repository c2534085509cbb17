"""One dialect's reading of a piece of SQL: how many statements, and whether any of them writes.

A statement is a *read* only when sqlglot parses it to a query (SELECT, set operations, VALUES,
``TABLE x``, DESCRIBE, SHOW, an EXPLAIN of a read) and nothing inside it writes: no DML/DDL
node anywhere (CTEs included), no ``SELECT … INTO``, no row or table lock, no function not known
to be read-only (see ``_functions``), no sequence's ``NEXTVAL``, no bare alias that SQL Server
runs as a statement (see ``_statements``). Everything else, including what sqlglot recognises
only as an opaque command and ``SET``/``USE`` (they change the session), is a *write*. A MySQL
executable comment (``/*! … */``, ``/*M! … */``) makes the reading a write: MySQL runs what the
other parsers skip as a comment.

Engines run a script statement by statement, so where a dialect cannot read the whole text,
:func:`write_before_error` looks at the statements it reads before the one it cannot.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from itertools import pairwise

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokenizer_core import Token, TokenType

from sstools.sql._depth import TOO_DEEP, check_nesting
from sstools.sql._functions import function_write_reason
from sstools.sql._model import SqlSyntaxError, SqlTooDeep
from sstools.sql._statements import (
    SESSION_REASONS,
    bare_statement_keyword,
    chained_statement_reason,
    command_body,
    explained_statement,
    is_table_shorthand,
    show_write_reason,
)
from sstools.texts import sql as texts

# sqlglot warns each time it falls back to an opaque Command, once per dialect read; a Command is
# a write here, so the warning says nothing the verdict does not.
logging.getLogger("sqlglot").setLevel(logging.ERROR)

_READ_ROOTS: tuple[type[exp.Expression], ...] = (
    exp.Select,
    exp.SetOperation,
    exp.Values,
    exp.Describe,
    exp.Show,
    exp.Subquery,
)
_WRITE_NODES: tuple[type[exp.Expression], ...] = (
    exp.Insert,
    exp.Update,
    exp.Delete,
    exp.Merge,
    exp.Create,
    exp.Drop,
    exp.Alter,
    exp.TruncateTable,
    exp.Command,
    exp.Copy,
    exp.Grant,
    exp.Revoke,
    exp.Set,
    exp.Pragma,
    exp.LoadData,
    exp.Use,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.Analyze,
    exp.Attach,
    exp.Detach,
    exp.Cache,
    exp.Uncache,
    exp.Refresh,
)
# T-SQL table hints that take locks a plain SELECT would not (NOLOCK takes none).
_LOCKING_HINTS = frozenset({"UPDLOCK", "XLOCK", "TABLOCK", "TABLOCKX", "HOLDLOCK"})
_SEQUENCE_PSEUDO_COLUMNS = frozenset({"nextval"})  # Oracle's and Snowflake's seq.NEXTVAL
_EXECUTABLE_COMMENT = re.compile(r"M?!")  # the text of /*!…*/ and /*M!…*/ after "/*"
_TOKEN_REPR = re.compile(r"<Token token_type: TokenType\.(\w+), text: (.*?), line: .*?>")
_UNCLOSED = re.compile(r"Missing (.+) from \d+:(\d+)")


@dataclass(frozen=True)
class Reading:
    dialect: str
    statements: int
    write_reason: str | None


def parse(sql: str, dialect: str) -> tuple[list[Token], list[exp.Expr]]:
    """Tokens and statements in one dialect; :class:`SqlSyntaxError` when it cannot read them."""
    reader = Dialect.get_or_raise(dialect or None)
    try:
        tokens = reader.tokenize(sql)
        check_nesting(tokens)
        parsed = reader.parser().parse(tokens, sql)
    except ParseError as exc:
        raise SqlSyntaxError(_parse_error_message(exc)) from exc
    except TokenError as exc:
        raise SqlSyntaxError(_token_error_message(exc, sql)) from exc
    except RecursionError as exc:
        raise SqlTooDeep(TOO_DEEP) from exc
    except (IndexError, KeyError, AttributeError, TypeError) as exc:
        # sqlglot's own bugs on odd input (its duckdb SHOW parser indexes past the end): that
        # dialect cannot read the SQL, which is a syntax error, not a crash of the caller.
        raise SqlSyntaxError(
            texts.NOT_READABLE_AS.format(dialect=dialect or texts.GENERIC_DIALECT)
        ) from exc
    # A bare ";" (or one carrying only a comment) is no statement.
    statements = [s for s in parsed if s is not None and not isinstance(s, exp.Semicolon)]
    if not statements:
        raise SqlSyntaxError(texts.NO_STATEMENT)
    return tokens, statements


def read(sql: str, dialect: str) -> Reading:
    tokens, statements = parse(sql, dialect)
    reason = _executable_comment_reason(tokens) or chained_statement_reason(tokens)
    written = _called_names(tokens)
    for statement in statements:
        reason = reason or _write_reason(statement, dialect, written)
    return Reading(dialect=dialect, statements=len(statements), write_reason=reason)


def write_before_error(sql: str, dialect: str) -> str | None:
    """Why the statements a dialect reads before the first one it cannot would write, if so."""
    reader = Dialect.get_or_raise(dialect or None)
    tokenizer = reader.tokenizer()
    try:
        tokens, complete = tokenizer.tokenize(sql), True
    except TokenError:
        tokens, complete = tokenizer.tokens, False  # those before the unreadable text
    reason = _executable_comment_reason(tokens) or chained_statement_reason(tokens)
    chunks = _statement_tokens(tokens)
    for chunk in chunks if complete else chunks[:-1]:  # a cut-off last statement never runs
        if reason:
            break
        try:
            statements = reader.parser().parse(chunk, sql)
        except (ParseError, TokenError, RecursionError, IndexError, KeyError, TypeError):
            break  # the engine stops at this statement
        for statement in statements:
            if statement is not None and not isinstance(statement, exp.Semicolon):
                reason = reason or _write_reason(statement, dialect, _called_names(chunk))
    return reason


def _statement_tokens(tokens: list[Token]) -> list[list[Token]]:
    chunks: list[list[Token]] = [[]]
    for token in tokens:
        if token.token_type is TokenType.SEMICOLON:
            chunks.append([])
        else:
            chunks[-1].append(token)
    return [chunk for chunk in chunks if chunk]


def _executable_comment_reason(tokens: list[Token]) -> str | None:
    for token in tokens:
        for comment in token.comments:
            if _EXECUTABLE_COMMENT.match(comment):
                return texts.EXECUTABLE_COMMENT
    return None


def _called_names(tokens: list[Token]) -> frozenset[str]:
    """The lower-cased words written right before a "(": the names the SQL calls."""
    return frozenset(
        before.text.lower()
        for before, token in pairwise(tokens)
        if token.token_type is TokenType.L_PAREN
    )


def _write_reason(statement: exp.Expr, dialect: str, written: frozenset[str]) -> str | None:
    if isinstance(statement, exp.Command):
        return _command_write_reason(statement, dialect)
    if is_table_shorthand(statement):
        return None
    if not isinstance(statement, _READ_ROOTS):
        keyword = statement.key.upper()
        return SESSION_REASONS.get(keyword, texts.STATEMENT.format(keyword=keyword))
    for node in statement.walk():
        alias = bare_statement_keyword(node)
        if alias:
            return texts.BARE_KEYWORD.format(keyword=alias)
        if isinstance(node, _WRITE_NODES):
            return texts.INSIDE_QUERY.format(keyword=node.key.upper())
        if isinstance(node, exp.Select) and node.args.get("into") is not None:
            return texts.SELECT_INTO
        if isinstance(node, exp.Lock):
            return texts.ROW_LOCKS
        if isinstance(node, exp.WithTableHint):
            hints = {hint.name.upper() for hint in node.expressions}
            if hints & _LOCKING_HINTS:
                return texts.TABLE_HINT.format(hints=", ".join(sorted(hints & _LOCKING_HINTS)))
        if (
            isinstance(node, exp.Column)
            and node.table
            and node.name.lower() in _SEQUENCE_PSEUDO_COLUMNS
        ):
            return texts.SEQUENCE.format(column=node.sql())
        if isinstance(node, exp.Func):
            reason = function_write_reason(node, written)
            if reason:
                return reason
    return None


def _command_write_reason(command: exp.Command, dialect: str) -> str | None:
    keyword = command.name.upper()
    if keyword == "SHOW":
        return show_write_reason(command_body(command))
    if keyword == "EXPLAIN":
        explained = explained_statement(command_body(command), dialect)
        if explained is None:
            return texts.EXPLAIN_NOT_A_QUERY
        try:
            reading = read(explained, dialect)
        except SqlSyntaxError:
            return texts.EXPLAIN_UNREADABLE
        if reading.write_reason:
            return texts.EXPLAIN_WRITES.format(reason=reading.write_reason)
        return None
    if keyword in SESSION_REASONS:
        return SESSION_REASONS[keyword]
    return texts.NOT_KNOWN_READ_ONLY.format(keyword=keyword)


def _parse_error_message(exc: ParseError) -> str:
    if not exc.errors:
        return str(exc).splitlines()[0]
    error = exc.errors[0]
    description = _TOKEN_REPR.sub(
        lambda m: texts.END_OF_SQL if m[1] == "SENTINEL" else repr(m[2]),
        str(error.get("description") or texts.DOES_NOT_PARSE),
    )
    line, col, highlight = error.get("line"), error.get("col"), error.get("highlight")
    if highlight:
        return texts.AT_WORD.format(description=description, line=line, col=col, token=highlight)
    return texts.AT.format(description=description, line=line, col=col)


def _token_error_message(exc: TokenError, sql: str) -> str:
    unclosed = _UNCLOSED.match(str(exc.__cause__ or ""))
    if unclosed:
        offset = int(unclosed[2])
        line = sql.count("\n", 0, offset) + 1
        col = offset - (sql.rfind("\n", 0, offset) + 1) + 1
        return texts.NEVER_CLOSED.format(what=unclosed[1], line=line, col=col)
    snippet = sql[exc.start : exc.end] if exc.start is not None else sql[-60:]
    return texts.NO_TOKENS.format(snippet=snippet[-40:])
