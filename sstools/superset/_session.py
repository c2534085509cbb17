"""One authenticated conversation with a Superset: login and refresh, CSRF, rison, errors, paging.

The service account logs in on first use; a token Superset rejects (expired, or signed with a
secret key it no longer has) is refreshed or the login redone once, for all concurrent callers,
and the request sent again; mutations carry the CSRF token of the session cookie
that fetched it. Every refusal becomes one of :mod:`sstools.superset.errors`.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
import prison
import structlog

from sstools import metrics
from sstools.environments import Environment
from sstools.redaction import redact_text
from sstools.superset import errors, versions
from sstools.texts import superset as texts
from sstools.texts import transport

PAGE_SIZE = 100  # Superset's largest page
RELEASE_TTL_S = 60.0  # environments are upgraded in place: their release is read again after this

logger = structlog.get_logger(__name__)


def _error_message(response: httpx.Response) -> str:
    """Superset's own words for a refusal, unfiltered (for the log; see :func:`public_text`)."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:2000] or response.reason_phrase
    if isinstance(body, dict):
        if isinstance(body.get("errors"), list) and body["errors"]:
            return "; ".join(
                str(err.get("message", err)) if isinstance(err, dict) else str(err)
                for err in body["errors"]
            )
        for key in ("message", "msg", "error"):
            if key in body:
                value = body[key]
                return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return str(body)[:2000]


def _is_query_error(response: httpx.Response) -> bool:
    """Superset answers a failing query with a 500 whose typed error blames the query."""
    try:
        reported = response.json().get("errors") or []
    except (ValueError, AttributeError):
        return False
    types = [str(error.get("error_type", "")) for error in reported if isinstance(error, dict)]
    return bool(types) and not any(
        kind.startswith("CONNECTION_") or kind in ("GENERIC_BACKEND_ERROR", "") for kind in types
    )


def _session_rejected(response: httpx.Response) -> bool:
    """Superset refused our token itself, before the view ran: 401 (expired, revoked), or a
    422 from its JWT layer (``{"msg": "Signature verification failed"}`` after its secret key
    changed, a malformed token). Its own refusals of a request say ``message`` or ``errors``."""
    if response.status_code == 401:
        return True
    if response.status_code != 422:
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    return isinstance(body, dict) and set(body) == {"msg"}


@dataclass(frozen=True)
class _Keys:
    # Secrets all: never in a repr (a log line or a traceback that prints one).
    access: str | None = field(repr=False)
    refresh: str | None = field(repr=False)
    csrf: str | None = field(repr=False)
    # The Flask session cookie the CSRF token belongs to: (name, value, domain, path).
    cookies: tuple[tuple[str, str, str, str], ...] = field(repr=False)


