"""Deploy plans without Superset: portable comparison, mapping, the ZIP, the digest."""

from __future__ import annotations

import copy
import io
import json
import zipfile
from datetime import UTC, datetime
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from sstools.domain.deploy import (
    DeploySource,
    InvalidPlanRequest,
    Inventory,
    PlanRequest,
    Sources,
    TargetDatabase,
    TargetObject,
    UnknownDashboard,
    build_plan,
    differing_fields,
    import_zip,
    map_sources,
    portable,
    read_sources,
)
from sstools.domain.deploy._bundle import collect, map_onto_target
from sstools.domain.deploy._sources import _resolve_databases
from sstools.domain.deploy.models import DatabaseMapping, Plan
from sstools.environments import Stage
from sstools.git_store import dump
from sstools.texts import deploy as deploy_texts

DASH = "d0000000-0000-0000-0000-000000000000"
CHART_A = "c000000a-0000-0000-0000-000000000000"
CHART_B = "c000000b-0000-0000-0000-000000000000"
DATASET = "5e700000-0000-0000-0000-000000000000"
DB = "db000000-0000-0000-0000-000000000000"
TARGET_DB = "db00000f-0000-0000-0000-000000000000"


def dashboard(ids: tuple[int, int], css: str | None = None) -> dict[str, Any]:
    """A dashboard as one environment exports it: its charts by that environment's ids."""
    a, b = ids
    return {
        "uuid": DASH,
        "dashboard_title": "Отчёт",
        "css": css,
        "position": {
            "CHART-a": {"type": "CHART", "id": "CHART-a", "meta": {"chartId": a, "uuid": CHART_A}},
            "CHART-b": {"type": "CHART", "id": "CHART-b", "meta": {"chartId": b, "uuid": CHART_B}},
        },
        "metadata": {
            "chart_configuration": {
                str(a): {
                    "id": a,
                    "crossFilters": {"scope": {"excluded": [b]}, "chartsInScope": [b]},
                }
            },
            "native_filter_configuration": [
                {
                    "id": "NATIVE_FILTER-1",
                    "chartsInScope": [a, b],
                    "scope": {"rootPath": ["ROOT_ID"], "excluded": [b]},
                    "targets": [{"datasetUuid": DATASET, "column": {"name": "region"}}],
                }
            ],
            "global_chart_configuration": {"scope": {"excluded": []}, "chartsInScope": [a, b]},
            "expanded_slices": {str(a): True},
            "timed_refresh_immune_slices": [b],
            "filter_scopes": {str(a): {"region": {"scope": ["ROOT_ID"], "immune": [b]}}},
            "default_filters": json.dumps({str(a): {"region": ["Север"]}}),
            "positions": {"legacy": a},
        },
    }


def chart(uuid: str, dataset_id: int, chart_id: int, metric: str = "SUM(x)") -> dict[str, Any]:
    context = {
        "datasource": {"id": dataset_id, "type": "table"},
        "form_data": {"datasource": f"{dataset_id}__table", "slice_id": chart_id, "metric": metric},
        "queries": [{"datasource": {"id": dataset_id, "type": "table"}, "metrics": [metric]}],
    }
    return {
        "uuid": uuid,
        "slice_name": f"График {uuid[7]}",
        "dataset_uuid": DATASET,
        "params": {"datasource": f"{dataset_id}__table", "slice_id": chart_id, "metric": metric},
        "query_context": json.dumps(context),
    }


def dataset(columns: list[str], database: str = DB) -> dict[str, Any]:
    return {
        "uuid": DATASET,
        "table_name": "energy",
        "database_uuid": database,
        "columns": [{"column_name": name} for name in columns],
        "metrics": [],
    }


def test_the_same_dashboard_from_two_environments_compares_equal_despite_its_ids() -> None:
    dev, prod = dashboard((4, 2)), dashboard((3, 8))
    assert dev != prod
    assert portable("dashboards", dev) == portable("dashboards", prod)
    assert differing_fields(portable("dashboards", dev), portable("dashboards", prod)) == []


def test_a_changed_css_is_the_one_differing_field() -> None:
    dev, prod = dashboard((4, 2), css="/* dev */"), dashboard((3, 8))
    assert differing_fields(portable("dashboards", dev), portable("dashboards", prod)) == ["css"]


def test_a_cross_filter_scoped_to_another_chart_differs() -> None:
    dev, prod = dashboard((4, 2)), dashboard((3, 8))
    # In dev chart A's cross-filter now excludes nothing: a person sees that.
    dev["metadata"]["chart_configuration"]["4"]["crossFilters"]["scope"]["excluded"] = []
    fields = differing_fields(portable("dashboards", dev), portable("dashboards", prod))
    assert fields == [f"metadata.chart_configuration.chart:{CHART_A}.crossFilters.scope.excluded"]


