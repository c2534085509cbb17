"""The Superset environments sstools manages, loaded from the environments file.

The file (YAML) lists environments; each names where its service-account password comes from:
an environment variable (``password_env``) or a key in the secrets file (``secrets_file`` at the
top, a ``KEY=VALUE`` file beside the environments file). Secrets never come from the model, the UI
or the logs: they are :class:`pydantic.SecretStr` from here on.

Example::

    secrets_file: secrets.env
    environments:
      - id: ss-dev
        name: Superset dev
        stage: dev
        url: http://127.0.0.1:8081
        username: admin
        password_env: SSTOOLS_SS_DEV_PASSWORD
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from enum import StrEnum
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, HttpUrl, SecretStr, ValidationError

from sstools.errors import SstoolsError
from sstools.ids import ENV_ID_PATTERN


class Stage(StrEnum):
    dev = "dev"
    staging = "staging"
    prod = "prod"


class ConfigError(SstoolsError):
    """The environments file cannot be used; the message names the file, the entry and the field."""


class _EnvironmentEntry(BaseModel):
    """One entry as written in the file (the password is a reference, not a value)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=ENV_ID_PATTERN)
    name: str = Field(min_length=1, max_length=128)
    stage: Stage
    url: HttpUrl
    username: str = Field(min_length=1)
    password_env: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")


class _EnvironmentsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    secrets_file: str | None = None
    environments: list[dict[str, object]] = Field(min_length=1)


class Environment(BaseModel):
    """A Superset environment with its resolved service-account credentials."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    stage: Stage
    url: str
    username: str
    password: SecretStr


class EnvironmentRegistry(Mapping[str, Environment]):
    """The configured environments by id, in file order."""

    def __init__(self, environments: list[Environment]) -> None:
        self._by_id = {env.id: env for env in environments}

    def __getitem__(self, env_id: str) -> Environment:
        return self._by_id[env_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def name_of(self, env_id: str) -> str:
        """The name people know ``env_id`` by: its own, or the id itself where none of these
        environments has it (one removed from the file since)."""
        env = self._by_id.get(env_id)
        return env.name if env else env_id

    def stage_of(self, env_id: str | None) -> Stage | None:
        """``env_id``'s stage; None with no environment (a git write) or one not in the file."""
        env = self._by_id.get(env_id) if env_id is not None else None
        return env.stage if env else None


def _read_secrets_file(path: Path) -> dict[str, str]:
    secrets: dict[str, str] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ConfigError(f"secrets file {path}: line {number} is not KEY=VALUE")
        secrets[key.strip()] = value.strip()
    return secrets


def _describe(index: int, raw: Mapping[str, object]) -> str:
    env_id = raw.get("id")
    return f"entry {index + 1}" + (f" (id {env_id!r})" if isinstance(env_id, str) else "")


def load_environments(path: Path, environ: Mapping[str, str] | None = None) -> EnvironmentRegistry:
    """Read and validate the environments file; raise :class:`ConfigError` on any problem."""
    environ = os.environ if environ is None else environ
    if not path.is_file():
        raise ConfigError(
            f"environments file {path}: not found (run `sstools sandbox up`, or set "
            "SSTOOLS_ENVIRONMENTS_FILE)"
        )
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ConfigError(f"environments file {path}: not valid YAML: {exc}") from exc
    try:
        parsed = _EnvironmentsFile.model_validate(document)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or "(top level)"
        raise ConfigError(f"environments file {path}: field {field!r}: {error['msg']}") from exc

    secrets: dict[str, str] = {}
    if parsed.secrets_file:
        secrets_path = (path.parent / parsed.secrets_file).resolve()
        if not secrets_path.is_file():
            raise ConfigError(
                f"environments file {path}: field 'secrets_file': {secrets_path} not found"
            )
        secrets = _read_secrets_file(secrets_path)

    environments: list[Environment] = []
    seen: set[str] = set()
    for index, raw in enumerate(parsed.environments):
        where = f"environments file {path}: {_describe(index, raw)}"
        try:
            entry = _EnvironmentEntry.model_validate(raw)
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(part) for part in error["loc"])
            raise ConfigError(f"{where}: field {field!r}: {error['msg']}") from exc
        if entry.id in seen:
            raise ConfigError(f"{where}: field 'id': duplicate id {entry.id!r}")
        seen.add(entry.id)
        password = environ.get(entry.password_env) or secrets.get(entry.password_env)
        if not password:
            raise ConfigError(
                f"{where}: field 'password_env': secret {entry.password_env} is set neither in "
                "the environment nor in the secrets file"
            )
        environments.append(
            Environment(
                id=entry.id,
                name=entry.name,
                stage=entry.stage,
                url=str(entry.url).rstrip("/"),
                username=entry.username,
                password=SecretStr(password),
            )
        )
    return EnvironmentRegistry(environments)
