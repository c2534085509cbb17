"""The repository and /api/git over the faked Superset: commits, branches, roles, push."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from dulwich.object_store import tree_lookup_path
from dulwich.objects import Blob, Commit
from dulwich.refs import Ref
from dulwich.repo import Repo
from pydantic import SecretStr

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.domain.deploy.rollback import SnapshotRecord, SnapshotUnusable, _read_snapshot
from sstools.environments import Environment, Stage
from sstools.git_store import (
    DEFAULT_BRANCH,
    BranchExists,
    CorruptCommit,
    GitStore,
    ReservedBranch,
    UnknownBranch,
    UnknownCommit,
)
from sstools.git_store._repo import Repository
from sstools.superset import SupersetClient
from sstools.testing.fake_superset import FakeSuperset
from tests.conftest import AuthHeaders

FILES = {"dashboards/a.yaml": b"title: A\n", "charts/b.yaml": b"name: B\n"}


def test_a_new_repository_has_main_with_one_empty_commit(tmp_path: Path) -> None:
    repository = Repository(tmp_path / "git")
    (branch,) = repository.branches()
    assert (branch.name, branch.default) == (DEFAULT_BRANCH, True)
    assert Repo(str(tmp_path / "git")).refs.read_ref(Ref(b"HEAD")) == b"ref: refs/heads/main"


def test_commit_lists_changes_and_an_unchanged_one_makes_no_commit(tmp_path: Path) -> None:
    repository = Repository(tmp_path / "git")
    first, changes = repository.commit("main", FILES, "first", "ann <ann@sstools>")
    assert first is not None
    assert first.author == "ann <ann@sstools>"
    assert sorted((c.path, c.change) for c in changes) == [
        ("charts/b.yaml", "added"),
        ("dashboards/a.yaml", "added"),
    ]
    assert repository.commit("main", FILES, "again", "ann <ann@sstools>") == (None, [])
    second, changes = repository.commit(
        "main", {"charts/b.yaml": b"name: B2\n"}, "second", "bob <bob@sstools>"
    )
    assert second is not None
    assert [(c.path, c.change) for c in changes] == [("charts/b.yaml", "modified")]
    head, files = repository.read("main", ["dashboards/a.yaml", "charts/b.yaml", "nope.yaml"])
    assert head == second
    assert files == {"dashboards/a.yaml": b"title: A\n", "charts/b.yaml": b"name: B2\n"}
    assert repository.last_commit("main", "dashboards/a.yaml") == first


def test_branches_start_from_a_branch_and_are_not_made_twice(tmp_path: Path) -> None:
    repository = Repository(tmp_path / "git")
    repository.commit("main", FILES, "first", "ann <ann@sstools>")
    branch = repository.create_branch("feature/x", "main")
    assert branch.commit == repository.branches()[1].commit  # "main" sorts after "feature/x"
    with pytest.raises(BranchExists):
        repository.create_branch("feature/x", "main")
    with pytest.raises(UnknownBranch):
        repository.create_branch("y", "no-such-branch")


def test_a_commit_is_pushed_to_a_bare_remote_on_disk(tmp_path: Path) -> None:
    remote = Repo.init_bare(str(tmp_path / "remote.git"), mkdir=True)
    repository = Repository(tmp_path / "git", remote=str(tmp_path / "remote.git"))
    commit, _ = repository.commit("main", FILES, "first", "ann <ann@sstools>")
    assert commit is not None
    repository.push("main")
    assert remote.refs[Ref(b"refs/heads/main")].decode() == commit.id


@pytest.mark.parametrize(
    ("remote", "said"),
    [
        ("http://ann:s3cret-token@127.0.0.1:9/repo.git", "удалённый репозиторий недоступен ("),
        ("{folder}/not-a-repository", "удалённый репозиторий отказал"),
    ],
)
async def test_a_failed_push_keeps_the_commit_and_says_why_in_russian_without_the_address(
    tmp_path: Path, fake_superset: FakeSuperset, remote: str, said: str
) -> None:
    fake_superset.dashboards.append({"id": 3, "dashboard_title": "Продажи", "published": True})
    env = Environment(
        id="ss-dev",
        name="Dev",
        stage=Stage.dev,
        url="http://superset.test",
        username=fake_superset.username,
        password=SecretStr(fake_superset.password),
    )
    superset = SupersetClient(env, transport=fake_superset.transport())
    remote = remote.format(folder=tmp_path)
    git = GitStore(tmp_path / "git", remote)
    outcome = await git.commit(superset, [3], message="версия 1", username="ann")
    await superset.aclose()
    assert outcome.commit is not None
    assert outcome.pushed is False
    assert outcome.push_error is not None
    assert outcome.push_error.startswith(said)
    assert "s3cret" not in outcome.push_error
    assert remote not in outcome.push_error


async def test_commit_over_the_api_then_nothing_new(
    client: httpx.AsyncClient,
    auth: AuthHeaders,
    fake_superset: FakeSuperset,
    token_for: Callable[[Role], str],
) -> None:
    fake_superset.dashboards.append({"id": 3, "dashboard_title": "Продажи", "published": True})
    body = {"env_id": "ss-dev", "dashboard_ids": [3], "message": "версия 1"}
    first = await client.post("/api/git/commits", json=body, headers=auth(Role.engineer))
    assert first.status_code == 200, first.text
    assert first.json()["created"] is True
    assert first.json()["commit"]["author"] == "engineer <engineer@sstools>"
    assert len(first.json()["files"]) == 3  # dashboard, dataset, database
    again = await client.post("/api/git/commits", json=body, headers=auth(Role.engineer))
    assert again.json()["created"] is False
    assert "коммит не создан" in again.json()["summary"]
    status = await client.get(
        "/api/git/status", params={"env_id": "ss-dev"}, headers=auth(Role.analyst)
    )
    assert [d["status"] for d in status.json()["dashboards"]] == ["clean"]
    health = await client.get("/api/dashboards/3/health?env_id=ss-dev", headers=auth(Role.analyst))
    assert health.json()["git_status"] == "совпадает с веткой main"
    client.cookies.set("sstools_session", token_for(Role.analyst))
    page = await client.get("/dashboards/3?env_id=ss-dev")
    assert "<dd>совпадает с веткой main</dd>" in page.text
    assert f"<code>{first.json()['commit']['id'][:7]}</code> · версия 1 · engineer" in page.text


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/git/branches", {"name": "x"}),
        ("POST", "/api/git/commits", {"env_id": "ss-dev", "dashboard_ids": [1], "message": "m"}),
    ],
)
async def test_analysts_may_not_write(
    client: httpx.AsyncClient, auth: AuthHeaders, method: str, path: str, body: object
) -> None:
    response = await client.request(method, path, json=body, headers=auth(Role.analyst))
    assert response.status_code == 403
    assert response.json()["required_role"] == "engineer"


@pytest.mark.parametrize(
    "name",
    ["a..b", "-x", "HEAD", "x.lock", "a b", "x/", "refs/heads/x", "snapshots/x", "snapshots"],
)
async def test_a_branch_name_git_refuses_is_422(
    client: httpx.AsyncClient, auth: AuthHeaders, name: str
) -> None:
    response = await client.post(
        "/api/git/branches", json={"name": name}, headers=auth(Role.engineer)
    )
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "name"]


async def test_a_dashboard_without_its_environment_is_a_422_naming_env_id(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    response = await client.get(
        "/api/git/status", params={"dashboard_id": 3}, headers=auth(Role.analyst)
    )
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", "env_id"]


async def test_concurrent_commits_queue_instead_of_interleaving(
    client: httpx.AsyncClient, auth: AuthHeaders, fake_superset: FakeSuperset, settings: Settings
) -> None:
    fake_superset.dashboards.extend(
        {"id": i, "dashboard_title": f"Д{i}", "published": True} for i in range(1, 7)
    )
    responses = await asyncio.gather(
        *(
            client.post(
                "/api/git/commits",
                json={"env_id": "ss-dev", "dashboard_ids": [i], "message": f"д{i}"},
                headers=auth(Role.engineer),
            )
            for i in range(1, 7)
        )
    )
    assert [r.status_code for r in responses] == [200] * 6  # none lost a compare-and-set race
    history = [entry.commit for entry in Repo(str(settings.git_dir)).get_walker()]
    assert len(history) == 7  # one each, in a line, after the empty first commit
    assert all(len(commit.parents) == 1 for commit in history[:-1])


def test_writers_in_many_threads_each_with_its_own_handle_all_land(tmp_path: Path) -> None:
    # Task steps open the repository on their own (another thread, another event loop): their
    # commits must queue, not fail on git's ref lock or on a moved branch.
    from concurrent.futures import ThreadPoolExecutor

    def write(number: int) -> str | None:
        repository = Repository(tmp_path / "git")
        commit, _ = repository.commit(
            DEFAULT_BRANCH, {f"docs/{number}.md": b"x"}, f"doc {number}", "a <a@x>"
        )
        return commit.id if commit else None

    with ThreadPoolExecutor(max_workers=8) as pool:
        commits = list(pool.map(write, range(16)))

    assert None not in commits
    _, files = Repository(tmp_path / "git").read(
        DEFAULT_BRANCH, [f"docs/{number}.md" for number in range(16)]
    )
    assert len(files) == 16


def test_a_pinned_commit_reads_as_it_was_after_its_branch_moves(tmp_path: Path) -> None:
    repository = Repository(tmp_path / "git")
    pinned, _ = repository.commit("main", FILES, "snapshot", "sstools <sstools@sstools>")
    assert pinned is not None
    repository.commit("main", {"dashboards/a.yaml": b"title: TAMPERED\n"}, "x", "b <b@x>")
    info, files = repository.read_commit(pinned.id, ["dashboards/a.yaml", "nope.yaml"])
    assert info == pinned
    assert files == {"dashboards/a.yaml": b"title: A\n"}
    with pytest.raises(UnknownCommit):
        repository.read_commit("0" * 40, ["dashboards/a.yaml"])
    with pytest.raises(UnknownCommit):
        repository.read_commit("main", ["dashboards/a.yaml"])  # a branch is not a pinned id


def test_a_pinned_commit_whose_object_file_was_rewritten_is_refused(tmp_path: Path) -> None:
    repository = Repository(tmp_path / "git")
    pinned, _ = repository.commit("main", FILES, "snapshot", "sstools <sstools@sstools>")
    assert pinned is not None
    repo = Repo(str(tmp_path / "git"))
    commit = repo[pinned.id.encode()]
    assert isinstance(commit, Commit)
    _, blob_id = tree_lookup_path(repo.__getitem__, commit.tree, b"dashboards/a.yaml")
    # Put another blob's content under the snapshot blob's name, as a hand edit would.
    other = Blob.from_string(b"title: TAMPERED\n")
    repo.object_store.add_object(other)
    loose = Path(repo.object_store._get_shafile_path(blob_id))
    loose.chmod(0o644)
    loose.write_bytes(Path(repo.object_store._get_shafile_path(other.id)).read_bytes())
    with pytest.raises(CorruptCommit):
        repository.read_commit(pinned.id, ["dashboards/a.yaml"])


async def test_people_cannot_write_snapshot_branches_through_the_store(tmp_path: Path) -> None:
    git = GitStore(tmp_path / "git")
    with pytest.raises(ReservedBranch):
        await git.create_branch("snapshots/abc")
    made = await git.create_branch("snapshots/abc", snapshot=True)  # the snapshot step may
    assert made.name == "snapshots/abc"


def test_a_snapshot_without_a_pinned_commit_or_with_a_lost_one_is_unusable(
    tmp_path: Path,
) -> None:
    git = GitStore(tmp_path / "git")
    unpinned = SnapshotRecord(branch="snapshots/t", commit=None, dashboards=["a"])
    with pytest.raises(SnapshotUnusable, match="нет коммита снимка"):
        _read_snapshot(git, "t" * 32, unpinned)
    lost = SnapshotRecord(branch="snapshots/t", commit="1" * 40, dashboards=["a"])
    with pytest.raises(SnapshotUnusable, match=f"коммита {'1' * 40} нет"):
        _read_snapshot(git, "t" * 32, lost)
    nothing = SnapshotRecord(branch="snapshots/t", commit=None, dashboards=[])
    assert _read_snapshot(git, "t" * 32, nothing).dashboards == {}  # only deletions to plan
