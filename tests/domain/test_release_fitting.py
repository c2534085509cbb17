"""A plan's sources fitted to the target's Superset release, or refused in words before a write."""

from __future__ import annotations

from typing import Any

import pytest

from sstools.domain.deploy import Sources, VersionSkew, fitted

DASHBOARD = "dashboards/3d88d77e-833e-423f-aa8e-0d8c3b919526.yaml"
DATASET = "datasets/a6b55c1d-c32c-4f58-9af7-cd0d3985e852.yaml"


def _sources(theme: str | None = None) -> Sources:
    dashboard: dict[str, Any] = {"dashboard_title": "Продажи по регионам", "theme_uuid": theme}
    dataset: dict[str, Any] = {"table_name": "regions", "folders": None, "columns": []}
    return Sources({"d": {DASHBOARD: dashboard, DATASET: dataset}})


def test_into_an_older_release_the_empty_new_fields_go_and_the_plan_counts_them() -> None:
    given = _sources()
    sources, translated = fitted(given, source=(6, 1, 0), target=(5, 0, 0), target_env_id="prod")
    assert "theme_uuid" not in sources.dashboards["d"][DASHBOARD]
    assert "folders" not in sources.dashboards["d"][DATASET]
    assert "theme_uuid" in given.dashboards["d"][DASHBOARD]  # the caller's copy is untouched
    assert [(one.kind, one.field, one.objects) for one in translated] == [
        ("dashboards", "theme_uuid", 1),
        ("datasets", "folders", 1),
    ]


def test_a_dashboard_theme_older_superset_lacks_is_refused_naming_both_releases() -> None:
    with pytest.raises(VersionSkew) as refused:
        fitted(
            _sources(theme="0f6b2c1e-0000-4000-8000-000000000001"),
            source=(6, 1, 0),
            target=(5, 0, 0),
            target_env_id="prod",
        )
    words = refused.value.message
    assert words.startswith("prod работает на Superset 5.0.0, источник — на 6.1.0")
    assert "у дашборда «Продажи по регионам» заполнено поле «тема дашборда» (theme_uuid)" in words
    assert "Ничего не изменено" in words


def test_from_a_branch_the_source_release_is_said_to_be_unknown() -> None:
    with pytest.raises(VersionSkew) as refused:
        fitted(_sources(theme="x"), source=None, target=(4, 1, 2), target_env_id="staging")
    assert "версия Superset источника неизвестна" in refused.value.message


def test_the_same_release_changes_nothing() -> None:
    given = _sources(theme="x")
    sources, translated = fitted(given, source=(6, 1, 0), target=(6, 1, 0), target_env_id="prod")
    assert translated == []
    assert sources.dashboards == given.dashboards
