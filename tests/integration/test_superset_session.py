"""A session Superset no longer accepts is renewed, not carried on with: after Superset's secret
key changes, every token we hold fails its signature check (a 422 from Superset's JWT layer,
not a 401), and the next request must still get through."""

from __future__ import annotations

import jwt
from prometheus_client import REGISTRY

from sstools.environments import EnvironmentRegistry
from sstools.sandbox import Sandbox
from sstools.superset import SessionKeys, SupersetClient, SupersetPool
from tests.integration.deploy_support import Superset

# What Superset now says of every token signed with its old key.
OLD_KEY = "the secret key Superset had before it was rotated"


def _signed_with_the_old_key(token_type: str) -> str:
    return jwt.encode({"sub": "1", "type": token_type, "fresh": False}, OLD_KEY, algorithm="HS256")


def _logins(env_id: str) -> float:
    value = REGISTRY.get_sample_value("sstools_superset_logins_total", {"env_id": env_id})
    return value or 0.0


def _counting_requests(client: SupersetClient) -> list[str]:
    sent: list[str] = []

    async def count(request: object) -> None:
        sent.append(str(getattr(request, "url", "")))

    client._http.event_hooks["request"].append(count)
    return sent


async def test_a_read_after_superset_rotated_its_key_logs_in_again_once(
    superset: Superset,
) -> None:
    client = superset("ss-dev")
    before = await client.search_dashboards("Energy")
    client._access_token = _signed_with_the_old_key("access")
    client._refresh_token = _signed_with_the_old_key("refresh")
    sent = _counting_requests(client)

    after = await client.search_dashboards("Energy")

    assert [one.id for one in after.items] == [one.id for one in before.items]
    logins = [url for url in sent if url.endswith("/api/v1/security/login")]
    assert len(logins) == 1, sent


async def test_a_write_after_the_rotation_is_sent_once_more_only_after_a_new_login(
    superset: Superset,
) -> None:
    """The JWT layer refuses before any view runs, so the write never happened and is sent once
    more on the new session; its CSRF token is fetched again with it."""
    client = superset("ss-dev")
    bundle = await client.export_dashboards([10])  # the dashboard as it is: importing it is a no-op
    await client._csrf()  # held from an earlier write, as a running service would
    client._access_token = _signed_with_the_old_key("access")
    client._refresh_token = _signed_with_the_old_key("refresh")
    sent = _counting_requests(client)

    await client.import_dashboards(bundle, overwrite=True)

    assert sum(url.endswith("/api/v1/security/login") for url in sent) == 1, sent
    # The refused one and the one on the new session.
    assert sum("/api/v1/dashboard/import/" in url for url in sent) == 2, sent


async def test_the_next_clients_of_the_account_reuse_its_session_for_a_write(
    sandbox: Sandbox,
) -> None:
    """A task's steps each open clients of their own: with the session kept, the next step's
    write needs neither a login nor a CSRF token of its own (it was 2 requests more per step)."""
    environments = EnvironmentRegistry(sandbox.environments())
    keys = SessionKeys()
    first = SupersetPool(environments, timeout_s=60, keys=keys)
    try:
        bundle = await first.client("ss-dev").export_dashboards([10])
        await first.client("ss-dev").import_dashboards(bundle, overwrite=True)
    finally:
        await first.aclose()
    logins_before = _logins("ss-dev")
    second = SupersetPool(environments, timeout_s=60, keys=keys)
    try:
        client = second.client("ss-dev")
        sent = _counting_requests(client)
        await client.import_dashboards(bundle, overwrite=True)
    finally:
        await second.aclose()
    assert _logins("ss-dev") == logins_before
    assert [url.split("?")[0].removeprefix(client.env.url) for url in sent] == [
        "/api/v1/dashboard/import/"
    ]
