"""A Superset export bundle as the files the repository keeps: keyed by UUID, secret-free, stable.

Superset's ZIP names its files after titles and ids (``charts/Sales_12.yaml``) inside a folder
stamped with the export time, beside a ``metadata.yaml`` holding that time again. None of that is
the object: here each YAML is read, databases cut down to what is known to be safe
(:mod:`sstools.git_store._database`), dumped with sorted keys, and filed as
``<kind>/<uuid>.yaml``, so exporting an unchanged dashboard twice gives the same bytes.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from dataclasses import dataclass
from typing import Any, TypeGuard

import yaml

from sstools.git_store._database import clean_database
from sstools.git_store.errors import ExportError
from sstools.texts import git as texts

KINDS = ("dashboards", "charts", "datasets", "databases")


@dataclass(frozen=True)
class ExportedDashboard:
    uuid: str
    title: str
    path: str


def _is_appended_row(component: Any) -> TypeGuard[dict[str, Any]]:
    """A row Superset's export appends for charts the saved layout lacks (``append_charts``).

    Its id and its charts' ids are random on every export and its charts come in set order;
    the ``"0": "ROOT_ID"`` in its meta is that function's own mark.
    """
    return (
        isinstance(component, dict)
        and component.get("type") == "ROW"
        and str(component.get("id", "")).startswith("ROW-N-")
        and component.get("meta") == {"0": "ROOT_ID", "background": "BACKGROUND_TRANSPARENT"}
    )


def _stable_position(position: dict[str, Any]) -> None:
    """Give the rows the export appends, and their charts, ids and an order of their content."""
    grid = position.get("GRID_ID")
    if not isinstance(grid, dict):
        return
    for index, row_id in enumerate(list(grid.get("children", []))):
        row = position.get(row_id)
        if not _is_appended_row(row):
            continue
        children = row.get("children", [])
        charts: list[dict[str, Any]] = [
            chart
            for chart in (position.get(child) for child in children)
            if isinstance(chart, dict) and isinstance(chart.get("meta"), dict)
        ]
        if len(charts) != len(children):
            continue
        charts.sort(key=lambda chart: str(chart["meta"].get("uuid")))
        uuids = "".join(str(chart["meta"].get("uuid")) for chart in charts)
        new_row = f"ROW-N-{hashlib.sha1(uuids.encode()).hexdigest()[:8].upper()}"  # noqa: S324
        for chart in charts:
            del position[chart["id"]]
            chart["id"] = f"CHART-{chart['meta'].get('uuid')}"
            chart["parents"] = ["ROOT_ID", "GRID_ID", new_row]
            position[chart["id"]] = chart
        del position[row_id]
        position[new_row] = {**row, "id": new_row, "children": [c["id"] for c in charts]}
        grid["children"][index] = new_row


def load(content: bytes | str) -> Any:
    """A YAML file of an export: safe, read by libyaml's parser (PyYAML's own is ~10× slower,
    and a fleet's drift check or a deploy plan reads hundreds of them)."""
    return yaml.load(content, Loader=yaml.CSafeLoader)


def dump(document: Any) -> bytes:
    """The one YAML form the repository holds: sorted keys, Unicode as is, no line wrapping."""
    text = yaml.safe_dump(
        document, sort_keys=True, allow_unicode=True, default_flow_style=False, width=2**31 - 1
    )
    return text.encode("utf-8")


def normalise(bundle: bytes) -> dict[str, bytes]:
    """``{"dashboards/<uuid>.yaml": bytes, "charts/<uuid>.yaml": …}`` from an export ZIP."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(bundle))
    except zipfile.BadZipFile as exc:
        raise ExportError(texts.EXPORT_NOT_ZIP) from exc
    files: dict[str, bytes] = {}
    with archive:
        for name in archive.namelist():
            parts = name.split("/")
            # <export folder>/<kind>/…/<file>.yaml; metadata.yaml (the export time) is not kept.
            if len(parts) < 3 or parts[1] not in KINDS or not name.endswith(".yaml"):
                continue
            document = load(archive.read(name))
            if not isinstance(document, dict) or not isinstance(document.get("uuid"), str):
                raise ExportError(texts.EXPORT_NO_UUID.format(name=name))
            if parts[1] == "databases":
                document = clean_database(document)
            if parts[1] == "dashboards" and isinstance(document.get("position"), dict):
                _stable_position(document["position"])
            files[f"{parts[1]}/{document['uuid']}.yaml"] = dump(document)
    return files


def dashboards_in(files: dict[str, bytes]) -> list[ExportedDashboard]:
    """The dashboards among normalised files, with their titles."""
    found = []
    for path, content in sorted(files.items()):
        if path.startswith("dashboards/"):
            document = load(content)
            found.append(
                ExportedDashboard(
                    uuid=str(document["uuid"]),
                    title=str(document.get("dashboard_title", "")),
                    path=path,
                )
            )
    return found
