"""Objects as they compare across environments: every per-environment id taken out or named by UUID.

The same dashboard exported from two Superset instances differs in its ids (a chart's
``meta.chartId``, ``params.datasource: "12__table"``, ``slice_id``, the chart ids that key
``chart_configuration`` or fill ``chartsInScope``…) even when nothing a person sees differs, and
Superset's import itself rewrites a little (``annotation_layers`` kept to formulas, columns
re-ordered). :func:`portable` removes all of that, so "equal" means equal to a person.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import json
from typing import Any

from sstools.git_store import clean_database
from sstools.redaction import MASK, redact, redact_text, secret_field
from sstools.superset import versions

Document = dict[str, Any]

# Field-level diffs name dotted keys; a huge layout change stops at this many of them.
MAX_FIELDS = 50


def chart_ids(position: Any) -> dict[int, str]:
    """``meta.chartId -> meta.uuid`` of the chart components of a dashboard's layout."""
    found: dict[int, str] = {}
    if isinstance(position, dict):
        for node in position.values():
            if isinstance(node, dict) and node.get("type") == "CHART":
                meta = node.get("meta")
                if (
                    isinstance(meta, dict)
                    and isinstance(meta.get("chartId"), int)
                    and meta.get("uuid")
                ):
                    found[meta["chartId"]] = str(meta["uuid"])
    return found


class _ChartRefs:
    """Chart ids of one environment as ``chart:<uuid>`` (an id the layout lacks stays visible)."""

    def __init__(self, ids: dict[int, str]) -> None:
        self._ids = ids

    def one(self, value: Any) -> Any:
        try:
            number = int(value)
        except (TypeError, ValueError):
            return value
        return f"chart:{self._ids[number]}" if number in self._ids else f"chart-id:{number}"

    def many(self, values: Any) -> Any:
        if not isinstance(values, list):
            return values
        return sorted((self.one(value) for value in values), key=str)

    def keys(self, mapping: Any) -> Any:
        if not isinstance(mapping, dict):
            return mapping
        return {str(self.one(key)): value for key, value in mapping.items()}


def _scope(holder: Any, refs: _ChartRefs) -> None:
    """``scope.excluded`` and ``chartsInScope`` of a filter or a cross-filter: chart ids."""
    if not isinstance(holder, dict):
        return
    scope = holder.get("scope")
    if isinstance(scope, dict) and "excluded" in scope:
        scope["excluded"] = refs.many(scope["excluded"])
    if "chartsInScope" in holder:
        holder["chartsInScope"] = refs.many(holder["chartsInScope"])


def _metadata(metadata: Document, refs: _ChartRefs) -> None:
    # Legacy copy of the layout, and a key Superset's import deletes: neither is content.
    metadata.pop("positions", None)
    metadata.pop("show_native_filters", None)
    if "timed_refresh_immune_slices" in metadata:
        metadata["timed_refresh_immune_slices"] = refs.many(metadata["timed_refresh_immune_slices"])
    if isinstance(metadata.get("filter_scopes"), dict):
        scopes = refs.keys(metadata["filter_scopes"])
        for columns in scopes.values():
            for attributes in columns.values() if isinstance(columns, dict) else []:
                if isinstance(attributes, dict) and "immune" in attributes:
                    attributes["immune"] = refs.many(attributes["immune"])
        metadata["filter_scopes"] = scopes
    if "expanded_slices" in metadata:
        metadata["expanded_slices"] = refs.keys(metadata["expanded_slices"])
    if isinstance(metadata.get("default_filters"), str):
        with contextlib.suppress(json.JSONDecodeError):
            metadata["default_filters"] = refs.keys(json.loads(metadata["default_filters"]))
    for native_filter in metadata.get("native_filter_configuration") or []:
        _scope(native_filter, refs)
    _scope(metadata.get("global_chart_configuration"), refs)
    if isinstance(metadata.get("chart_configuration"), dict):
        configuration = refs.keys(metadata["chart_configuration"])
        for chart in configuration.values():
            if isinstance(chart, dict):
                chart.pop("id", None)
                _scope(chart.get("crossFilters"), refs)
        metadata["chart_configuration"] = configuration