def test_empty_metadata_written_by_the_import_equals_none() -> None:
    bare: dict[str, Any] = {"uuid": DASH, "dashboard_title": "T", "position": {}, "css": None}
    imported: dict[str, Any] = {**bare, "metadata": {"native_filter_configuration": []}, "css": ""}
    assert portable("dashboards", bare) == portable("dashboards", imported)


def test_a_chart_compares_without_its_dataset_and_chart_ids() -> None:
    dev, prod = chart(CHART_A, dataset_id=1, chart_id=4), chart(CHART_A, dataset_id=3, chart_id=9)
    prod["params"]["annotation_layers"] = []  # what Superset's chart import writes
    assert portable("charts", dev) == portable("charts", prod)
    changed = chart(CHART_A, dataset_id=1, chart_id=4, metric="MAX(x)")
    assert differing_fields(portable("charts", changed), portable("charts", prod)) == [
        "params.metric",
        "query_context.form_data.metric",
        "query_context.queries",
    ]


def test_a_dataset_compares_without_its_column_order() -> None:
    assert portable("datasets", dataset(["a", "b"])) == portable("datasets", dataset(["b", "a"]))
    assert differing_fields(
        portable("datasets", dataset(["a", "b"])), portable("datasets", dataset(["a"]))
    ) == ["columns"]


def test_portable_does_not_change_its_argument() -> None:
    original = dashboard((4, 2))
    kept = copy.deepcopy(original)
    portable("dashboards", original)
    assert original == kept


def _files(documents: dict[str, dict[str, Any]]) -> dict[str, bytes]:
    return {path: dump(document) for path, document in documents.items()}


SOURCE = {
    f"dashboards/{DASH}.yaml": dashboard((4, 2)),
    f"charts/{CHART_A}.yaml": chart(CHART_A, 1, 4),
    f"charts/{CHART_B}.yaml": {"uuid": CHART_B, "slice_name": "Сломанный", "params": {}},
    f"datasets/{DATASET}.yaml": dataset(["a"]),
    f"databases/{DB}.yaml": {"uuid": DB, "database_name": "dev-db", "sqlalchemy_uri": "sqlite://"},
}


def _read(files: dict[str, bytes]) -> Any:
    return lambda paths: {path: files[path] for path in paths if path in files}


def test_collect_follows_the_dashboard_to_its_charts_datasets_and_database() -> None:
    unrelated = {"datasets/other.yaml": dump({"uuid": "other", "table_name": "x"})}
    found = collect(_read(_files(SOURCE) | unrelated), DASH)
    assert found is not None
    assert sorted(found) == sorted(SOURCE)
    assert collect(_read(_files(SOURCE)), "no-such-dashboard") is None


def test_mapping_points_datasets_at_the_target_database_and_leaves_broken_charts_out() -> None:
    target = TargetDatabase(id=7, uuid=TARGET_DB, name="prod-db", changed_on=None)
    mapped = map_onto_target(DASH, copy.deepcopy(SOURCE), {DB: target})
    assert mapped.documents[f"datasets/{DATASET}.yaml"]["database_uuid"] == TARGET_DB
    database = mapped.documents[f"databases/{TARGET_DB}.yaml"]
    assert (database["uuid"], database["database_name"]) == (TARGET_DB, "prod-db")
    assert f"databases/{DB}.yaml" not in mapped.documents
    assert f"charts/{CHART_B}.yaml" not in mapped.documents  # no dataset: import would refuse
    assert [(u.uuid, u.reason) for u in mapped.unresolved] == [(CHART_B, "dataset_missing")]


def test_an_unmapped_database_leaves_its_datasets_and_charts_out() -> None:
    mapped = map_onto_target(DASH, copy.deepcopy(SOURCE), {DB: None})
    assert sorted(mapped.documents) == [f"dashboards/{DASH}.yaml"]
    reasons = {u.uuid: u.reason for u in mapped.unresolved}
    assert reasons == {CHART_A: "database_unmapped", CHART_B: "dataset_missing"}


def test_sources_read_each_dashboard_and_refuse_one_the_reader_lacks() -> None:
    sources = read_sources(_read(_files(SOURCE)), [DASH], where="ветке main")
    assert sorted(sources.dashboards[DASH]) == sorted(SOURCE)
    with pytest.raises(UnknownDashboard, match="дашборда nope нет в ветке main"):
        read_sources(_read(_files(SOURCE)), [DASH, "nope"], where="ветке main")


