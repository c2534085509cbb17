"""A bad environments file stops start-up naming the file, the entry and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from sstools.config import DEVELOPMENT_JWT_SECRET, Settings
from sstools.environments import ConfigError, Stage, load_environments
from tests.conftest import write_environments_file


def _entry(**overrides: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "id": "ss-dev",
        "name": "Dev",
        "stage": "dev",
        "url": "http://127.0.0.1:8081",
        "username": "svc",
        "password_env": "DEV_PW",
    }
    entry.update(overrides)
    return entry


def test_valid_file_resolves_password_from_secrets_file_and_environment(tmp_path: Path) -> None:
    path = write_environments_file(
        tmp_path,
        [_entry(), _entry(id="prod", stage="prod", password_env="PROD_PW")],
        secrets={"DEV_PW": "from-file"},
    )
    registry = load_environments(path, environ={"PROD_PW": "from-env"})
    assert list(registry) == ["ss-dev", "prod"]
    assert registry["prod"].stage is Stage.prod
    assert registry["ss-dev"].password.get_secret_value() == "from-file"
    assert registry["prod"].password.get_secret_value() == "from-env"
    assert "from-file" not in repr(registry["ss-dev"])  # a SecretStr never prints


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        ([_entry(stage="qa")], ["entry 1 (id 'ss-dev')", "'stage'", "'dev', 'staging' or 'prod'"]),
        ([_entry(), _entry(name="Again")], ["entry 2 (id 'ss-dev')", "'id'", "duplicate id"]),
        ([_entry(password_env="MISSING_PW")], ["entry 1", "'password_env'", "MISSING_PW"]),
        ([_entry(url="not a url")], ["entry 1", "'url'"]),
        ([_entry(colour="red")], ["entry 1", "'colour'", "Extra inputs"]),
        ([{k: v for k, v in _entry().items() if k != "username"}], ["entry 1", "'username'"]),
        ([], ["'environments'"]),
    ],
)
def test_bad_entries_name_file_entry_and_field(
    tmp_path: Path, entries: list[dict[str, object]], expected: list[str]
) -> None:
    path = write_environments_file(tmp_path, entries, secrets={"DEV_PW": "x"})
    with pytest.raises(ConfigError) as caught:
        load_environments(path, environ={})
    message = str(caught.value)
    assert str(path) in message
    for fragment in expected:
        assert fragment in message


def test_malformed_yaml_and_missing_file_are_named(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("environments: [ {id: ss-dev\n")
    with pytest.raises(ConfigError, match=r"broken\.yaml: not valid YAML"):
        load_environments(broken)
    with pytest.raises(ConfigError, match=r"absent\.yaml: not found"):
        load_environments(tmp_path / "absent.yaml")


def test_missing_secrets_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "environments.yaml"
    path.write_text("secrets_file: nowhere.env\nenvironments: [{id: a}]\n")
    with pytest.raises(ConfigError, match=r"'secrets_file'.*nowhere\.env not found"):
        load_environments(path)


def test_default_jwt_secret_is_refused_outside_development() -> None:
    with pytest.raises(ValueError, match="SSTOOLS_JWT_SECRET is the development default"):
        Settings(_env_file=None, mode="production")
    with pytest.raises(ValueError, match="at least 32 characters"):
        Settings(_env_file=None, mode="production", jwt_secret="short")
    production = Settings(_env_file=None, mode="production", jwt_secret="x" * 40)
    assert production.jwt_secret.get_secret_value() != DEVELOPMENT_JWT_SECRET
