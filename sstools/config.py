"""Settings: one class, read from ``SSTOOLS_*`` environment variables and an optional ``.env``.

The Superset environments live in their own file (``SSTOOLS_ENVIRONMENTS_FILE``); see
:mod:`sstools.environments`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from limits import parse as parse_rate_limit
from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# Earlier versions signed development tokens with this published value; it is refused everywhere.
DEVELOPMENT_JWT_SECRET = "sstools-development-secret-do-not-use-in-production"  # noqa: S105
# sstools.auth.roles.Role's values, spelled here because settings lean on no other area.
RoleName = Literal["analyst", "engineer", "admin"]


class Settings(BaseSettings):
    """Every setting of the service. Each is documented in docs/configuration.md."""

    model_config = SettingsConfigDict(env_prefix="SSTOOLS_", env_file=".env", extra="ignore")

    mode: Literal["development", "production"] = "development"
    database_url: str = "sqlite:///.sstools/sstools.db"
    # Per worker: the app pool (+ half again as overflow); sizing in docs/configuration.md.
    database_pool_size: int = Field(default=8, ge=3, le=100)
    environments_file: Path = Path(".sandbox/environments.yaml")

    # Empty: development generates a random one into jwt_secret_file (sstools.auth.secret).
    jwt_secret: SecretStr = SecretStr("")
    jwt_secret_file: Path | None = None
    jwt_ttl_s: int = Field(default=8 * 3600, gt=0)
    jwt_audience: str = "sstools"
    # `limits` notation ("10/minute"); every attempt counts, kept in this process's memory.
    login_limit_per_user: str = "10/minute"
    login_limit_per_address: str = "60/minute"

    superset_timeout_s: float = Field(default=30.0, gt=0)
    sql_row_limit: int = Field(default=1000, gt=0, le=100_000)
    search_scan_limit: int = Field(default=10_000, gt=0)
    # The largest real body: 100 000 characters of SQL, ~600 kB even with every one \u-escaped.
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)

    # Agent settings (used by the agent; declared here so there is one Settings class).
    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: SecretStr | None = None
    # A slow or local model needs its own: how long one reply may take, how many times a failed
    # request is sent again, how long the stream may stay silent, and what the reply may be.
    llm_timeout_s: float = Field(default=120.0, gt=0)
    llm_retries: int = Field(default=1, ge=0, le=10)
    llm_stream_chunk_timeout_s: float = Field(default=60.0, gt=0)
    llm_max_tokens: int | None = Field(default=1024, gt=0)
    llm_temperature: float | None = Field(default=0.0, ge=0, le=2)
    # Background model work (validation review, documentation) at once, so chat turns get the
    # endpoint too.
    llm_background_concurrency: int = Field(default=1, ge=1, le=100)
    # Model tokens one person may spend in the chat per UTC day (None: no budget), and per role
    # a JSON object overriding it, null lifting it ({"admin": null, "analyst": 20000}).
    llm_tokens_per_user_day: int | None = Field(default=None, gt=0)
    llm_tokens_per_role_day: dict[RoleName, Annotated[int, Field(gt=0)] | None] = Field(
        default_factory=dict
    )
    hitl: Literal["writes", "all"] = "writes"
    tool_timeout_s: float = Field(default=30.0, gt=0)
    tools_base_url: str | None = None
    tool_retry_wait_s: float = Field(default=1.0, ge=0)
    checkpoints_file: Path = Path(".sstools/checkpoints.db")
    confirmation_ttl_s: float = Field(default=900.0, gt=0)
    # People who approve a write, by the target's stage: 1 is the requester's own «Подтвердить»;
    # 2 makes that a request a second person with the tool's role must approve (never the
    # requester), within second_approval_ttl_s of the first approval.
    approvals_dev: int = Field(default=1, ge=1, le=2)
    # «Одобрять похожие до конца сеанса» ends with that sign-in, and at the latest this long after.
    approve_similar_ttl_s: float = Field(default=3600.0, gt=0)
    approvals_staging: int = Field(default=1, ge=1, le=2)
    approvals_prod: int = Field(default=2, ge=1, le=2)
    second_approval_ttl_s: float = Field(default=4 * 3600.0, gt=0)
    # Per-user caps on the agent; open streams are counted in this process's memory.
    agent_streams_per_user: int = Field(default=10, gt=0)
    agent_streams_per_conversation: int = Field(default=3, gt=0)
    agent_conversations_per_user: int = Field(default=200, gt=0)
    agent_runs_per_user: int = Field(default=3, gt=0)
    # Caps on what one model may do: tool calls taken from one reply, tasks started in one turn;
    # the rest are refused with a reason the model reads.
    agent_calls_per_reply: int = Field(default=5, ge=1, le=100)
    agent_task_starts_per_turn: int = Field(default=2, ge=0, le=100)
    # The tool router (sstools.agent.routing): hybrid = BM25 + embedding, bm25 = lexical only.
    router: Literal["hybrid", "bm25", "off"] = "hybrid"
    router_k: int = Field(default=5, ge=1, le=50)

    # Git versioning of dashboard exports (sstools.git_store).
    git_dir: Path = Path(".sstools/git")
    git_remote: str | None = None
    # Stages whose environments are exported to git (a snapshot) before a deploy writes them.
    snapshot_stages: list[Literal["dev", "staging", "prod"]] = ["prod"]
    # The files a deploy task imports, by SHA-256: the task's stored input names them only.
    bundle_dir: Path = Path(".sstools/bundles")
    # Dashboard exports one worker runs at once against one environment (git status runs one
    # per dashboard; the rest wait their turn).
    export_concurrency: int = Field(default=4, ge=1, le=100)

    # Durable tasks (sstools.tasks): DBOS's system database. Empty: tasks.sqlite beside a SQLite
    # database, the same PostgreSQL database otherwise (in schema tasks_schema).
    tasks_database_url: str | None = None
    tasks_schema: str = Field(default="dbos", pattern=r"^[a-z_][a-z0-9_]{0,62}$")
    # Caps on starting tasks (429 with Retry-After): unfinished tasks per user, counted in the
    # database across workers; validations and documentations per dashboard, in `limits`
    # notation, counted in this process's memory like the login limits.
    tasks_per_user: int = Field(default=5, gt=0, le=1000)
    validation_limit_per_dashboard: str = "6/hour"
    documentation_limit_per_dashboard: str = "6/hour"
    # The fleet drift watch (sstools.domain.drift): a cron for DBOS's scheduler, e.g. every 15
    # minutes; empty: off (POST /api/drift/check, «Проверить сейчас» and `sstools drift` still
    # check). A check asked for: a report this young answers it; checks one person may start.
    drift_watch_cron: str = "*/15 * * * *"
    drift_fresh_s: float = Field(default=60.0, ge=0)
    drift_check_limit_per_user: str = "6/hour"

    # Backups (sstools.domain.backups): archives under backup_dir/<env id>/, the newest
    # backup_keep of each environment kept (the oldest removed once a new one is verified).
    backup_dir: Path = Path(".sstools/backups")
    backup_keep: int = Field(default=10, ge=1, le=1000)

    # GET /metrics: open when unset (the Prometheus convention), else it wants this bearer token.
    metrics_token: SecretStr | None = None

    log_level: str = "INFO"

    @field_validator(
        "login_limit_per_user",
        "login_limit_per_address",
        "validation_limit_per_dashboard",
        "documentation_limit_per_dashboard",
        "drift_check_limit_per_user",
    )
    @classmethod
    def _rate_limit(cls, value: str) -> str:
        try:
            parse_rate_limit(value)
        except ValueError as exc:
            raise ValueError(f"expected a rate such as '10/minute', got {value!r}") from exc
        return value

    @field_validator("drift_watch_cron")
    @classmethod
    def _cron(cls, value: str) -> str:
        from croniter import croniter  # type: ignore[import-untyped]

        if value.strip() and not croniter.is_valid(value.strip(), second_at_beginning=True):
            raise ValueError(f"expected a cron such as '*/15 * * * *' (or empty), got {value!r}")
        return value

    @model_validator(mode="after")
    def _refuse_default_secret_outside_development(self) -> Settings:
        secret = self.jwt_secret.get_secret_value()
        if secret == DEVELOPMENT_JWT_SECRET:
            raise ValueError("SSTOOLS_JWT_SECRET is the published development value; pick another")
        if self.mode != "development":
            if not secret:
                raise ValueError(
                    "SSTOOLS_JWT_SECRET is the development default (unset); production needs a "
                    "secret of your own, at least 32 characters"
                )
            if len(secret) < 32:
                raise ValueError("SSTOOLS_JWT_SECRET must be at least 32 characters in production")
        return self


@lru_cache
def get_settings() -> Settings:
    return Settings()
