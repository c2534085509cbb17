"""Validation and documentation without Superset: checks on metadata, the model's answers
validated, the template's sections, the «последняя проверка» line."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from sstools.domain.documentation import SECTIONS, template_document
from sstools.domain.documentation.models import Deployment, DocumentSource, GitFacts
from sstools.domain.documentation.writer import DocumentRejected, check_document
from sstools.domain.health import ValidationSummary, dashboard_health
from sstools.domain.validation.checks import chart_query, structural_findings
from sstools.domain.validation.facts import ChartFacts, DashboardFacts, DatasetFacts, FilterFacts
from sstools.domain.validation.review import ReviewFailed, parse_review
from sstools.environments import Stage
from sstools.git_store import DashboardStatus
from sstools.superset.models import DashboardDetail
from sstools.texts.validation import problems_text

SUM = {
    "expressionType": "SIMPLE",
    "column": {"column_name": "mwh"},
    "aggregate": "SUM",
    "label": "SUM(mwh)",
}


def chart(chart_id: int, name: str, dataset_id: int | None, **params: Any) -> ChartFacts:
    return ChartFacts(
        id=chart_id,
        uuid=None,
        name=name,
        viz_type="table",
        dataset_id=dataset_id,
        description=None,
        params=params,
        query_context=None,
        owners=["Анна"],
    )


def dataset(dataset_id: int, name: str, database_id: int | None = 1) -> DatasetFacts:
    return DatasetFacts(
        id=dataset_id,
        name=name,
        schema_name="main",
        database_id=database_id,
        database_name="Демо" if database_id else None,
        sql=None,
        columns=["region", "mwh"],
        metrics=[],
        owners=["Анна"],
    )


def facts(**changes: Any) -> DashboardFacts:
    base = DashboardFacts(
        env_id="prod",
        stage=Stage.prod,
        dashboard_id=7,
        uuid="u-7",
        title="Энергия",
        slug="energy",
        published=True,
        changed_on=datetime(2026, 11, 30, 5, 20, tzinfo=UTC),
        url="http://superset/dashboard/7/",
        owners=["Анна"],
        certified_by=None,
        charts=[chart(1, "По регионам", 3, groupby=["region"], metrics=[SUM])],
        datasets=[dataset(3, "energy")],
        filters=[FilterFacts(name="Регион", type="filter_select", columns=["region"])],
    )
    return base.model_copy(update=changes)


def kinds(found: list[Any]) -> set[tuple[str, str, str]]:
    return {(one.kind, one.severity, one.object_name) for one in found}


def test_a_healthy_dashboard_has_only_notes() -> None:
    assert kinds(structural_findings(facts())) == {("no_description", "info", "По регионам")}


def test_each_structural_problem_is_found_with_its_severity_and_a_fix() -> None:
    broken = facts(
        published=False,
        owners=[],
        charts=[chart(1, "Сирота", None), chart(2, "Чужой", 99)],
        datasets=[dataset(3, "без базы", database_id=None)],
    )

    found = structural_findings(broken)

    assert {
        ("missing_dataset", "error", "Сирота"),
        ("missing_dataset", "error", "Чужой"),
        ("dataset_without_database", "error", "без базы"),
        ("unpublished_in_prod", "warning", "Энергия"),
        ("no_owners", "warning", "Энергия"),
    } <= kinds(found)
    assert all(one.fix and one.message for one in found)


def test_unpublished_is_a_problem_only_in_prod_and_empty_is_a_warning() -> None:
    found = structural_findings(facts(stage=Stage.dev, published=False, charts=[]))
    assert kinds(found) == {("empty_dashboard", "warning", "Энергия")}


def test_the_query_of_a_chart_carries_its_columns_metrics_and_filters() -> None:
    aggregate = chart(
        1,
        "a",
        3,
        x_axis="day",
        groupby=["region", "day"],
        metrics=[SUM, "count"],
        adhoc_filters=[
            {
                "expressionType": "SIMPLE",
                "subject": "region",
                "operator": "==",
                "comparator": "Юг",
                "clause": "WHERE",
            },
            {"expressionType": "SQL", "sqlExpression": "mwh > 0", "clause": "WHERE"},
        ],
    )
    raw = chart(2, "b", 3, query_mode="raw", all_columns=["region", "mwh"], metrics=[SUM])

    query = chart_query(aggregate)["queries"][0]
    raw_query = chart_query(raw)["queries"][0]

    assert chart_query(aggregate)["datasource"] == {"id": 3, "type": "table"}
    assert query["columns"] == ["day", "region"]
    assert query["metrics"] == [SUM, "count"]
    assert query["filters"] == [{"col": "region", "op": "==", "val": "Юг"}]
    assert query["extras"]["where"] == "(mwh > 0)"
    assert raw_query["columns"] == ["region", "mwh"]
    assert raw_query["metrics"] == []


def test_a_valid_review_becomes_review_findings_bound_to_the_object() -> None:
    text = """```json
    {"findings": [{"severity": "warning", "object_type": "chart", "object_name": "По регионам",
      "message": "нет сортировки", "fix": "отсортируйте по убыванию"}]}
    ```"""

    (finding,) = parse_review(text, facts())

    assert (finding.kind, finding.severity, finding.object_id) == ("review", "warning", 1)


@pytest.mark.parametrize(
    "text",
    [
        "Всё отлично!",
        '{"findings": [{"severity": "error", "object_type": "chart", "object_name": "x", '
        '"message": "m", "fix": "f"}]}',  # the model may not raise errors: only automatic checks
        '{"findings": [{"severity": "info", "object_type": "chart", "object_name": "x", '
        '"message": "", "fix": "f"}]}',
        '{"findings": "none"}',
        '{"items": []}',
    ],
)
def test_a_review_that_does_not_validate_is_refused(text: str) -> None:
    with pytest.raises(ReviewFailed):
        parse_review(text, facts())


def source() -> DocumentSource:
    return DocumentSource(
        facts=facts(charts=[*facts().charts, chart(2, "Сирота", None)]),
        deployments=[
            Deployment(
                env_id="ss-dev",
                name="Dev",
                stage="dev",
                present=True,
                dashboard_id=7,
                changed_on=datetime(2026, 11, 30, 5, 20, tzinfo=UTC),
            ),
            Deployment(env_id="prod", name="Prod", stage="prod", present=False),
            Deployment(env_id="staging", name="Staging", stage="staging", present=None),
        ],
        git=GitFacts(status="не версионирован"),
    )


def test_the_template_has_every_section_every_chart_its_dataset_and_metrics() -> None:
    markdown = template_document(source())

    assert markdown.startswith("# Энергия\n")
    assert [line[3:] for line in markdown.splitlines() if line.startswith("## ")] == list(SECTIONS)
    assert "| По регионам | table | energy | SUM(mwh) |" in markdown
    assert "| Сирота | table | датасет удалён | — |" in markdown
    assert "**Регион** (filter_select): region" in markdown
    assert "| Dev (ss-dev) | разработка | да, #7 | 30 ноября 2026, 05:20 |" in markdown
    assert "| Staging (staging) | тестирование | не ответило | — |" in markdown
    assert "Не версионирован." in markdown
    check_document(markdown, source())  # the template passes its own check


def test_a_model_document_without_a_section_or_a_chart_is_rejected() -> None:
    full = template_document(source())
    with pytest.raises(DocumentRejected, match="Фильтры"):
        check_document(full.replace("## Фильтры", "## Прочее"), source())
    with pytest.raises(DocumentRejected, match="Сирота"):
        check_document(full.replace("Сирота", "другой"), source())


@pytest.mark.parametrize(
    ("problems", "errors", "expected"),
    [
        (0, 0, "проблем нет"),
        (1, 1, "1 проблема (ошибок: 1)"),
        (3, 0, "3 проблемы"),
        (5, 2, "5 проблем (ошибок: 2)"),
        (11, 0, "11 проблем"),
        (21, 0, "21 проблема"),
    ],
)
def test_problems_are_counted_in_russian(problems: int, errors: int, expected: str) -> None:
    assert problems_text(problems, errors) == expected


def test_health_says_git_change_date_and_last_validation_in_one_russian_sentence() -> None:
    dashboard = DashboardDetail(
        id=7,
        title="Энергия",
        published=True,
        url="u",
        owners=[],
        roles=[],
        charts=[],
        datasets=[],
        changed_on=datetime(2026, 11, 30, 5, 20, tzinfo=UTC),
    )
    status = DashboardStatus(7, "u-7", "Энергия", "untracked")
    run = ValidationSummary(
        at=datetime(2026, 11, 30, 6, 0, tzinfo=UTC),
        task_id="t",
        problems=2,
        errors=1,
        warnings=1,
        notes=0,
    )

    never = dashboard_health("prod", dashboard, status, "main")
    checked = dashboard_health("prod", dashboard, status, "main", run)

    assert never.last_validation == "не проверялся"
    assert (
        checked.last_validation
        == "последняя проверка: 30 ноября 2026, 06:00, 2 проблемы (ошибок: 1)"
    )
    assert checked.summary == (
        "«Энергия» в prod: есть проблемы — у дашборда нет владельцев; на дашборде нет графиков. "
        "Git: не версионирован. Изменён: 30 ноября 2026, 05:20. "
        "Последняя проверка: 30 ноября 2026, 06:00, 2 проблемы (ошибок: 1)."
    )
    assert "ok" not in checked.summary
    assert "degraded" not in checked.summary