def test_databases_match_by_uuid_then_name_then_as_mapped() -> None:
    targets = [
        TargetDatabase(1, DB, "same-uuid", None),
        TargetDatabase(2, TARGET_DB, "warehouse", None),
    ]
    rows, chosen = _resolve_databases(
        {DB: "x", "u2": "warehouse", "u3": "lonely", "u4": "old"}, targets, {"old": "warehouse"}
    )
    assert {row.source_uuid: row.matched_by for row in rows} == {
        DB: "uuid",
        "u2": "name",
        "u3": None,
        "u4": "mapping",
    }
    assert chosen["u3"] is None
    assert chosen["u4"] == targets[1]
    with pytest.raises(InvalidPlanRequest) as refused:
        _resolve_databases({DB: "x"}, targets, {DB: "nowhere"})
    assert refused.value.field == "database_mapping"
    assert "nowhere" in refused.value.message


def _inventory(changed_on: datetime, present: bool = True) -> Inventory:
    def row(uuid: str, number: int) -> dict[str, TargetObject]:
        return {uuid: TargetObject(number, uuid, "t", changed_on)} if present else {}

    return Inventory(
        {
            "dashboards": row(DASH, 10),
            "charts": row(CHART_A, 3),
            "datasets": row(DATASET, 2),
            "databases": {TARGET_DB: TargetObject(1, TARGET_DB, "prod-db", changed_on)},
        }
    )


def _plan(
    target: dict[str, dict[str, Any]],
    inventory: Inventory,
    mapping: dict[str, str] | None = None,
    source: dict[str, dict[str, Any]] = SOURCE,
) -> Any:
    sources = Sources({DASH: copy.deepcopy(source)})
    return build_plan(
        map_sources(sources, inventory, mapping or {"dev-db": "prod-db"}),
        source=DeploySource(env_id="ss-dev"),
        target_env_id="prod",
        target_stage=Stage.prod,
        found=inventory,
        target_files=_files(target),
    )


MOMENT = datetime(2026, 11, 30, tzinfo=UTC)


def _target(metric: str = "SUM(x)") -> dict[str, dict[str, Any]]:
    return {
        f"dashboards/{DASH}.yaml": dashboard((3, 8)),
        f"charts/{CHART_A}.yaml": chart(CHART_A, 2, 3, metric),
        f"datasets/{DATASET}.yaml": dataset(["a"], TARGET_DB),
    }


def test_a_plan_of_an_equal_target_is_unchanged_and_its_digest_stable() -> None:
    first = _plan(_target(), _inventory(MOMENT))
    plan = first.plan
    assert {(o.kind, o.action) for o in plan.objects} == {
        ("dashboard", "unchanged"),
        ("chart", "unchanged"),
        ("dataset", "unchanged"),
        ("database", "unchanged"),
    }
    assert plan.dashboards_changed == 0
    assert plan.applicable
    # The target's connections by name: what a card offers to map a source database onto.
    assert [(db.uuid, db.name) for db in plan.target_databases] == [(TARGET_DB, "prod-db")]
    assert plan.summary.startswith("Изменений нет: 1 дашборд совпадает с prod")
    assert [(u.name, u.dashboard_uuid) for u in plan.unresolved_charts] == [("Сломанный", DASH)]
    assert _plan(_target(), _inventory(MOMENT)).plan.digest == plan.digest
    # The bundle is what Superset will import: mapped onto the target's database.
    bundle = first.bundles[DASH]
    assert yaml.safe_load(bundle[f"datasets/{DATASET}.yaml"])["database_uuid"] == TARGET_DB


def test_a_chart_changed_in_the_source_counts_its_dashboard_as_changed() -> None:
    plan = _plan(_target(metric="AVG(x)"), _inventory(MOMENT)).plan
    assert [(o.kind, o.action) for o in plan.objects if o.action != "unchanged"] == [
        ("chart", "update")
    ]
    assert plan.dashboards_changed == 1
    assert plan.summary.startswith("1 дашборд будет изменён в prod: «Отчёт»")


def test_the_digest_changes_when_the_target_changes() -> None:
    digest = _plan(_target(), _inventory(MOMENT)).plan.digest
    later = datetime(2026, 12, 1, tzinfo=UTC)
    assert _plan(_target(), _inventory(later)).plan.digest != digest
    assert _plan(_target(metric="AVG(x)"), _inventory(MOMENT)).plan.digest != digest


def test_an_absent_target_plans_creates() -> None:
    plan = _plan({}, _inventory(MOMENT, present=False)).plan
    assert [(o.kind, o.action) for o in plan.objects] == [
        ("dashboard", "create"),
        ("chart", "create"),
        ("dataset", "create"),
        ("database", "unchanged"),
    ]
    assert plan.dashboards_changed == 1


