"""Every exception class sstools defines derives from the one root, ``sstools.errors.SstoolsError``.

The test imports every module of the package (not ``__main__``, which runs the CLI, nor the
Alembic scripts, which only Alembic runs) and looks at each exception class whose home is
``sstools``; a class defined inside a function is out of its reach.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import sstools
from sstools.errors import SstoolsError

NOT_IMPORTED = ("sstools.__main__", "sstools.storage.migrations")


def sstools_modules() -> list[ModuleType]:
    names = [info.name for info in pkgutil.walk_packages(sstools.__path__, prefix="sstools.")]
    wanted = [name for name in names if not name.startswith(NOT_IMPORTED)]
    return [sstools, *(importlib.import_module(name) for name in wanted)]


def exception_classes() -> dict[str, type[BaseException]]:
    """``module.Class`` → class, for every exception class defined (not imported) in sstools."""
    found: dict[str, type[BaseException]] = {}
    for module in sstools_modules():
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == module.__name__:
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


def test_the_walk_finds_the_trees_of_every_area() -> None:
    found = exception_classes()
    for name in (
        "sstools.superset.errors.SupersetNotFound",
        "sstools.git_store.errors.UnknownBranch",
        "sstools.tasks.errors.TaskConflict",
        "sstools.domain.deploy.errors.UnknownDashboard",
        "sstools.http.auth.RoleRequired",
    ):
        assert name in found


def test_every_exception_sstools_defines_derives_from_the_one_root() -> None:
    offenders = sorted(
        name for name, cls in exception_classes().items() if not issubclass(cls, SstoolsError)
    )
    assert offenders == [], "not under SstoolsError: " + ", ".join(offenders)
