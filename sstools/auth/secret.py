"""The JWT signing key: ``SSTOOLS_JWT_SECRET``, or in development a random one kept in a file.

The file sits beside a SQLite database (else in ``.sstools/``), is created with mode 0600 and is
published atomically, so workers starting together agree on one key.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from functools import lru_cache
from pathlib import Path

import structlog
from sqlalchemy.engine import make_url

from sstools.config import Settings
from sstools.errors import SstoolsError

SECRET_FILE_NAME = "jwt-secret"  # noqa: S105 - a file name, not a secret
_MIN_LENGTH = 32
_log = structlog.get_logger("sstools.auth")


class SecretFileError(SstoolsError):
    """The secret file exists but does not hold a usable secret."""


def secret_file_path(settings: Settings) -> Path:
    if settings.jwt_secret_file is not None:
        return settings.jwt_secret_file
    url = make_url(settings.database_url)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        return Path(str(url.database)).parent / SECRET_FILE_NAME
    return Path(".sstools") / SECRET_FILE_NAME


def _publish_new_secret(path: Path) -> None:
    """Write a fresh secret to a private temporary file, then link it into place (atomic)."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as file:
            file.write(secrets.token_urlsafe(48))
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(FileExistsError):  # another worker won: its secret is read
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def read_or_create_secret(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        _publish_new_secret(path)
    secret = path.read_text().strip()
    if len(secret) < _MIN_LENGTH:
        raise SecretFileError(
            f"{path}: expected a JWT secret of at least {_MIN_LENGTH} characters; "
            "delete the file to generate a new one"
        )
    return secret


@lru_cache(maxsize=8)
def _installation_secret(path: Path) -> str:
    secret = read_or_create_secret(path)
    if path.stat().st_mode & 0o077:
        _log.warning("jwt_secret_file_readable_by_others", file=str(path), fix=f"chmod 600 {path}")
    _log.warning(
        "jwt_secret_generated",
        file=str(path),
        message="SSTOOLS_JWT_SECRET is not set: tokens are signed with this installation's "
        "generated secret and will not survive a reinstall",
    )
    return secret


def signing_key(settings: Settings) -> str:
    """The HS256 key tokens are signed and verified with."""
    explicit = settings.jwt_secret.get_secret_value()
    return explicit or _installation_secret(secret_file_path(settings).absolute())
