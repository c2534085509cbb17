"""One redaction for every value that leaves the server (issue 32 §1): names and values that
carry a secret are masked in any casing and at any depth; everything else is shown as it is."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sstools.redaction import MASK, redact, redact_text, secret_field, secret_name
from tests.planted_secrets import secret_names, secrets_, urls_with_a_secret


@pytest.mark.parametrize(
    "name",
    [
        "api_key",
        "apiKey",
        "apikey",
        "APIKey",
        "API_KEY",
        "mapbox_api_key",
        "MAPBOX_API_KEY",
        "mapboxApiKey",
        "passwd",
        "pwd",
        "PWD",
        "db_pass",
        "auth.bearer",
        "Authorization",
        "X-Api-Key",
        "access_token",
        "accessToken",
        "client_secret",
        "private_key",
        "encrypted_extra",
        "credentials_base64",
        "service_account_info",
        "basic_auth",
    ],
)
def test_each_named_secret_form_is_a_secret(name: str) -> None:
    assert secret_name(name)
    assert redact({"params": {name: "hunter2hunter2"}}) == {"params": {name: MASK}}


@pytest.mark.parametrize(
    "name",
    ["metric", "metrics", "url", "keywords", "monkey", "author", "sort_key", "pass_rate", "id"],
)
def test_ordinary_names_are_not_secrets(name: str) -> None:
    assert not secret_name(name)


def test_a_key_like_name_hides_a_random_looking_value_but_not_a_word() -> None:
    token = "pk.eyJ1IjoibWFwYm94IiwiYSI6ImNpejY4M29iazA2Z2gycXA4N2pmbDZmangifQ"
    assert secret_field("mapbox_key", token)
    assert secret_field("signingKey", "a81f09c2e6b44d7f9a3c")
    assert not secret_field("sort_key", "region")
    assert not secret_field("cache_key", "daily")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "https://x.example/tiles?access_token=zqabc123def456&style=dark",
            f"https://x.example/tiles?access_token={MASK}&style=dark",
        ),
        (
            "https://x.example/a?page=2&api_key=zqabc123def456",
            f"https://x.example/a?page=2&api_key={MASK}",
        ),
        ("token=zqabc123def456", f"token={MASK}"),
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.zq", f"Authorization: Bearer {MASK}"),
        (
            "postgresql://report:zqhunter2@db.example.org:5432/energy",
            f"postgresql://report:{MASK}@db.example.org:5432/energy",
        ),
    ],
)
def test_credentials_inside_text_are_masked_and_the_rest_kept(text: str, shown: str) -> None:
    assert redact_text(text) == shown


@pytest.mark.parametrize(
    "value",
    [
        {"metric": "count", "viz_type": "bar", "row_limit": 100},
        {"link": "https://x.example/report?page=2&lang=ru"},
        {"note": "Bearer tokens are issued by the gateway"},
        {"sql": "SELECT region, count(*) FROM energy WHERE year = 2024 GROUP BY region"},
        {"user_url": "postgresql://report@db.example.org/energy"},
    ],
)
def test_values_without_a_secret_are_shown_as_they_are(value: dict[str, Any]) -> None:
    assert redact(value) == value


# hypothesis' default 100: a pure function; names × values × four placements.
@given(secret_names, secrets_, st.sampled_from(["flat", "nested", "listed", "json"]))
def test_a_secret_under_any_secret_looking_name_never_survives(
    name: str, secret: str, where: str
) -> None:
    planted: Any = {name: secret, "metric": "count"}
    if where == "nested":
        planted = {"layer": {"options": planted}}
    elif where == "listed":
        planted = {"layers": [planted, {"metric": "sum"}]}
    shown = json.dumps(redact(planted), ensure_ascii=False)
    assert secret not in shown
    assert "count" in shown


# hypothesis' default 100: a pure function over generated URLs.
@given(st.data(), secrets_)
def test_a_secret_in_any_url_never_survives(data: st.DataObject, secret: str) -> None:
    url = data.draw(urls_with_a_secret(secret))
    shown = redact({"link": url, "note": f"see {url} for tiles"})
    assert secret not in json.dumps(shown)
    assert "tiles.example.org" in shown["link"] or "db.example.org" in shown["link"]
