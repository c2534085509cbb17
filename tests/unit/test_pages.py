"""Pages without a browser: sign-in redirect, security headers, escaping, the ask link."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from sstools.auth.roles import Role
from sstools.web.pages import agent_link
from tests.conftest import AuthHeaders
from tests.unit.fake_superset import FakeSuperset

TEMPLATES = Path(__file__).parents[2] / "sstools" / "web" / "templates"


def test_ask_link_carries_the_context_as_the_spec_shows() -> None:
    link = agent_link("dashboard", 10, "Отчёт по энергопотреблению", "ss-dev", "/dashboards/10")
    assert link == (
        "/agent?objectType=dashboard&objectId=10&objectName=%D0%9E%D1%82%D1%87%D1%91%D1%82%20"
        "%D0%BF%D0%BE%20%D1%8D%D0%BD%D0%B5%D1%80%D0%B3%D0%BE%D0%BF%D0%BE%D1%82%D1%80%D0%B5"
        "%D0%B1%D0%BB%D0%B5%D0%BD%D0%B8%D1%8E&envId=ss-dev&route=/dashboards/10"
    )
    assert agent_link(None, None, None, "prod", "/settings") == "/agent?envId=prod&route=/settings"
    assert "%26" in agent_link("dataset", 1, "a&b=c", "ss-dev", "/d")


def test_templates_have_no_inline_script_or_handlers() -> None:
    for template in TEMPLATES.glob("*.html"):
        text = template.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), template.name
        assert not re.search(r"\son[a-z]+\s*=", text), template.name
        assert "|safe" not in text.replace(" ", ""), template.name


async def test_pages_need_a_session_and_send_back_after_login(client: httpx.AsyncClient) -> None:
    response = await client.get("/dashboards/3?env_id=ss-dev")
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=%2Fdashboards%2F3%3Fenv_id%3Dss-dev"
    login = await client.get("/login?next=//evil.example/")
    assert 'data-next="/dashboards"' in login.text  # no open redirect


async def test_every_page_has_a_strict_csp_and_escapes_titles(
    client: httpx.AsyncClient, fake_superset: FakeSuperset, token_for: object
) -> None:
    fake_superset.dashboards = [
        {"id": 3, "dashboard_title": "<script>alert(1)</script> Отчёт", "published": True}
    ]
    client.cookies.set("sstools_session", token_for(Role.analyst))  # type: ignore[operator]
    for path in (
        "/dashboards?env_id=ss-dev",
        "/dashboards/3?env_id=ss-dev",
        "/settings",
        "/agent?objectType=dashboard&objectId=3&envId=ss-dev&route=/x",
        "/login",
    ):
        response = await client.get(path)
        assert response.status_code == 200, path
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp
        assert "object-src 'none'" in csp
        assert "unsafe-inline" not in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "<script>alert(1)" not in response.text, path
    page = await client.get("/dashboards/3?env_id=ss-dev")
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Отчёт" in page.text
    assert "objectName=%3Cscript%3Ealert%281%29%3C/script%3E%20" in page.text


async def test_unreachable_environment_is_said_on_the_page(
    client: httpx.AsyncClient, auth: AuthHeaders, token_for: object
) -> None:
    client.cookies.set("sstools_session", token_for(Role.analyst))  # type: ignore[operator]
    response = await client.get("/dashboards?env_id=prod")
    assert response.status_code == 200
    assert "Superset-окружение недоступно" in response.text