def _dashboard(document: Document) -> Document:
    position = document.get("position")
    refs = _ChartRefs(chart_ids(position))
    if isinstance(position, dict):
        for node in position.values():
            if isinstance(node, dict) and isinstance(node.get("meta"), dict):
                node["meta"].pop("chartId", None)
    metadata = document.pop("metadata", None)
    if isinstance(metadata, dict):
        _metadata(metadata, refs)
        # Superset's import writes `native_filter_configuration: []` into a dashboard that had
        # no metadata: an empty setting and a missing one show the same dashboard.
        metadata = {key: value for key, value in metadata.items() if value not in ([], {}, None)}
    if metadata:
        document["metadata"] = metadata
    return document


def _form_data(form_data: Any) -> None:
    if isinstance(form_data, dict):
        for key in ("datasource", "slice_id", "dashboards", "dashboardId"):
            form_data.pop(key, None)


def _chart(document: Document) -> Document:
    params = document.get("params")
    if isinstance(params, dict):
        _form_data(params)
        # Superset's chart import keeps only formula annotations and writes [] when there are none.
        layers = [
            layer
            for layer in params.pop("annotation_layers", None) or []
            if isinstance(layer, dict) and layer.get("annotationType") == "FORMULA"
        ]
        if layers:
            params["annotation_layers"] = layers
    context = document.get("query_context")
    if isinstance(context, str):
        try:
            parsed = json.loads(context)
        except json.JSONDecodeError:
            return document
        if isinstance(parsed, dict):
            parsed.pop("datasource", None)
            _form_data(parsed.get("form_data"))
            for query in parsed.get("queries") or []:
                if isinstance(query, dict):
                    query.pop("datasource", None)
            document["query_context"] = parsed
    return document


def _by(key: str, items: Any) -> Any:
    if not isinstance(items, list):
        return items
    return sorted(items, key=lambda item: str(item.get(key)) if isinstance(item, dict) else "")


def _dataset(document: Document) -> Document:
    # An import with overwrite appends new columns after the kept ones: order is not content.
    document["columns"] = _by("column_name", document.get("columns"))
    document["metrics"] = _by("metric_name", document.get("metrics"))
    return document


# A connection compares (and shows) as git and backups keep it: only its allow-listed keys.
_BY_KIND = {
    "dashboards": _dashboard,
    "charts": _chart,
    "datasets": _dataset,
    "databases": clean_database,
}


def portable(kind: str, document: Document) -> Document:
    """``document`` (a normalised export of ``kind``: dashboards, charts…) without its ids."""
    cleaned = copy.deepcopy(document)
    cleaned.pop("id", None)
    # A cleared field (css, description) is saved as "" by the UI and as null by the API.
    cleaned = {key: None if value == "" else value for key, value in cleaned.items()}
    versions.without_empty_new_fields(kind, cleaned)  # what only one side's release writes
    transform = _BY_KIND.get(kind)
    return transform(cleaned) if transform else cleaned


