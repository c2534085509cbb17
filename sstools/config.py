"""Settings: one class, read from ``SSTOOLS_*`` environment variables and an optional ``.env``.

The Superset environments live in their own file (``SSTOOLS_ENVIRONMENTS_FILE``); see
:mod:`sstools.environments`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# Refused outside development: anyone who reads this file could mint tokens with it.
DEVELOPMENT_JWT_SECRET = "sstools-development-secret-do-not-use-in-production"  # noqa: S105


class Settings(BaseSettings):
    """Every setting of the service. Each is documented in docs/configuration.md."""

    model_config = SettingsConfigDict(env_prefix="SSTOOLS_", env_file=".env", extra="ignore")

    mode: Literal["development", "production"] = "development"
    database_url: str = "sqlite:///.sstools/sstools.db"
    environments_file: Path = Path(".sandbox/environments.yaml")

    jwt_secret: SecretStr = SecretStr(DEVELOPMENT_JWT_SECRET)
    jwt_ttl_s: int = Field(default=8 * 3600, gt=0)
    jwt_audience: str = "sstools"

    superset_timeout_s: float = Field(default=30.0, gt=0)
    sql_row_limit: int = Field(default=1000, gt=0, le=100_000)
    search_scan_limit: int = Field(default=10_000, gt=0)

    # Agent settings (used by the agent; declared here so there is one Settings class).
    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: SecretStr | None = None
    hitl: Literal["writes", "all"] = "writes"
    tool_timeout_s: float = Field(default=30.0, gt=0)
    tools_base_url: str | None = None
    tool_retry_wait_s: float = Field(default=1.0, ge=0)
    checkpoints_file: Path = Path(".sstools/checkpoints.db")
    confirmation_ttl_s: float = Field(default=900.0, gt=0)

    log_level: str = "INFO"

    @model_validator(mode="after")
    def _refuse_default_secret_outside_development(self) -> Settings:
        if self.mode != "development":
            secret = self.jwt_secret.get_secret_value()
            if secret == DEVELOPMENT_JWT_SECRET:
                raise ValueError(
                    "SSTOOLS_JWT_SECRET is the development default; set a secret of your own "
                    "outside development"
                )
            if len(secret) < 32:
                raise ValueError("SSTOOLS_JWT_SECRET must be at least 32 characters in production")
        return self


@lru_cache
def get_settings() -> Settings:
    return Settings()
