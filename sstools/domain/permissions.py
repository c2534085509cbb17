"""Which Superset roles can reach an object, and through which grant.

Superset grants data access at four widths — every datasource, a whole database, a schema, one
dataset — and object access through ``can_read`` on the object's kind. A role reaches a dataset
when it may read datasets and holds a grant wide enough to cover it; it reaches a dashboard when it
may read dashboards and reaches every dataset behind its charts (else those charts stay empty).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel

from sstools.superset.models import DatasetSummary, RolePermissions


class AuditedObject(StrEnum):
    dashboard = "dashboard"
    dataset = "dataset"
    database = "database"


class RoleAccess(BaseModel):
    role: str
    can_reach: bool
    via: list[str]  # the grants that give access
    missing: list[str]  # what it lacks, when it cannot reach


class PermissionAudit(BaseModel):
    env_id: str
    object_type: AuditedObject
    object_id: int
    object_name: str
    roles: list[RoleAccess]
    notes: list[str]


def _data_grants(dataset: DatasetSummary) -> list[tuple[str, str]]:
    database = f"[{dataset.database_name}]"
    grants = [
        ("all_datasource_access", "all_datasource_access"),
        ("all_database_access", "all_database_access"),
        ("database_access", f"{database}.(id:{dataset.database_id})"),
    ]
    if dataset.schema_:
        grants.append(("schema_access", f"{database}.[{dataset.schema_}]"))
    grants.append(("datasource_access", f"{database}.[{dataset.name}](id:{dataset.id})"))
    return grants


def _describe(grant: tuple[str, str]) -> str:
    permission, view = grant
    return permission if permission == view else f"{permission} on {view}"


def _dataset_grants_held(role: RolePermissions, dataset: DatasetSummary) -> list[str]:
    held = set(role.permissions)
    return [_describe(grant) for grant in _data_grants(dataset) if grant in held]


def audit_dataset(role: RolePermissions, dataset: DatasetSummary) -> RoleAccess:
    held = set(role.permissions)
    via = _dataset_grants_held(role, dataset)
    missing = []
    if ("can_read", "Dataset") in held:
        via.insert(0, "can_read on Dataset")
    else:
        missing.append("can_read on Dataset")
    if len(via) < 2:
        missing.append(f"a data grant covering {dataset.name} (e.g. datasource_access)")
    return RoleAccess(role=role.role, can_reach=not missing, via=via, missing=missing)


def audit_dashboard(
    role: RolePermissions, datasets: Sequence[DatasetSummary], dashboard_roles: list[str]
) -> RoleAccess:
    held = set(role.permissions)
    via: list[str] = []
    missing: list[str] = []
    if ("can_read", "Dashboard") in held:
        via.append("can_read on Dashboard")
    else:
        missing.append("can_read on Dashboard")
    if dashboard_roles:
        if role.role in dashboard_roles:
            via.append("listed in the dashboard's roles")
        else:
            missing.append("not among the dashboard's roles (DASHBOARD_RBAC)")
    for dataset in datasets:
        grants = _dataset_grants_held(role, dataset)
        if grants:
            via.append(f"{dataset.name}: {grants[0]}")
        else:
            missing.append(f"data access to dataset {dataset.name}")
    return RoleAccess(role=role.role, can_reach=not missing, via=via, missing=missing)


def audit_database(role: RolePermissions, database_id: int, database_name: str) -> RoleAccess:
    held = set(role.permissions)
    grants = [
        ("all_database_access", "all_database_access"),
        ("database_access", f"[{database_name}].(id:{database_id})"),
    ]
    via = [_describe(grant) for grant in grants if grant in held]
    missing = [] if via else [f"database_access on [{database_name}]"]
    return RoleAccess(role=role.role, can_reach=bool(via), via=via, missing=missing)