class SessionKeys:
    """What a session won (tokens, the CSRF token and its cookie), handed to the next session
    of the same account: a task's steps each run on an event loop of their own with clients of
    their own, and would otherwise log in and fetch a CSRF token once per step."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # steps of different tasks run in threads
        self._by_account: dict[tuple[str, str, str], _Keys] = {}

    @staticmethod
    def _account(env: Environment) -> tuple[str, str, str]:
        return (env.id, env.url, env.username)

    def load(self, env: Environment) -> _Keys | None:
        with self._lock:
            return self._by_account.get(self._account(env))

    def save(self, env: Environment, keys: _Keys) -> None:
        with self._lock:
            self._by_account[self._account(env)] = keys


class SupersetSession:
    """Authenticated JSON requests to one Superset environment as its service account."""

    def __init__(
        self,
        env: Environment,
        *,
        timeout_s: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
        keys: SessionKeys | None = None,
    ) -> None:
        self.env = env
        self._http = httpx.AsyncClient(
            base_url=env.url,
            timeout=timeout_s,
            transport=transport,
            headers={"Accept": "application/json"},
        )
        self._access_token: str | None = None
        self._refresh_token: str | None = None
        self._csrf_token: str | None = None
        self._auth_lock = asyncio.Lock()
        self._release: tuple[float, versions.Release | None] | None = None
        self._keys = keys
        held = keys.load(env) if keys else None
        if held is not None:
            self._access_token, self._refresh_token = held.access, held.refresh
            self._csrf_token = held.csrf
            for name, value, domain, path in held.cookies:
                self._http.cookies.set(name, value, domain=domain, path=path)

    def _keep(self) -> None:
        if self._keys is None:
            return
        cookies = tuple(
            (cookie.name, cookie.value or "", cookie.domain, cookie.path)
            for cookie in self._http.cookies.jar
        )
        self._keys.save(
            self.env, _Keys(self._access_token, self._refresh_token, self._csrf_token, cookies)
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            return await self._http.request(method, path, **kwargs)
        except httpx.TimeoutException as exc:
            raise errors.SupersetUnavailable(
                self.env.id, texts.TIMED_OUT.format(path=path)
            ) from exc
        except httpx.TransportError as exc:
            logger.warning(
                "superset_transport_error", env_id=self.env.id, error=redact_text(str(exc))
            )
            message = texts.UNREACHABLE.format(url=self.env.url, error=transport.reason(exc))
            raise errors.SupersetUnavailable(self.env.id, message) from exc

    def _raise_for(self, response: httpx.Response) -> None:
        status = response.status_code
        if status < 400:
            return
        raw = _error_message(response)
        log = logger.warning if status >= 500 else logger.info
        log(
            "superset_refused",
            env_id=self.env.id,
            method=response.request.method,
            path=response.request.url.path,
            status=status,
            message=raw,
        )
        message = errors.public_text(raw)
        env = self.env.id
        if status == 401:
            raise errors.SupersetAuthError(
                env, texts.ACCOUNT_REJECTED.format(message=message), status=status
            )
        if status == 403:
            raise errors.SupersetForbidden(env, message, status=status)
        if status == 404:
            raise errors.SupersetNotFound(env, message, status=status)
        if status in (400, 409, 422) or (status >= 500 and _is_query_error(response)):
            raise errors.SupersetBadRequest(env, message, status=status)
        if status >= 500:  # Superset's own failure: its words are internals, kept in the log
            raise errors.SupersetUnavailable(
                self.env.id, texts.SUPERSET_FAILED.format(status=status), status=status
            )
        raise errors.SupersetError(
            env, texts.HTTP_STATUS.format(status=status, message=message), status=status
        )

    async def _login(self) -> None:
        response = await self._send(
            "POST",
            "/api/v1/security/login",
            json={
                "username": self.env.username,
                "password": self.env.password.get_secret_value(),
                "provider": "db",
                "refresh": True,
            },
        )
        if response.status_code in (400, 401):
            raise errors.SupersetAuthError(self.env.id, texts.LOGIN_REFUSED)
        self._raise_for(response)
        body = response.json()
        metrics.SUPERSET_LOGINS.labels(env_id=self.env.id).inc()
        self._access_token = body["access_token"]
        self._refresh_token = body.get("refresh_token")
        self._csrf_token = None
        self._keep()

    async def _renew(self, stale_token: str | None) -> None:
        """Refresh the access token (or log in again); only once for concurrent callers."""
        async with self._auth_lock:
            if self._access_token != stale_token:
                return  # another request renewed it meanwhile
            if self._refresh_token:
                response = await self._send(
                    "POST",
                    "/api/v1/security/refresh",
                    headers={"Authorization": f"Bearer {self._refresh_token}"},
                )
                if response.status_code == 200:
                    self._access_token = response.json()["access_token"]
                    self._keep()
                    return
            await self._login()

    async def _csrf(self) -> str:
        if self._csrf_token is None:
            response = await self._fetch_csrf()
            if _session_rejected(response):
                await self._renew(response.request.headers["Authorization"].removeprefix("Bearer "))
                response = await self._fetch_csrf()
            self._raise_for(response)
            self._csrf_token = response.json()["result"]
            self._keep()
        return self._csrf_token

    async def _fetch_csrf(self) -> httpx.Response:
        return await self._send(
            "GET",
            "/api/v1/security/csrf_token/",
            headers={"Authorization": f"Bearer {self._access_token}"},
        )

    async def request(
        self,
        method: str,
        path: str,
        *,
        query: Any = None,
        params: Mapping[str, str] | None = None,
        json_body: Any = None,
        files: Any = None,
        data: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """Send an authenticated request; renew an expired token and a stale CSRF token once."""
        if self._access_token is None:
            await self._renew(None)
        mutating = method.upper() not in ("GET", "HEAD", "OPTIONS")
        all_params = dict(params or {})
        if query is not None:
            all_params["q"] = prison.dumps(query)  # httpx percent-encodes it, non-ASCII included
        for attempt in range(2):
            headers = {}
            if mutating:  # first: fetching the CSRF token may renew the session
                headers["X-CSRFToken"] = await self._csrf()
                headers["Referer"] = self.env.url
            token = self._access_token
            headers["Authorization"] = f"Bearer {token}"
            response = await self._send(
                method,
                path,
                params=all_params or None,
                json=json_body,
                files=files,
                data=data,
                headers=headers,
            )
            # Both are refusals before Superset acted, so sending again cannot do anything twice.
            if attempt == 0 and _session_rejected(response):
                logger.info(
                    "superset_session_renewed", env_id=self.env.id, status=response.status_code
                )
                await self._renew(token)
                continue
            if attempt == 0 and response.status_code == 400 and "CSRF" in response.text:
                self._csrf_token = None
                continue
            break
        self._raise_for(response)
        return response

    async def get_json(self, path: str, *, query: Any = None, **params: str) -> Any:
        return (await self.request("GET", path, query=query, params=params)).json()

    async def post_json(self, path: str, body: Any) -> Any:
        return (await self.request("POST", path, json_body=body)).json()

    async def put_json(self, path: str, body: Any) -> Any:
        return (await self.request("PUT", path, json_body=body)).json()

    async def delete(self, path: str) -> None:
        await self.request("DELETE", path)

    async def list_all(
        self,
        resource: str,
        *,
        columns: list[str],
        filters: list[dict[str, Any]] | None = None,
        limit: int = 10_000,
    ) -> list[dict[str, Any]]:
        """Every row of a paged list (``/api/v1/<resource>/``), page by page, up to ``limit``.

        The one pager for Superset's lists: dashboards, datasets, databases, roles, permissions.

        Raises:
            ReleaseTooOld: ``uuid`` asked of a release whose lists do not carry it.
        """
        if "uuid" in columns and resource != "database":
            release = await self.release()
            if not versions.lists_uuids(release):
                raise errors.ReleaseTooOld(self.env.id, versions.shown(release))
        rows: dict[Any, dict[str, Any]] = {}
        page = 0
        while len(rows) < limit:
            # Not every list may be ordered by id, so rows are keyed by id against page overlap.
            query: dict[str, Any] = {"columns": columns, "page": page, "page_size": PAGE_SIZE}
            if filters:
                query["filters"] = filters
            body = await self.get_json(f"/api/v1/{resource}/", query=query)
            batch = body.get("result", [])
            for row in batch:
                rows[row.get("id", len(rows))] = row
            if len(batch) < PAGE_SIZE or (page + 1) * PAGE_SIZE >= int(body.get("count", 0)):
                break
            page += 1
        return sorted(rows.values(), key=lambda row: row.get("id", 0))[:limit]

    async def health(self) -> bool:
        """Whether Superset answers its health check (no login needed)."""
        try:
            response = await self._http.get("/health", timeout=3.0)
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    async def release(self) -> versions.Release | None:
        """The Superset release the environment runs, from its ``version_info.json`` (no login);
        ``None`` when it does not say (then taken as the newest, see ``versions``)."""
        now = time.monotonic()
        if self._release is not None and now - self._release[0] < RELEASE_TTL_S:
            return self._release[1]
        try:
            response = await self._http.get("/static/version_info.json", timeout=5.0)
            said = response.json().get("version") if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError, AttributeError):
            said = None
        found = versions.parse(said if isinstance(said, str) else None)
        self._release = (now, found)
        return found