def test_import_zip_holds_the_files_under_one_folder_with_an_untyped_metadata() -> None:
    files = {f"charts/{CHART_A}.yaml": b"uuid: a\n", f"dashboards/{DASH}.yaml": b"uuid: d\n"}
    archive = zipfile.ZipFile(io.BytesIO(import_zip(files)))
    names = archive.namelist()
    # Superset drops the first folder of every name and reads `metadata.yaml` beside the kinds.
    assert {name.split("/", 1)[1] for name in names} == {"metadata.yaml", *files}
    assert len({name.split("/", 1)[0] for name in names}) == 1
    metadata = yaml.safe_load(archive.read(next(n for n in names if n.endswith("metadata.yaml"))))
    assert metadata == {"version": "1.0.0"}  # no `type`: one ZIP for the three imports
    assert import_zip(files) == import_zip(dict(reversed(files.items())))


@pytest.mark.parametrize(
    "body",
    [
        {"dashboard_ids": [1], "source": {"env_id": "ss-dev"}, "target_env_id": "prod", "x": 1},
        {"dashboard_ids": ["1"], "source": {"env_id": "ss-dev"}, "target_env_id": "prod"},
        {"dashboard_uuids": ["nope"], "source": {"git_ref": "main"}, "target_env_id": "prod"},
        {"dashboard_ids": [1], "source": {"git_ref": "a..b"}, "target_env_id": "prod"},
    ],
)
def test_a_malformed_request_is_refused(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        PlanRequest.model_validate(body)


def test_a_mapping_that_would_move_an_existing_dataset_cannot_apply() -> None:
    """Superset's import cannot move a dataset that exists in the target to another connection
    (it inserts a second copy and fails): such a plan says so and cannot apply; mapped onto the
    connection the dataset is on, the database is pinned, so a card offers no other."""
    other = "db0000aa-0000-0000-0000-000000000000"
    inventory = _inventory(MOMENT)
    inventory.objects["databases"][other] = TargetObject(2, other, "warehouse", MOMENT)

    def planned(onto: str) -> Any:
        return _plan(_target(), inventory, {"dev-db": onto}).plan

    moved = planned("warehouse")
    assert not moved.applicable
    assert "уже есть в prod на другом подключении: «energy» (на «prod-db»)" in moved.summary
    assert moved.unmapped_database() is None  # every database matched: the summary says why
    assert [db.pinned for db in moved.databases] == [False]
    kept = planned("prod-db")
    assert kept.applicable
    assert [db.pinned for db in kept.databases] == [True]
    assert sorted(db.name for db in kept.target_databases) == ["prod-db", "warehouse"]


def test_only_a_database_whose_dataset_exists_there_is_pinned() -> None:
    """Two source databases mapped onto one connection: only the one whose dataset exists there
    is pinned. A target file naming no connection tells nothing: neither pinned nor moved."""
    other_db, other_set = (
        "db0000bb-0000-0000-0000-000000000000",
        "5e7000bb-0000-0000-0000-000000000000",
    )
    source = copy.deepcopy(SOURCE)
    source[f"databases/{other_db}.yaml"] = {"uuid": other_db, "database_name": "dwh"}
    source[f"datasets/{other_set}.yaml"] = {**dataset(["b"], other_db), "uuid": other_set}
    inventory = _inventory(MOMENT)

    def planned(target: dict[str, dict[str, Any]]) -> Any:
        return _plan(target, inventory, {"dev-db": "prod-db", "dwh": "prod-db"}, source).plan

    plan = planned(_target())
    assert {db.source_name: db.pinned for db in plan.databases} == {"dev-db": True, "dwh": False}
    unnamed = _target()
    del unnamed[f"datasets/{DATASET}.yaml"]["database_uuid"]
    plan = planned(unnamed)
    assert plan.applicable
    assert not any(db.pinned for db in plan.databases)


@pytest.mark.parametrize(
    ("template", "asks_for_mapping"),
    [(deploy_texts.NOT_APPLICABLE, True), (deploy_texts.ROLLBACK_UNMAPPED, False)],
)
def test_a_plan_that_cannot_apply_says_why_in_what_its_endpoint_accepts(
    template: str, asks_for_mapping: bool
) -> None:
    unmapped = DatabaseMapping(
        source_uuid="u",
        source_name="Склад DWH",
        target_uuid=None,
        target_name=None,
        target_id=None,
        matched_by=None,
    )
    plan = Plan(
        source=DeploySource(env_id="ss-dev"),
        target_env_id="prod",
        target_stage=Stage.prod,
        dashboards=[],
        objects=[],
        databases=[unmapped],
        unresolved_charts=[],
        dashboards_changed=0,
        applicable=False,
        summary="Изменений нет",
        digest="d",
    )
    why = plan.cannot_apply(template)
    assert why is not None
    assert "«Склад DWH»" in why
    # A rollback's body has no database_mapping: it must not be asked for.
    assert ("database_mapping" in why) is asks_for_mapping
    mapped = unmapped.model_copy(update={"target_uuid": "t"})
    assert plan.model_copy(update={"databases": [mapped]}).cannot_apply(template) == (
        "Изменений нет"
    )
    assert plan.model_copy(update={"applicable": True}).cannot_apply(template) is None
