"""Database exports keep only what is known to be safe: every real leak form is dropped."""

from __future__ import annotations

import io
import zipfile
from typing import Any
from urllib.parse import urlencode

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from sstools.git_store import clean_database, normalise
from sstools.git_store._database import DATABASE, SAFE_QUERY

CANARY = "CANARY-7f3a9c"
UUID = "44444444-4444-4444-4444-444444444444"


def cleaned_text(document: dict[str, Any]) -> str:
    """The database file as the repository and a backup keep it, through the real normaliser."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("export_1/databases/db.yaml", yaml.safe_dump({"uuid": UUID, **document}))
    (content,) = normalise(buffer.getvalue()).values()
    return content.decode()


def with_connect_args(**args: Any) -> dict[str, Any]:
    return {
        "database_name": "warehouse",
        "sqlalchemy_uri": "mysql://reader@db:3306/dwh",
        "extra": {"engine_params": {"connect_args": args}},
    }


LEAKS = {
    "libpq password in the query": {
        "sqlalchemy_uri": f"postgresql://reader@db:5432/dwh?password={CANARY}&sslmode=require"
    },
    "odbc_connect with PWD": {
        "sqlalchemy_uri": (
            "mssql+pyodbc:///?odbc_connect=DRIVER%3D%7BODBC+Driver+18%7D%3BSERVER%3Ddb"
            f"%3BUID%3Dreader%3BPWD%3D{CANARY}"
        )
    },
    "BigQuery credentials_base64 in the URI": {
        "sqlalchemy_uri": f"bigquery://my-project?credentials_base64={CANARY}"
    },
    "BigQuery credentials_base64 in engine_params": {
        "sqlalchemy_uri": "bigquery://my-project",
        "extra": {"engine_params": {"credentials_base64": CANARY}},
    },
    "Snowflake private_key in connect_args": with_connect_args(private_key=CANARY),
    "Snowflake private key password in the URI": {
        "sqlalchemy_uri": f"snowflake://reader@acct/db?warehouse=wh&private_key_file_pwd={CANARY}"
    },
    "MySQL connect_args.passwd": with_connect_args(passwd=CANARY),
    "an api_key in connect_args": with_connect_args(api_key=CANARY),
    "a token at the top of extra": {"extra": {"access_token": CANARY}},
    "a token in metadata_params": {"extra": {"metadata_params": {"auth": CANARY}}},
    "a dict where a plain value belongs": {"extra": {"version": {"secret": CANARY}}},
    "an unknown top-level key": {"service_account_info": {"private_key": CANARY}},
    "the password Superset masks": {"password": CANARY, "masked_encrypted_extra": CANARY},
    "the SSH tunnel's credentials": {
        "ssh_tunnel": {"server_address": "bastion", "password": CANARY, "private_key": CANARY}
    },
    "a password in the URI": {"sqlalchemy_uri": f"postgresql://reader:{CANARY}@db/dwh"},
}


@pytest.mark.parametrize("document", LEAKS.values(), ids=LEAKS.keys())
def test_every_real_leak_form_is_stripped(document: dict[str, Any]) -> None:
    assert CANARY not in cleaned_text(document)


def test_safe_settings_are_kept_and_the_import_still_has_a_uri() -> None:
    database = yaml.safe_load(
        cleaned_text(
            {
                "database_name": "warehouse",
                "sqlalchemy_uri": (
                    f"postgresql://reader:{CANARY}@db:5432/dwh"
                    f"?sslmode=require&password={CANARY}&application_name=bi"
                ),
                "allow_dml": False,
                "expose_in_sqllab": True,
                "extra": {
                    "engine_params": {"connect_args": {"sslmode": "verify-full", "passwd": "x"}},
                    "metadata_cache_timeout": {"schema_cache_timeout": 600},
                    "schemas_allowed_for_file_upload": ["uploads"],
                },
                "ssh_tunnel": {"server_address": "bastion", "server_port": 22, "password": "x"},
            }
        )
    )
    assert database == {
        "uuid": UUID,
        "database_name": "warehouse",
        "sqlalchemy_uri": "postgresql://reader@db:5432/dwh?application_name=bi&sslmode=require",
        "allow_dml": False,
        "expose_in_sqllab": True,
        "extra": {
            "engine_params": {"connect_args": {"sslmode": "verify-full"}},
            "metadata_cache_timeout": {"schema_cache_timeout": 600},
            "schemas_allowed_for_file_upload": ["uploads"],
        },
        "ssh_tunnel": {"server_address": "bastion", "server_port": 22},
    }


def test_mysql_charset_is_kept_in_the_uri_and_in_connect_args() -> None:
    document = {
        "sqlalchemy_uri": f"mysql+pymysql://reader@db/dwh?charset=utf8mb4&passwd={CANARY}",
        "extra": {"engine_params": {"connect_args": {"charset": "utf8mb4"}}},
    }
    database = yaml.safe_load(cleaned_text(document))
    assert database["sqlalchemy_uri"] == "mysql+pymysql://reader@db/dwh?charset=utf8mb4"
    assert database["extra"] == {"engine_params": {"connect_args": {"charset": "utf8mb4"}}}


def _unknown(key: str) -> bool:
    return key not in DATABASE and key.lower() not in SAFE_QUERY


_keys = st.text(min_size=1, max_size=12).filter(_unknown)
_secrets = st.builds(lambda tail: f"{CANARY}{tail}", st.text(max_size=8))
_values: st.SearchStrategy[Any] = st.recursive(
    _secrets | st.lists(_secrets, max_size=3),
    lambda inner: st.dictionaries(_keys, inner, max_size=3),
    max_leaves=6,
)
_planted = st.dictionaries(_keys, _values, min_size=1, max_size=3)


# 200: a pure filter over small dictionaries; cheap enough for many unknown keys.
@settings(max_examples=200, deadline=None)
@given(
    top=_planted,
    extra=_planted,
    engine=_planted,
    connect=_planted,
    tunnel=_planted,
    query=st.dictionaries(
        st.from_regex(r"[a-z_]{1,12}", fullmatch=True).filter(_unknown), _secrets, max_size=3
    ),
)
def test_no_value_under_an_unknown_key_survives(
    top: dict[str, Any],
    extra: dict[str, Any],
    engine: dict[str, Any],
    connect: dict[str, Any],
    tunnel: dict[str, Any],
    query: dict[str, str],
) -> None:
    document = {
        **top,
        "uuid": UUID,
        "database_name": "warehouse",
        "sqlalchemy_uri": f"postgresql://reader@db/dwh?{urlencode(query)}",
        "extra": {**extra, "engine_params": {**engine, "connect_args": connect}},
        "ssh_tunnel": {**tunnel, "server_address": "bastion"},
    }
    cleaned = clean_database(document)
    assert CANARY not in repr(cleaned)
    assert cleaned["sqlalchemy_uri"] == "postgresql://reader@db/dwh"
    assert cleaned["ssh_tunnel"] == {"server_address": "bastion"}


def test_an_unparseable_uri_is_dropped() -> None:
    assert "sqlalchemy_uri" not in clean_database({"sqlalchemy_uri": f"::{CANARY}::"})
