"""What differs between the Superset releases one fleet may run while it upgrades.

Read off the releases themselves (their import schemas, their exports and their REST API, 5.0.0
and 6.1.0): an export names fields an older release's import refuses ("Unknown field"), and the
assets import takes a sparse bundle from 6.0 on. A release sstools has not seen is taken as the
newest known release not newer than it: it may refuse more than it must, never less. 4.1.2 was
tried too: its lists carry no UUIDs, so releases before :data:`OLDEST` are refused in words.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import yaml

from sstools.errors import SstoolsError

Release = tuple[int, int, int]

KNOWN: tuple[Release, ...] = ((5, 0, 0), (6, 1, 0))
# Before 5.0 the dashboard, chart and dataset lists (and their detail endpoints) carry no UUID,
# which every plan and drift check matches on: such an environment is refused in words.
OLDEST: Release = (5, 0, 0)
SPARSE_ASSETS_IMPORT: Release = (6, 0, 0)
ROLE_SEARCH: Release = (6, 0, 0)  # GET /api/v1/security/roles/search/: roles with permission ids
UUID_FILTER: Release = (6, 0, 0)  # lists filtered by ``uuid`` (before: "not allowed to filter")

_RELEASE = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?")


def parse(text: str | None) -> Release | None:
    """``"5.0.0"``, ``"6.1.0rc1"`` or ``"4.1"`` as a release; anything else ``None``."""
    found = _RELEASE.match(text or "")
    if found is None:
        return None
    major, minor, patch = found.groups()
    return (int(major), int(minor), int(patch or 0))


def shown(release: Release | None) -> str:
    return ".".join(str(part) for part in release) if release else "?"


def takes_sparse_assets_import(release: Release | None) -> bool:
    """Whether ``POST /api/v1/assets/import/`` takes ``sparse=true`` (an unknown one: yes)."""
    return release is None or release >= SPARSE_ASSETS_IMPORT


def lists_uuids(release: Release | None) -> bool:
    return release is None or release >= OLDEST


def has_role_search(release: Release | None) -> bool:
    return release is None or release >= ROLE_SEARCH


def filters_by_uuid(release: Release | None) -> bool:
    return release is None or release >= UUID_FILTER


class Policy(StrEnum):
    """What a plan does with a field the target's release does not take."""

    drop = "drop"  # a hint the target works out on its own: dropped whatever it holds
    drop_if_empty = "drop_if_empty"  # content: dropped when empty, else the plan refuses


@dataclass(frozen=True)
class NewField:
    kind: str  # the export's folder: dashboards, charts, datasets, databases
    path: str  # ``columns.datetime_format``: of each item of the list (or the dict) ``columns``
    since: Release  # the first known release whose import takes it
    policy: Policy


def _new_in(since: Release, policy: Policy, fields: dict[str, tuple[str, ...]]) -> list[NewField]:
    return [NewField(kind, path, since, policy) for kind, paths in fields.items() for path in paths]


# What 6.1.0 exports and 5.0.0's import refuses.
NEW_FIELDS: tuple[NewField, ...] = (
    *_new_in(
        (6, 1, 0),
        Policy.drop_if_empty,
        {
            "dashboards": ("theme_uuid", "theme_id", "tags"),
            "charts": ("tags",),
            "datasets": ("folders", "currency_code_column", "columns.datetime_format"),
            "databases": ("encrypted_extra", "masked_encrypted_extra", "extra.per_user_caching"),
        },
    ),
    *_new_in(
        (6, 1, 0),
        Policy.drop,
        {"datasets": ("source_db_engine", "data_file"), "databases": ("configuration_method",)},
    ),
)


def known_as(release: Release | None) -> Release:
    """The known release whose format ``release`` is taken to have (see the module)."""
    if release is None:
        return KNOWN[-1]
    older = [known for known in KNOWN if known <= release]
    return older[-1] if older else KNOWN[0]


def not_taken(kind: str, release: Release | None) -> list[NewField]:
    """The fields of ``kind`` a newer export may carry that ``release``'s import refuses."""
    seen_as = known_as(release)
    return [field for field in NEW_FIELDS if field.kind == kind and field.since > seen_as]


def empty(value: Any) -> bool:
    """Nothing a person set: what the import would take a missing field as."""
    return value is None or value is False or value in ("", [], {})


class FieldNotTaken(SstoolsError):
    """A field holds content that the target's release has no place for."""

    def __init__(self, kind: str, name: str, field: str) -> None:
        super().__init__(f"{kind}/{name}: {field}")
        self.kind = kind
        self.name = name  # the object's title in the export
        self.field = field


@dataclass(frozen=True)
class Dropped:
    kind: str
    name: str
    field: str
    had_content: bool  # a hint dropped (Policy.drop) rather than an empty field


def _holders(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        return [value]
    return (
        [item for item in value or [] if isinstance(item, dict)] if isinstance(value, list) else []
    )


_NAMES = {"dashboards": "dashboard_title", "charts": "slice_name", "datasets": "table_name"}


def fit_for(kind: str, document: dict[str, Any], release: Release | None) -> list[Dropped]:
    """Take out of ``document`` (in place) what ``release``'s import refuses; what was taken.

    Raises:
        FieldNotTaken: a field with content the release has no place for (nothing changed yet
            that matters: the caller drops the document).
    """
    name = str(document.get(_NAMES.get(kind, "database_name"), ""))
    dropped: list[Dropped] = []
    for field in not_taken(kind, release):
        head, _, inner = field.path.partition(".")
        holders = _holders(document.get(head)) if inner else [document]
        key = inner or head
        for holder in holders:
            if key not in holder:
                continue
            had = not empty(holder[key])
            if had and field.policy is Policy.drop_if_empty:
                raise FieldNotTaken(kind, name, field.path)
            del holder[key]
            dropped.append(Dropped(kind, name, field.path, had))
    return dropped


def without_empty_new_fields(kind: str, document: dict[str, Any]) -> None:
    """Take out (in place) every release-specific field that is empty: a newer export's
    ``folders: null`` and an older one's missing ``folders`` are the same object."""
    for field in NEW_FIELDS:
        if field.kind != kind:
            continue
        head, _, inner = field.path.partition(".")
        for holder in _holders(document.get(head)) if inner else [document]:
            key = inner or head
            if key in holder and empty(holder[key]):
                del holder[key]


def fit_bundle(bundle: bytes, release: Release | None) -> bytes:
    """A Superset export ZIP as ``release``'s import takes it (each YAML through :func:`fit_for`).

    Raises:
        FieldNotTaken: as :func:`fit_for`.
    """
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(bundle)) as source, zipfile.ZipFile(out, "w") as fitted:
        for name in source.namelist():
            content = source.read(name)
            parts = name.split("/")
            kind = parts[1] if len(parts) > 2 else ""
            if name.endswith(".yaml") and not_taken(kind, release):
                document = yaml.safe_load(content)
                if isinstance(document, dict) and fit_for(kind, document, release):
                    content = yaml.safe_dump(document, allow_unicode=True, sort_keys=False).encode()
            fitted.writestr(name, content)
    return out.getvalue()