class _Missing:
    """A key one side lacks (``None`` is a value: ``null``)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def differences(source: Any, target: Any, prefix: str = "") -> list[tuple[str, Any, Any]]:
    """``(dotted key, source value, target value)`` of each difference (lists compare whole;
    :data:`MISSING` for a key one side lacks); at most :data:`MAX_FIELDS`."""
    if not (isinstance(source, dict) and isinstance(target, dict)):
        return [] if source == target else [(prefix or ".", source, target)]
    found: list[tuple[str, Any, Any]] = []
    for key in sorted(set(source) | set(target), key=str):
        if len(found) >= MAX_FIELDS:
            break
        path = f"{prefix}.{key}" if prefix else str(key)
        if key not in source or key not in target:
            found.append((path, source.get(key, MISSING), target.get(key, MISSING)))
        else:
            found.extend(differences(source[key], target[key], path))
    return found[:MAX_FIELDS]


def differing_fields(source: Any, target: Any, prefix: str = "") -> list[str]:
    """Dotted keys whose values differ (lists compare whole); at most :data:`MAX_FIELDS`."""
    return [path for path, _, _ in differences(source, target, prefix)]


# -- values of the differences: what a person reads on the card and the compare page ----------

# Each side of a field, and its line diff, is cut at these many UTF-8 bytes («…» where cut).
MAX_VALUE_BYTES = 4096
MAX_DIFF_BYTES = 8192
# A diff too long for its bound is made from both sides cut to this: each side shows (the line
# prefixes and hunk headers fit in what is left).
_DIFF_SIDE_BYTES = MAX_DIFF_BYTES // 2 - 512
# A whole plan's values: past it, a change names its field and leaves its values out.
MAX_PLAN_VALUE_BYTES = 256 * 1024
_CUT = "…"
# Top-level keys whose text reads as lines (a one-line CSS too): they get a line diff.
_LINE_KEYS = frozenset({"css", "sql", "extra", "template_params"})


def value_text(value: Any) -> str | None:
    """A value as a person reads it: a string as it is (JSON text indented), anything else as
    indented JSON; ``None`` for :data:`MISSING`, ``""`` for ``null``."""
    if value is MISSING:
        return None
    if value is None:
        return ""
    if isinstance(value, str):
        if value.startswith(("{", "[")):
            with contextlib.suppress(json.JSONDecodeError):
                return value_text(json.loads(value))
        return redact_text(value)
    return json.dumps(redact(value), ensure_ascii=False, indent=2, sort_keys=True, default=str)


def cut(text: str | None, limit: int) -> tuple[str | None, bool]:
    """``text`` within ``limit`` UTF-8 bytes, «…» at the cut; and whether it was cut."""
    if text is None:
        return None, False
    data = text.encode()
    if len(data) <= limit:
        return text, False
    return data[: limit - len(_CUT.encode())].decode(errors="ignore") + _CUT, True


def line_diff(field: str, before: str | None, after: str | None) -> str | None:
    """The unified line diff target → source (hunks only), for multi-line text and the
    :data:`_LINE_KEYS`; ``None`` for a one-line value (before and after say it all)."""
    old, new = before or "", after or ""
    if "\n" not in old + new and field.split(".")[0] not in _LINE_KEYS:
        return None
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3))
    return "\n".join(lines[2:]) or None  # without the ---/+++ header: the page names both sides


class ValueBudget:
    """What is left of a plan's :data:`MAX_PLAN_VALUE_BYTES`."""

    def __init__(self, left: int = MAX_PLAN_VALUE_BYTES) -> None:
        self.left = left

    def spend(self, *texts: str | None) -> bool:
        """Take the texts' size; False (nothing taken) when they no longer fit."""
        size = sum(len(text.encode()) for text in texts if text is not None)
        if size > self.left:
            self.left = 0  # the rest of the plan is named, not shown: no half-shown objects
            return False
        self.left -= size
        return True


def field_values(
    path: str, source: Any, target: Any, budget: ValueBudget
) -> tuple[str | None, str | None, str | None, bool, bool]:
    """``before, after, diff, truncated, omitted`` of one difference (``target`` is before)."""
    if secret_field(path, source) or secret_field(path, target):
        shown = [None if value is MISSING else MASK for value in (target, source)]
        return shown[0], shown[1], None, False, False
    before_text, after_text = value_text(target), value_text(source)
    diff, diff_cut = cut(line_diff(path, before_text, after_text), MAX_DIFF_BYTES)
    if diff_cut:  # a unified diff lists removals first: cut, it would show no added line
        old, _ = cut(before_text, _DIFF_SIDE_BYTES)
        new, _ = cut(after_text, _DIFF_SIDE_BYTES)
        diff, _ = cut(line_diff(path, old, new), MAX_DIFF_BYTES)
    before, before_cut = cut(before_text, MAX_VALUE_BYTES)
    after, after_cut = cut(after_text, MAX_VALUE_BYTES)
    if not budget.spend(before, after, diff):
        return None, None, None, False, True
    return before, after, diff, before_cut or after_cut or diff_cut, False
