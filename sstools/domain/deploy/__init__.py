"""Deploy plans: what importing dashboards from an environment or a git ref changes in a target.

See docs/deploy.md for the plan format, matching and the digest. A restore from a backup plans
its archive the same way: ``read_sources`` over its files, then ``plan_sources``.
"""

from sstools.domain.deploy._bundle import Reader, TargetDatabase, import_zip
from sstools.domain.deploy._portable import differing_fields, portable
from sstools.domain.deploy._releases import fitted
from sstools.domain.deploy._sources import MappedSources, Sources, map_sources, read_sources
from sstools.domain.deploy._target import (
    Inventories,
    Inventory,
    TargetObject,
    export_target,
    import_bundle,
    inventory,
)
from sstools.domain.deploy.errors import (
    DeployError,
    InvalidPlanRequest,
    StalePlan,
    UnknownDashboard,
    UnknownEnvironment,
    VersionSkew,
)
from sstools.domain.deploy.models import (
    DatabaseMapping,
    DeploySource,
    ObjectChange,
    Plan,
    PlanRequest,
    UnresolvedChart,
)
from sstools.domain.deploy.planner import PlannedDeploy, build_plan, plan_sources
from sstools.domain.deploy.requested import make_plan

__all__ = [
    "DatabaseMapping",
    "DeployError",
    "DeploySource",
    "InvalidPlanRequest",
    "Inventories",
    "Inventory",
    "MappedSources",
    "ObjectChange",
    "Plan",
    "PlanRequest",
    "PlannedDeploy",
    "Reader",
    "Sources",
    "StalePlan",
    "TargetDatabase",
    "TargetObject",
    "UnknownDashboard",
    "UnknownEnvironment",
    "UnresolvedChart",
    "VersionSkew",
    "build_plan",
    "differing_fields",
    "export_target",
    "fitted",
    "import_bundle",
    "import_zip",
    "inventory",
    "make_plan",
    "map_sources",
    "plan_sources",
    "portable",
    "read_sources",
]
