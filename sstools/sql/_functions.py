"""Which SQL functions keep a query read-only: known built-ins without effects, nothing else.

A call is read-only when sqlglot models it as a typed built-in (a subclass of ``exp.Func`` other
than the anonymous ones) that is not in :data:`EFFECT_CLASSES`, or when its name is such a
built-in's name in a dialect sstools knows, or is in a database's list of read-only built-ins
(``_builtins``, from each database's documentation), or is a ClickHouse aggregate with
combinators (``sumIf``, ``uniqArrayIf``). Anything else (a user-defined function, an
extension's, a schema-qualified call, one sqlglot does not model, such as ``pg_advisory_lock``,
``lo_import``, ``dblink``, ``get_lock``) may change state: a write. The names the references
list with effects (``_builtins.EFFECT_NAMES``) are writes even where sqlglot models them.

Names are trusted across dialects: the agent does not know the database it writes for, and
``strftime`` must stay a read there although only SQLite has it. A database where such a name is
not a built-in runs it only if someone created a function of that name; that, like any function
with effects, is for the database's own permissions (a read-only role for analysts) to stop.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from sstools.sql._builtins import (
    CLICKHOUSE_AGGREGATES,
    CLICKHOUSE_COMBINATORS,
    EFFECT_NAMES,
    EFFECT_WITH_ARGUMENTS,
    PURE_BUILTINS,
)
from sstools.sql._dialects import EVERY_DIALECT
from sstools.texts import sql as texts

# Typed built-ins that act outside the query's result.
EFFECT_CLASSES: tuple[type[exp.Func], ...] = (
    exp.NextValueFor,  # advances a sequence
    exp.Seq1,
    exp.Seq2,
    exp.Seq4,
    exp.Seq8,
    exp.ReadCSV,  # read files on the database server
    exp.ReadParquet,
    exp.ToFile,
    exp.Secret,  # reads a stored credential
    exp.DynamicIdentifier,  # names the object at run time, so it cannot be judged here
    exp.AIAgg,  # send rows to a model outside the database, and bill for it
    exp.AIClassify,
    exp.AIEmbed,
    exp.AIForecast,
    exp.AIGenerate,
    exp.AISimilarity,
    exp.AISummarizeAgg,
    exp.GenerateBool,
    exp.GenerateDouble,
    exp.GenerateEmbedding,
    exp.GenerateInt,
    exp.GenerateTable,
    exp.GenerateText,
    exp.MLForecast,
    exp.MLTranslate,
    exp.Predict,
)
# Calls that sqlglot knows only by the name written in the SQL.
NAMED_ONLY: tuple[type[exp.Func], ...] = (
    exp.Anonymous,
    exp.AnonymousAggFunc,
    exp.ParameterizedAgg,
)


def _typed_builtin_names() -> frozenset[str]:
    """Every function name a known dialect's parser maps to a typed, effect-free class."""
    names: set[str] = set()
    for dialect in EVERY_DIALECT:
        for name, builder in Dialect.get_or_raise(dialect or None).parser_class.FUNCTIONS.items():
            built = getattr(builder, "__self__", None)  # a class's ``from_arg_list``
            if isinstance(built, type) and issubclass(built, NAMED_ONLY + EFFECT_CLASSES):
                continue
            names.add(name.lower())
    return frozenset(names)


READ_ONLY_NAMES = _typed_builtin_names().union(*PURE_BUILTINS.values()) - EFFECT_NAMES


def _pure_aliases() -> dict[type[exp.Func], frozenset[str]]:
    """Documented read-only names some dialect's parser turns into an effect class."""
    documented = frozenset().union(*PURE_BUILTINS.values())
    aliases: dict[type[exp.Func], set[str]] = {}
    for dialect in EVERY_DIALECT:
        for name, builder in Dialect.get_or_raise(dialect or None).parser_class.FUNCTIONS.items():
            built = getattr(builder, "__self__", None)
            if not (isinstance(built, type) and issubclass(built, EFFECT_CLASSES)):
                continue
            if name.lower() in documented:
                aliases.setdefault(built, set()).add(name.lower())
    return {cls: frozenset(names) for cls, names in aliases.items()}


_PURE_ALIASES = _pure_aliases()


def is_clickhouse_combined_aggregate(name: str) -> bool:
    """``sumIf``, ``uniqArrayIf``, ``avgState``: a ClickHouse aggregate and its combinators."""
    stem, stripped = name.lower(), False
    while stem not in CLICKHOUSE_AGGREGATES:
        suffix = next((s for s in CLICKHOUSE_COMBINATORS if stem.endswith(s)), None)
        if suffix is None or len(stem) == len(suffix):
            return False
        stem, stripped = stem[: -len(suffix)], True
    return stripped


def is_read_only_name(name: str) -> bool:
    lowered = name.lower()
    return lowered in READ_ONLY_NAMES or is_clickhouse_combined_aggregate(lowered)


def function_write_reason(call: exp.Func, written: frozenset[str] = frozenset()) -> str | None:
    """Why this call may change state, or None when it is a known read-only built-in.

    ``written`` holds the lower-cased names the SQL calls. A typed effect that the SQL only
    names by another database's read-only built-in (BigQuery's parser takes PostgreSQL's
    ``similarity`` for ``AI.SIMILARITY``) is that built-in: names are trusted across dialects.
    """
    name = (call.name if isinstance(call, NAMED_ONLY) else call.sql_name()).lower()
    if isinstance(call.parent, exp.Dot) and call.arg_key == "expression":
        return texts.FUNCTION_QUALIFIED.format(schema=call.parent.this.sql(), name=name)
    if name in EFFECT_NAMES:
        return texts.FUNCTION_ACTS.format(name=name)
    if isinstance(call, EFFECT_CLASSES):
        aliases = _PURE_ALIASES.get(type(call), frozenset())
        if name in written or not aliases & written:
            return texts.FUNCTION_ACTS.format(name=name)
    if name in EFFECT_WITH_ARGUMENTS and any(call.iter_expressions()):
        return texts.FUNCTION_SETS_SESSION.format(name=name)
    if isinstance(call, NAMED_ONLY) and not is_read_only_name(name):
        return texts.FUNCTION_UNKNOWN.format(name=name)
    return None
