"""The read-only history of files on a branch: the commits that changed them, newest first."""

from __future__ import annotations

from pathlib import Path

from sstools.git_store._repo import Repository

DASHBOARD = "dashboards/a.yaml"
CHART = "charts/c.yaml"
OTHER = "dashboards/b.yaml"


def test_history_lists_the_commits_that_changed_the_paths_newest_first_and_bounded(
    tmp_path: Path,
) -> None:
    repository = Repository(tmp_path / "git")
    made = []
    for index, (path, message) in enumerate(
        [(DASHBOARD, "first"), (OTHER, "elsewhere"), (CHART, "chart"), (DASHBOARD, "second")]
    ):
        commit, _ = repository.commit("main", {path: f"v{index}".encode()}, message, "e <e@x>")
        assert commit is not None
        made.append(commit)

    found = repository.history("main", [DASHBOARD, CHART], limit=50)

    assert [one.message for one in found] == ["second", "chart", "first"]
    assert [one.id for one in found] == [made[3].id, made[2].id, made[0].id]
    assert [one.message for one in repository.history("main", [DASHBOARD], limit=1)] == ["second"]
    assert repository.history("main", [], limit=50) == []
    assert repository.history("main", ["dashboards/none.yaml"], limit=50) == []
