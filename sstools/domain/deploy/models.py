"""The plan's request and answer: what would change in a target, object by object."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from sstools.environments import Stage
from sstools.git_store import BranchName
from sstools.ids import ENV_ID_PATTERN, MAX_ID
from sstools.superset.models import UtcDatetime

MAX_PLAN_DASHBOARDS = 100
UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"

EnvId = Annotated[str, Field(max_length=64, pattern=ENV_ID_PATTERN)]
ObjectUuid = Annotated[str, Field(pattern=UUID_PATTERN)]
Kind = Literal["dashboard", "chart", "dataset", "database"]
# "delete": only a rollback plans it (what the deploy being undone created).
Action = Literal["create", "update", "unchanged", "delete"]


class DeploySource(BaseModel):
    """Where the dashboards come from: an environment, or a branch of the repository.

    Both together: the ids are the environment's, the files the branch's.
    """

    model_config = ConfigDict(extra="forbid")

    env_id: EnvId | None = None
    git_ref: BranchName | None = None


class PlanRequest(BaseModel):
    # /docs «Try it out» starts from this: one way of naming the dashboards, real environments.
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"dashboard_ids": [10], "source": {"env_id": "ss-dev"}, "target_env_id": "staging"}
            ]
        },
    )

    dashboard_ids: list[Annotated[int, Field(ge=1, le=MAX_ID, strict=True)]] = Field(
        default_factory=list, max_length=MAX_PLAN_DASHBOARDS
    )
    dashboard_uuids: list[ObjectUuid] = Field(default_factory=list, max_length=MAX_PLAN_DASHBOARDS)
    source: DeploySource
    target_env_id: EnvId
    database_mapping: (
        dict[
            Annotated[str, Field(min_length=1, max_length=250)],
            Annotated[str, Field(min_length=1, max_length=250)],
        ]
        | None
    ) = Field(default=None, max_length=50)


class FieldChange(BaseModel):
    """One changed field with its values, as the server compared them (never the model's words).

    Values are text: strings as they are, anything else as indented JSON. Each side is cut at
    :data:`~sstools.domain.deploy._portable.MAX_VALUE_BYTES` and the diff at ``MAX_DIFF_BYTES``,
    with «…» where it was cut and ``truncated`` set.
    """

    field: str  # the dotted key, as in ObjectChange.fields
    label: str  # the key in words («CSS», «фильтры»), the key itself where there are none
    before: str | None  # the target's value; None: the target has no such key
    after: str | None  # the source's value; None: the source has none
    diff: str | None  # unified line diff target → source (CSS, SQL, JSON, any multi-line text)
    truncated: bool = False  # a value or the diff was cut at its bound
    # The plan's budget for values was spent before this field: named, values left out.
    omitted: bool = False


class ObjectChange(BaseModel):
    kind: Kind
    uuid: str
    name: str
    action: Action
    fields: list[str]  # dotted keys that differ from the target (update only)
    target_id: int | None
    target_changed_on: UtcDatetime | None
    # The same fields with their values (update only; the order of ``fields``).
    changes: list[FieldChange] = []


class DatabaseMapping(BaseModel):
    """A source database and the target's connection its datasets will use (never written)."""

    source_uuid: str
    source_name: str
    target_uuid: str | None  # None: no match, the datasets on it cannot be imported
    target_name: str | None
    target_id: int | None
    matched_by: Literal["uuid", "name", "mapping"] | None
    # Datasets on it already exist in the target on this connection: Superset's import cannot
    # move them to another, so no other target is offered for it.
    pinned: bool = False


class Translated(BaseModel):
    """A field taken out of the files for the target's older Superset release (its import
    would refuse it): empty in every object, or a hint the target works out itself."""

    kind: str  # the export's folder: dashboards, charts, datasets, databases
    field: str
    objects: int
    had_content: bool


class TargetDatabaseName(BaseModel):
    """A database connection the target has: what a ``database_mapping`` may name."""

    uuid: str
    name: str


class UnresolvedChart(BaseModel):
    """A chart that would not be imported: its dataset would not resolve in the target."""

    dashboard_uuid: str | None  # None: planned as one of a restore's objects on no dashboard
    uuid: str
    name: str
    dataset_uuid: str | None
    reason: Literal["dataset_missing", "database_unmapped"]
    message: str
    # The target's copy of the dashboard has it now, and the import rewrites that dashboard:
    # the chart is taken off it there (Superset keeps no chart it could not import on it).
    removed_from_target: bool = False


class Plan(BaseModel):
    source: DeploySource
    target_env_id: str
    target_stage: Stage
    dashboards: list[ObjectChange]
    objects: list[ObjectChange]  # dashboards, charts, datasets and databases
    databases: list[DatabaseMapping]
    # The target's connections by name: a card offers them to map a source database onto.
    target_databases: list[TargetDatabaseName] = []
    unresolved_charts: list[UnresolvedChart]
    # Dashboards that would change with their charts or datasets: the guardrail card's count.
    dashboards_changed: int
    # False when a source database has no connection in the target: apply must refuse.
    applicable: bool
    summary: str
    digest: str
    # The two sides' Superset releases (``None``: not known, such as a branch's) and what the
    # plan took out of the files for the target's release (sstools.superset.versions).
    source_release: str | None = None
    target_release: str | None = None
    translated: list[Translated] = []

    @property
    def changes(self) -> list[ObjectChange]:
        """What the deploy would create, change or delete (a database is never written)."""
        return [one for one in self.objects if one.action != "unchanged"]

    @property
    def differs(self) -> bool:
        """The one rule for «differs»: a deploy would change something. The compare page's
        «Различий нет» and the drift's «отличается от источника» / «от main» both read it."""
        return bool(self.changes)

    def unmapped_database(self) -> str | None:
        """The first source database with no connection in the target (why the plan cannot
        apply); None when it cannot apply for another reason, which its summary names."""
        return next((db.source_name for db in self.databases if db.target_uuid is None), None)

    def cannot_apply(self, unmapped: str) -> str | None:
        """Why the plan cannot apply (None: it can): ``unmapped``, with ``{env}`` and
        ``{database}``, for a source database the target has no connection for; else the
        summary, which names the other reason."""
        if self.applicable:
            return None
        missing = self.unmapped_database()
        if missing is None:
            return self.summary
        return unmapped.format(env=self.target_env_id, database=missing)
