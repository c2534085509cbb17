"""The files a deploy task imports, kept in sstools' own folder and named in the task by digest.

A durable task's arguments are stored by the task engine for as long as it keeps the task
(DBOS's ``workflow_status.inputs``), and each step's output beside them. Exported files do not
belong there: a deploy's order names each dashboard's files by the SHA-256 of what is saved
here (``<bundle_dir>/<sha256>.json``), and the import step loads them by it, checking the digest.
Saving the same files again writes nothing new. Bundles untouched for :data:`KEEP_S` are
removed when another is saved: a task still waiting for them then fails with
:class:`BundleMissing` rather than importing something else.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from sstools.errors import SstoolsError
from sstools.texts import deploy as texts

KEEP_S = 30 * 24 * 3600.0
_SUFFIX = ".json"


class BundleMissing(SstoolsError):
    """The bundle a task names is gone or does not match its digest."""

    def __init__(self, key: str) -> None:
        super().__init__(texts.BUNDLE_MISSING.format(key=key[:12]))
        self.key = key


def _encode(files: Mapping[str, bytes]) -> bytes:
    encoded = {path: base64.b64encode(content).decode() for path, content in files.items()}
    return json.dumps(encoded, sort_keys=True).encode()


def key_of(files: Mapping[str, bytes]) -> str:
    """The name a task gives these files: the SHA-256 of the form they are saved in."""
    return hashlib.sha256(_encode(files)).hexdigest()


def _path(root: Path, key: str) -> Path:
    if len(key) != 64 or not all(c in "0123456789abcdef" for c in key):
        raise BundleMissing(key)
    return root / f"{key}{_SUFFIX}"


def prune(root: Path, keep_s: float = KEEP_S, now: float | None = None) -> list[str]:
    """Remove bundles not saved for ``keep_s`` seconds; the keys removed."""
    cutoff = (time.time() if now is None else now) - keep_s
    removed = []
    for path in root.glob(f"*{_SUFFIX}") if root.is_dir() else []:
        with contextlib.suppress(FileNotFoundError):  # another worker pruned it first
            if path.stat().st_mtime < cutoff:
                path.unlink()
                removed.append(path.stem)
    return removed


def save(root: Path, bundles: Iterable[Mapping[str, bytes]]) -> list[str]:
    """Save each bundle (fsync'd, published atomically) and prune old ones; their keys in order."""
    root.mkdir(parents=True, exist_ok=True)
    keys = []
    saved_at: float | None = None
    for files in bundles:
        content = _encode(files)
        key = hashlib.sha256(content).hexdigest()
        path = _path(root, key)
        try:
            os.utime(path)  # saved before: keep it as long as a new one
        except FileNotFoundError:
            # A file of its own per writer: two approvals of one plan may save it at once.
            with tempfile.NamedTemporaryFile(
                dir=root, prefix=f"{key}.", suffix=".part", delete=False
            ) as handle:
                handle.write(content)
                handle.flush()
                os.fsync(handle.fileno())
            Path(handle.name).replace(path)
        keys.append(key)
        saved_at = path.stat().st_mtime
    # Ages on the clock that stamped the files (the filesystem's), not the process's: with the
    # host's clock ahead of a network share's, or moved for a test, a fresh bundle is not old.
    prune(root, now=saved_at)
    return keys


def load(root: Path, key: str) -> dict[str, bytes]:
    """The files saved under ``key``.

    Raises:
        BundleMissing: no such bundle, or its content does not match the key.
    """
    try:
        content = _path(root, key).read_bytes()
    except FileNotFoundError as exc:
        raise BundleMissing(key) from exc
    if hashlib.sha256(content).hexdigest() != key:
        raise BundleMissing(key)
    encoded: dict[str, str] = json.loads(content)
    return {path: base64.b64decode(text) for path, text in encoded.items()}
