"""Pages without a browser: sign-in redirect, security headers, escaping, the ask link."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.testing.fake_superset import FakeSuperset
from sstools.web.pages import agent_link
from tests.conftest import AuthHeaders
from tests.reading import disagreements, english_words

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
    # A huge query (a bookmarklet's filters, a fuzzer's) is not carried: the header stays small.
    huge = await client.get(
        "/agent/from-superset", params={"filters": "я" * 8000, "dashboard": "1"}
    )
    assert huge.status_code == 303
    assert huge.headers["location"] == "/login?next=%2Fagent%2Ffrom-superset"


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


async def test_the_health_names_each_charts_dataset_and_none_for_a_lost_one(
    client: httpx.AsyncClient, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    fake_superset.dashboards = [{"id": 3, "dashboard_title": "Отчёт", "published": True}]
    dataset = await client.get("/api/datasets/1?env_id=ss-dev", headers=auth(Role.analyst))
    health = await client.get("/api/dashboards/3/health?env_id=ss-dev", headers=auth(Role.analyst))
    [chart] = health.json()["charts"]
    assert (chart["dataset_id"], chart["dataset_name"]) == (1, dataset.json()["name"])
    fake_superset.chart_datasource = "None__table"
    lost = await client.get("/api/dashboards/3/health?env_id=ss-dev", headers=auth(Role.analyst))
    assert lost.json()["charts"][0]["dataset_name"] is None


async def test_the_dashboard_page_shows_the_health_the_api_reports(
    client: httpx.AsyncClient, fake_superset: FakeSuperset, auth: AuthHeaders, token_for: object
) -> None:
    fake_superset.dashboards = [{"id": 3, "dashboard_title": "Отчёт", "published": True}]
    fake_superset.chart_datasource = "None__table"  # its one chart lost its dataset
    health = await client.get("/api/dashboards/3/health?env_id=ss-dev", headers=auth(Role.analyst))
    assert health.json()["status"] == "degraded"
    [problem] = health.json()["problems"]
    client.cookies.set("sstools_session", token_for(Role.analyst))  # type: ignore[operator]
    page = await client.get("/dashboards/3?env_id=ss-dev")
    assert f"<li>{html.escape(problem)}</li>" in page.text
    assert 'class="status status-degraded"' in page.text
    assert '<li class="bad">Потребление</li>' in page.text


async def test_the_dataset_page_shows_the_review_the_api_reports(
    client: httpx.AsyncClient, auth: AuthHeaders, token_for: object
) -> None:
    reviewed = await client.put(
        "/api/datasets/1/review?env_id=ss-dev",
        json={"status": "approved"},
        headers=auth(Role.engineer),
    )
    assert reviewed.status_code == 200
    dataset = await client.get("/api/datasets/1?env_id=ss-dev", headers=auth(Role.analyst))
    assert dataset.json()["review"]["status"] == "approved"
    assert [column["name"] for column in dataset.json()["columns"]] == ["region"]
    client.cookies.set("sstools_session", token_for(Role.analyst))  # type: ignore[operator]
    page = await client.get("/datasets/1?env_id=ss-dev")
    assert page.status_code == 200
    assert "<dd>одобрен</dd>" in page.text
    assert "<code>region</code>" in page.text


@pytest.mark.parametrize("path", ["/dashboards/99999999999999999999", "/datasets/0"])
async def test_an_id_that_cannot_exist_is_a_422_not_an_outage(
    client: httpx.AsyncClient, token_for: Callable[[Role], str], path: str
) -> None:
    client.cookies.set("sstools_session", token_for(Role.analyst))
    response = await client.get(f"{path}?env_id=ss-dev")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"][:2] == ["path", path.split("/")[1][:-1] + "_id"]


async def test_the_dashboard_page_shows_where_it_lives_with_actions_for_the_agent(
    client: httpx.AsyncClient, fake_superset: FakeSuperset, token_for: object
) -> None:
    fake_superset.dashboards = [
        {
            "id": 3,
            "dashboard_title": "Отчёт",
            "published": True,
            "changed_on_utc": "2026-11-30T00:19:00",
        }
    ]
    client.cookies.set("sstools_session", token_for(Role.analyst))  # type: ignore[operator]
    page = await client.get("/dashboards/3?env_id=ss-dev")
    assert page.status_code == 200
    assert 'id="placements"' in page.text
    assert "30 ноября 2026, 00:19" in page.text  # the list's changed_on_utc, read as people do
    assert "2026-11-30T00:19" not in page.text
    assert '<tr data-env-id="prod"' in page.text
    assert "недоступно" in page.text
    deploy = agent_link(
        "dashboard",
        3,
        "Отчёт",
        "ss-dev",
        "/dashboards/3",
        "Разверни этот дашборд в окружение «Prod»",
    )
    assert "prompt=" in deploy
    # An analyst may not deploy: no «Развернуть…» to click into a refusal.
    assert html.escape(deploy) not in page.text
    assert 'class="action-deploy"' not in page.text
    assert 'class="action-compare"' not in page.text  # prod is unreachable here: not present
    client.cookies.set("sstools_session", token_for(Role.engineer))  # type: ignore[operator]
    page = await client.get("/dashboards/3?env_id=ss-dev")
    assert html.escape(deploy) in page.text
    assert 'class="action-deploy"' in page.text
    # One export of the dashboard for health and the table, kept for the next view while the
    # dashboard and its charts have not moved.
    exports = [call for call in fake_superset.calls if call[1] == "/api/v1/dashboard/export/"]
    assert len(exports) == 1


def test_agent_link_carries_the_prompt_only_when_given() -> None:
    assert "prompt" not in agent_link("dashboard", 3, "Отчёт", "ss-dev", "/dashboards/3")
    link = agent_link("dashboard", 3, None, "ss-dev", "/x", "Сравни <b>это</b> & то")
    assert link.endswith(
        "&prompt=%D0%A1%D1%80%D0%B0%D0%B2%D0%BD%D0%B8%20%3Cb%3E%D1%8D%D1%82%D0%BE%3C/b%3E%20%26%20%D1%82%D0%BE"
    )


PAGE = {"Accept": "text/html,application/xhtml+xml"}  # what a browser's navigation sends


@pytest.mark.parametrize(
    ("path", "status", "title", "reason"),
    [
        ("/dashboards/77?env_id=ss-dev", 404, "Не найдено", "Дашборда #77 нет в окружении"),
        (
            "/dashboards/3?env_id=nowhere",
            404,
            "Не найдено",
            "nowhere&#39; нет (известны: ss-dev, prod)",
        ),
        ("/dashboards/99999999999999999999?env_id=ss-dev", 422, "В адресе ошибка", "less than"),
        ("/datasets/77?env_id=ss-dev", 404, "Не найдено", "Датасета #77 нет в окружении"),
    ],
)
async def test_a_page_that_fails_is_a_page_a_person_reads(
    client: httpx.AsyncClient,
    token_for: Callable[[Role], str],
    path: str,
    status: int,
    title: str,
    reason: str,
) -> None:
    client.cookies.set("sstools_session", token_for(Role.analyst))
    page = await client.get(path, headers=PAGE)
    assert page.status_code == status
    assert page.headers["content-type"].startswith("text/html")
    assert f"<h1>{title}</h1>" in page.text
    assert reason in page.text
    assert '{"detail"' not in page.text
    assert 'href="/dashboards"' in page.text
    assert "Content-Security-Policy" in page.headers
    # The API answers the same failure as JSON, whoever asks.
    api = await client.get(path, headers={"Accept": "application/json"})
    assert api.status_code == status
    assert "detail" in api.json()


class _Readable(HTMLParser):
    """The text a person reads on a page: no scripts, styles or attribute values."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "code", "pre"):
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "code", "pre"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def readable(page: str) -> str:
    reader = _Readable()
    reader.feed(page)
    return " ".join(reader.parts)


