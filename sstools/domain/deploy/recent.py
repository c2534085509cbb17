"""Plans made a moment ago, so that applying one need not make it again.

Applying is bound to the digest the person approved. A plan this worker made within the last
``ttl_s`` is reused when the target's files of its objects are still, byte for byte, the ones
its digest covers, nothing it would create has appeared there since, and every connection it
maps onto is still there: one export (which holds the connections of the datasets on the
target's dashboards), a list of the target's databases only for another, and a list query per
kind it creates, instead of the source's export, the target's four lists and its export again.
Otherwise (another worker made it, it expired, the target moved) the plan is made again and its
digest compared, as before. The bundle imported is then the one the person saw.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

from sstools.domain.deploy import _target
from sstools.domain.deploy._bundle import path_of
from sstools.domain.deploy.models import PlanRequest
from sstools.domain.deploy.planner import PlannedDeploy
from sstools.superset import SupersetClient, SupersetNotFound

_CAPACITY = 32  # plans kept; a 12-dashboard plan's files are a few hundred kB
_RESOURCES = {"dashboard": "dashboard", "chart": "chart", "dataset": "dataset"}


def _key(request: PlanRequest, digest: str) -> str:
    return f"{digest}:{request.model_dump_json()}"


class RecentPlans:
    def __init__(self, ttl_s: float) -> None:
        self._ttl_s = ttl_s
        self._lock = threading.Lock()
        self._plans: OrderedDict[str, tuple[float, PlannedDeploy]] = OrderedDict()

    def remember(self, request: PlanRequest, planned: PlannedDeploy) -> None:
        with self._lock:
            self._plans[_key(request, planned.plan.digest)] = (time.monotonic(), planned)
            self._plans.move_to_end(_key(request, planned.plan.digest))
            while len(self._plans) > _CAPACITY:
                self._plans.popitem(last=False)

    def recall(self, request: PlanRequest, digest: str) -> PlannedDeploy | None:
        with self._lock:
            kept = self._plans.get(_key(request, digest))
        if kept is None or time.monotonic() - kept[0] > self._ttl_s:
            return None
        return kept[1]


async def _same_connections(planned: PlannedDeploy, target: SupersetClient) -> bool:
    """The target's databases the plan maps onto are still there, as they were: a bundle holds
    them under the target's identity, and a connection gone would be made again from ours.
    One whose file the plan compared (its datasets are on the target's dashboards) was just
    exported again unchanged: no list is needed for it."""
    assert planned.found is not None
    wanted = {db.target_uuid for db in planned.plan.databases if db.target_uuid is not None}
    wanted -= {uuid for uuid in wanted if path_of("databases", uuid) in planned.target}
    if not wanted:
        return True
    rows = await target.list_all("database", columns=["uuid", "database_name"])
    now = {str(row["uuid"]): row.get("database_name") for row in rows}
    for uuid in wanted:
        then = planned.found.get("databases", uuid)
        if then is None or now.get(uuid) != then.name:
            return False
    return True


async def still_current(planned: PlannedDeploy, target: SupersetClient) -> bool:
    """Whether the target is still as ``planned`` saw it (see the module's docstring)."""
    if planned.found is None:
        return False
    wanted: dict[str, set[str]] = {}
    for path in planned.target:
        kind, name = path.split("/", 1)
        wanted.setdefault(kind, set()).add(name.removesuffix(".yaml"))
    try:
        current = await _target.target_files(target, planned.found, wanted)
    except SupersetNotFound:  # an object the plan would change was deleted meanwhile
        return False
    if any(current.get(path) != content for path, content in planned.target.items()):
        return False
    if not await _same_connections(planned, target):
        return False
    created: dict[str, list[str]] = {}
    for change in planned.plan.objects:
        if change.action == "create" and change.kind in _RESOURCES:
            created.setdefault(_RESOURCES[change.kind], []).append(change.uuid)
    for resource, uuids in created.items():
        rows = await target.list_by_uuid(resource, uuids, columns=["uuid"])
        if rows:
            return False
    return True
