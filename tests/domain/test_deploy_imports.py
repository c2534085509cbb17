"""How one deploy's files reach Superset: what the plan changes in one assets import, what only
the dashboard import does right (a chart it takes off, as the plan says) after it, and the old
imports when the service account may not use the assets import. Superset is faked at the httpx
transport; the real imports are tests/integration/test_deploy_together.py's."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import httpx
from pydantic import SecretStr

from sstools.domain.deploy._importing import import_sparse, split_imports
from sstools.domain.deploy._target import Inventory, TargetObject
from sstools.environments import Environment, Stage
from sstools.git_store import dump
from sstools.superset import SupersetClient
from sstools.testing.fake_superset import FakeSuperset

DB, DATASET, KEPT, GONE, PLAIN, WITH_GONE = (
    f"e0000000-0000-4000-8000-00000000000{n}" for n in range(1, 7)
)


def _dashboard(uuid: str, title: str, charts: list[str]) -> dict[str, Any]:
    position = {
        f"CHART-{n}": {"type": "CHART", "meta": {"uuid": chart}} for n, chart in enumerate(charts)
    }
    return {"uuid": uuid, "dashboard_title": title, "position": position}


DATABASE = {"uuid": DB, "database_name": "warehouse"}
SALES = {"uuid": DATASET, "table_name": "sales", "database_uuid": DB}
CHART = {"uuid": KEPT, "slice_name": "Sales", "dataset_uuid": DATASET}
# PLAIN shows the chart; WITH_GONE shows it and a chart whose dataset is gone (left out).
PLAIN_FILES = {
    f"dashboards/{PLAIN}.yaml": _dashboard(PLAIN, "Plain", [KEPT]),
    f"charts/{KEPT}.yaml": CHART,
    f"datasets/{DATASET}.yaml": SALES,
    f"databases/{DB}.yaml": DATABASE,
}
WITH_GONE_FILES = {
    **PLAIN_FILES,
    f"dashboards/{WITH_GONE}.yaml": _dashboard(WITH_GONE, "With gone", [KEPT, GONE]),
}
del WITH_GONE_FILES[f"dashboards/{PLAIN}.yaml"]


def _files(documents: dict[str, dict[str, Any]]) -> dict[str, bytes]:
    return {path: dump(document) for path, document in documents.items()}


def _target(*kinds_uuids: tuple[str, str]) -> Inventory:
    objects: dict[str, dict[str, TargetObject]] = {}
    for kind, uuid in kinds_uuids:
        objects.setdefault(kind, {})[uuid] = TargetObject(1, uuid, uuid, None)
    return Inventory(objects)


TARGET = _target(("databases", DB), ("datasets", DATASET), ("charts", KEPT), ("charts", GONE))
BOTH = {PLAIN: _files(PLAIN_FILES), WITH_GONE: _files(WITH_GONE_FILES)}
TITLES = {PLAIN: "Plain", WITH_GONE: "With gone"}


def test_what_the_plan_changes_is_one_import_and_a_dashboard_losing_a_chart_the_other() -> None:
    files, imports = split_imports(BOTH, TITLES, {PLAIN, WITH_GONE, KEPT}, TARGET)

    # The assets import: only what changes — never the connection nor the unchanged dataset.
    assert imports.sparse == [f"charts/{KEPT}.yaml", f"dashboards/{PLAIN}.yaml"]
    assert imports.sparse_titles == ["Plain"]
    # The dashboard that loses a chart, with what links its others, after it.
    assert imports.whole == sorted(
        [
            f"charts/{KEPT}.yaml",
            f"dashboards/{WITH_GONE}.yaml",
            f"databases/{DB}.yaml",
            f"datasets/{DATASET}.yaml",
        ]
    )
    assert (imports.whole_titles, imports.whole_kinds) == (["With gone"], ["dashboards"])
    assert set(files) == set(BOTH[PLAIN]) | set(BOTH[WITH_GONE])


def test_a_chart_on_a_dataset_the_target_lacks_sends_everything_the_old_way() -> None:
    nowhere = _target(("databases", DB), ("charts", KEPT))  # the dataset is neither sent nor there
    files, imports = split_imports({PLAIN: BOTH[PLAIN]}, TITLES, {PLAIN, KEPT}, nowhere)
    assert imports.sparse == []
    assert imports.whole == sorted(files)
    assert imports.whole_kinds == ["charts", "dashboards"]


def test_nothing_changed_is_nothing_to_import() -> None:
    files, imports = split_imports(BOTH, TITLES, set(), TARGET)
    assert files == {}
    assert (imports.sparse, imports.whole) == ([], [])


def _names(request: httpx.Request) -> list[str]:
    body = request.content
    start = body.index(b"PK\x03\x04")
    with zipfile.ZipFile(io.BytesIO(body[start:])) as archive:
        return sorted(name.split("/", 1)[1] for name in archive.namelist())


async def test_a_service_account_without_the_assets_import_gets_the_dashboard_imports() -> None:
    fake = FakeSuperset()
    sent: list[tuple[str, list[str]]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/import/"):
            sent.append((request.url.path, _names(request)))
        if request.url.path == "/api/v1/assets/import/":
            return httpx.Response(403, json={"message": "Forbidden"})
        return fake.handle(request)

    env = Environment(
        id="staging",
        name="Staging",
        stage=Stage.staging,
        url="http://superset.test",
        username=fake.username,
        password=SecretStr(fake.password),
    )
    files, imports = split_imports({PLAIN: BOTH[PLAIN]}, TITLES, {PLAIN, KEPT}, TARGET)
    client = SupersetClient(env, transport=httpx.MockTransport(answer))
    try:
        assert await import_sparse(client, files, imports) is True  # the rest is done too
    finally:
        await client.aclose()

    every = sorted(["metadata.yaml", *files])
    assert sent == [
        ("/api/v1/assets/import/", sorted(["metadata.yaml", *imports.sparse])),
        ("/api/v1/chart/import/", every),
        ("/api/v1/dashboard/import/", every),
    ]
