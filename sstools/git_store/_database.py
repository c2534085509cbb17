"""A database connection as sstools keeps it: only what is known to be safe, nothing else.

Superset's export of a database holds secrets in more places than a list of names can foresee:
the URI's password and its query (libpq ``?password=``, ``odbc_connect=…PWD=…``,
``credentials_base64``), ``extra.engine_params.connect_args`` (MySQL ``passwd``, ``api_key``,
Snowflake ``private_key``), tokens anywhere in ``extra``. So this is an allow-list: a key is kept
only when it is named below, a dict only in the shape named below, and the URI keeps its driver,
user, host, port, database and only the query parameters in :data:`SAFE_QUERY`. Everything else
is dropped, whatever its name. Git, snapshots and backups all go through :func:`clean_database`.

A deploy or restore never writes a database (Superset keeps the existing connection, see
sstools.domain.deploy._bundle), so what is dropped here is never missed by an import.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

# A shape: key -> a nested shape (the value must be a dict, cleaned by it) or None (a plain
# value: a string, number, boolean, null, or a list of those).
Shape = Mapping[str, "Shape | None"]

# Connection arguments with no secret in them: TLS modes and file paths, timeouts, encodings,
# names of warehouses, roles, schemas. Not `options`, `ssl` dicts, or anything driver-specific.
_CONNECT_ARGS: Shape = dict.fromkeys(
    (
        "application_name",
        "autocommit",
        "catalog",
        "charset",
        "check_same_thread",
        "client_encoding",
        "connect_timeout",
        "database",
        "http_path",
        "protocol",
        "read_timeout",
        "role",
        "schema",
        "sslcert",
        "sslmode",
        "sslrootcert",
        "timeout",
        "use_unicode",
        "warehouse",
        "write_timeout",
    )
)

# `extra` as Superset's import reads it (superset/databases/schemas.py).
_EXTRA: Shape = {
    "allow_multi_catalog": None,
    "allows_virtual_table_explore": None,
    "cancel_query_on_windows_unload": None,
    "cost_estimate_enabled": None,
    "disable_data_preview": None,
    "disable_drill_to_detail": None,
    "engine_params": {
        "connect_args": _CONNECT_ARGS,
        "echo": None,
        "isolation_level": None,
        "max_overflow": None,
        "pool_pre_ping": None,
        "pool_recycle": None,
        "pool_size": None,
        "pool_timeout": None,
    },
    "metadata_cache_timeout": dict.fromkeys(
        ("catalog_cache_timeout", "schema_cache_timeout", "table_cache_timeout")
    ),
    "metadata_params": dict.fromkeys(("quote_schema", "schema")),
    "schema_options": {"expand_rows": None},
    "per_user_caching": None,
    "schemas_allowed_for_csv_upload": None,
    "schemas_allowed_for_file_upload": None,
    "version": None,
}

# A database export's own keys (Superset's Database.export_fields, uuid, version, ssh_tunnel:
# ImportV1DatabaseSchema without password, encrypted_extra and masked_encrypted_extra);
# `sqlalchemy_uri` is kept through :func:`safe_uri`, never as it is.
DATABASE: Shape = {
    "allow_csv_upload": None,
    "allow_ctas": None,
    "allow_cvas": None,
    "allow_dml": None,
    "allow_file_upload": None,
    "allow_run_async": None,
    "cache_timeout": None,
    "configuration_method": None,
    "database_name": None,
    "expose_in_sqllab": None,
    "external_url": None,
    "extra": _EXTRA,
    "impersonate_user": None,
    "is_managed_externally": None,
    "ssh_tunnel": dict.fromkeys(("server_address", "server_port", "username")),
    "uuid": None,
    "version": None,
}

# Query parameters of a connection URI that never carry a secret (compared case-insensitively).
SAFE_QUERY = frozenset(
    {
        "application_name",
        "charset",
        "client_encoding",
        "connect_timeout",
        "driver",
        "encrypt",
        "mode",
        "role",
        "sslmode",
        "target_session_attrs",
        "trustservercertificate",
        "uri",
        "warehouse",
    }
)


def _plain(value: Any) -> bool:
    if isinstance(value, list):
        return all(_plain(item) for item in value)
    return value is None or isinstance(value, str | int | float | bool)


def keep_known(value: Any, shape: Shape) -> dict[str, Any]:
    """``value`` with only the keys ``shape`` names, each in the form it names; else dropped."""
    if not isinstance(value, dict):
        return {}
    kept: dict[str, Any] = {}
    for key, item in value.items():
        if not isinstance(key, str) or key not in shape:
            continue
        inner = shape[key]
        if inner is None:
            if _plain(item):
                kept[key] = item
        elif isinstance(item, dict):
            kept[key] = keep_known(item, inner)
    return kept


def safe_uri(uri: str) -> str | None:
    """The connection string without its password and unsafe query; None when unparseable."""
    try:
        url = make_url(uri)
    except (ArgumentError, ValueError):
        return None
    query = {key: value for key, value in url.query.items() if key.lower() in SAFE_QUERY}
    # URL.set() keeps a password set to None: rebuild the URL without one.
    safe = URL.create(
        url.drivername,
        username=url.username,
        host=url.host,
        port=url.port,
        database=url.database,
        query=query,
    )
    return safe.render_as_string(hide_password=False)


def clean_database(document: Mapping[str, Any]) -> dict[str, Any]:
    """A database export's YAML document with nothing but :data:`DATABASE`'s keys and a safe URI.

    An unparseable URI is dropped rather than kept: it might be a secret of its own.
    """
    cleaned = keep_known(dict(document), DATABASE)
    uri = document.get("sqlalchemy_uri")
    if isinstance(uri, str) and (safe := safe_uri(uri)) is not None:
        cleaned["sqlalchemy_uri"] = safe
    return cleaned