def _names(answer: object) -> str:
    """The strings of an API answer but its enums: a stage is the page's word to say."""
    if isinstance(answer, dict):
        return " ".join(_names(value) for key, value in answer.items() if key != "stage")
    if isinstance(answer, list):
        return " ".join(map(_names, answer))
    return answer if isinstance(answer, str) else ""


PAGES = (
    "/dashboards?env_id=ss-dev",
    "/dashboards/3?env_id=ss-dev",
    "/datasets?env_id=ss-dev",
    "/datasets/1?env_id=ss-dev",
    "/settings",
    "/tasks",
    "/approvals",
    "/drift",
    "/agent?objectType=dashboard&objectId=3&envId=ss-dev&route=/x",
    "/agent",
)


@pytest.mark.parametrize("role", [Role.analyst, Role.engineer, Role.admin])
async def test_every_page_reads_as_russian_with_numbers_that_agree(
    client: httpx.AsyncClient,
    fake_superset: FakeSuperset,
    token_for: Callable[[Role], str],
    auth: AuthHeaders,
    role: Role,
) -> None:
    fake_superset.dashboards = [{"id": 3, "dashboard_title": "Energy Overview", "published": True}]
    # What the fleet itself holds (names, columns, environments) is data, not the page's words.
    data = [role.value] + [  # the login, as token_for names the person
        _names((await client.get(path, headers=auth(role))).json())
        for path in (
            "/api/environments",
            "/api/dashboards?env_id=ss-dev",
            "/api/dashboards/3?env_id=ss-dev",
            "/api/datasets?env_id=ss-dev",
            "/api/datasets/1?env_id=ss-dev",
        )
    ]
    client.cookies.set("sstools_session", token_for(role))
    unread = {}
    for path in PAGES:
        response = await client.get(path)
        assert response.status_code == 200, path
        text = readable(response.text)
        if found := english_words(text, data) + disagreements(text):
            unread[path] = found
    assert unread == {}


async def test_the_composer_speaks_of_this_object_only_where_the_page_has_one(
    client: httpx.AsyncClient, token_for: object
) -> None:
    client.cookies.set("sstools_session", token_for(Role.analyst))  # type: ignore[operator]
    general = await client.get("/agent?envId=ss-dev&route=/settings")
    on_dashboard = await client.get("/agent?objectType=dashboard&objectId=3&envId=ss-dev&route=/x")
    assert 'placeholder="Спросите про дашборды, датасеты, выкатки…"' in general.text
    assert 'placeholder="Спросите про этот объект…"' not in general.text
    assert 'placeholder="Спросите про этот объект…"' in on_dashboard.text
