"""Which Superset each sandbox instance runs, and where that version's venv and template live.

Every instance runs 6.1.0 unless ``SSTOOLS_SANDBOX_VERSIONS`` names another release for it (a
fleet in the middle of an upgrade). Each version has its own requirements file beside this
module, its own venv (``venv/`` for 6.1.0, ``venv-<version>/`` for the others) and its own
template metadata DB, both made once under the sandbox folder and shared by every fleet.
"""

from __future__ import annotations

from pathlib import Path

from sstools.sandbox.errors import SandboxError

DEFAULT = "6.1.0"
SUPPORTED = ("6.1.0", "5.0.0")  # sstools refuses older ones (sstools.superset.versions.OLDEST)

_HERE = Path(__file__).parent


def requirements(version: str) -> Path:
    name = "requirements.txt" if version == DEFAULT else f"requirements-{version}.txt"
    return _HERE / name


def venv(home: Path, version: str) -> Path:
    return home / ("venv" if version == DEFAULT else f"venv-{version}")


def install_lock(version: str) -> str:
    """One install of a release's venv and template at a time; other releases' go on beside."""
    return "install.lock" if version == DEFAULT else f"install-{version}.lock"


def template_name(version: str) -> str:
    return "template.db" if version == DEFAULT else f"template-{version}.db"


def check(versions: dict[str, str], instance_ids: tuple[str, ...]) -> dict[str, str]:
    """``versions`` as given, or ValueError naming the first environment or version we lack."""
    for env_id, version in versions.items():
        if env_id not in instance_ids:
            known = ", ".join(instance_ids)
            raise ValueError(f"no sandbox environment {env_id!r}; the environments are: {known}")
        if version not in SUPPORTED:
            raise ValueError(
                f"{env_id}: Superset {version!r} is not one the sandbox installs; "
                f"choose one of {', '.join(SUPPORTED)}"
            )
    return versions


def record(folder: Path, version: str) -> None:
    """Which release an instance's metadata DB was made by (it cannot run on another)."""
    (folder / "superset_version").write_text(version)


def check_recorded(folder: Path, env_id: str, version: str) -> None:
    """An instance set up on another release is a reset, never a start on this one."""
    if not (folder / "superset.db").is_file():
        return
    recorded = folder / "superset_version"
    was = recorded.read_text().strip() if recorded.is_file() else DEFAULT
    if was != version:
        raise SandboxError(
            f"{env_id} was set up on Superset {was}, not {version} as SSTOOLS_SANDBOX_VERSIONS "
            "says; run `sstools sandbox reset` to set it up afresh"
        )
