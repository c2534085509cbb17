"""Which SQL functions keep a query read-only: known built-ins without effects, nothing else.

A call is read-only when sqlglot models it as a typed built-in (a subclass of ``exp.Func`` other
than the anonymous ones) that is not in :data:`EFFECT_CLASSES`, or when its name is such a
built-in's name in a dialect sstools knows, or is in :data:`PURE_BUILTINS`. Anything else (a
user-defined function, an extension's, a schema-qualified call, one sqlglot does not model, such
as ``pg_advisory_lock``, ``lo_import``, ``dblink``, ``get_lock``) may change state: a write.

Names are trusted across dialects: the agent does not know the database it writes for, and
``strftime`` must stay a read there although only SQLite has it. A database where such a name is
not a built-in runs it only if someone created a function of that name; that, like any function
with effects, is for the database's own permissions (a read-only role for analysts) to stop.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from sstools.domain.sql._dialects import EVERY_DIALECT

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

# Read-only built-ins sqlglot does not model, kept to what analysts write against the demo data
# and everyday PostgreSQL (tests/unit/test_sql_dialects.py runs each); add one only with a test.
PURE_BUILTINS: dict[str, frozenset[str]] = {
    "sqlite": frozenset({"julianday", "printf", "total"}),
    "postgres": frozenset({"age", "make_date"}),
}

# Known to act although sqlglot may map the name to a typed class in some dialect; also a guard
# should a future sqlglot model one of them.
EFFECT_NAMES = frozenset(
    {
        "try_to_file",
        "nextval",
        "setval",
        "set_config",
        "setseed",
        "txid_current",
        "pg_sleep",
        "pg_notify",
        "pg_read_file",
        "pg_read_binary_file",
        "pg_ls_dir",
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_reload_conf",
        "pg_advisory_lock",
        "pg_advisory_xact_lock",
        "pg_try_advisory_lock",
        "lo_import",
        "lo_export",
        "lo_unlink",
        "dblink",
        "dblink_exec",
        "get_lock",
        "release_lock",
        "sleep",
        "benchmark",
        "load_file",
        "load_extension",
        "writefile",
        "readfile",
        "edit",
        "external_query",
    }
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


def function_write_reason(call: exp.Func) -> str | None:
    """Why this call may change state, or None when it is a known read-only built-in."""
    name = (call.name if isinstance(call, NAMED_ONLY) else call.sql_name()).lower()
    if isinstance(call.parent, exp.Dot) and call.arg_key == "expression":
        return f"function {call.parent.this.sql()}.{name}() is schema-qualified: maybe user-defined"
    if isinstance(call, NAMED_ONLY) and name not in READ_ONLY_NAMES:
        return f"function {name}() is not known to be read-only"
    if isinstance(call, EFFECT_CLASSES):
        return f"function {name}() acts outside the query"
    return None
