"""Domain API errors without Superset: unknown environment, unreachable one, bad parameters."""

from __future__ import annotations

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing.fake_superset import FakeSuperset
from tests.conftest import AuthHeaders, app_client


async def test_unknown_environment_is_404_naming_it(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    response = await client.get("/api/dashboards?env_id=nowhere", headers=auth(Role.analyst))
    assert response.status_code == 404
    assert "'nowhere'" in response.json()["detail"]
    assert "ss-dev" in response.json()["detail"]


async def test_unreachable_environment_is_503_naming_it(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    response = await client.get("/api/dashboards?env_id=prod", headers=auth(Role.analyst))
    assert response.status_code == 503
    assert response.json()["env_id"] == "prod"
    assert "окружение Superset 'prod' недоступно" in response.json()["detail"]


async def test_environments_report_reachability_without_secrets(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    response = await client.get("/api/environments", headers=auth(Role.analyst))
    assert response.status_code == 200
    by_id = {env["id"]: env for env in response.json()}
    assert by_id["prod"]["reachable"] is False
    assert by_id["prod"]["stage"] == "prod"
    assert "password" not in response.text
    assert "svc-password" not in response.text


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/dashboards?env_id=ss-dev&page=-1", "page"),
        ("/api/dashboards?env_id=ss-dev&page_size=1000", "page_size"),
        ("/api/dashboards/abc?env_id=ss-dev", "dashboard_id"),
        ("/api/dashboards/0?env_id=ss-dev", "dashboard_id"),
        ("/api/dashboards", "env_id"),
        ("/api/dashboards?env_id=SS-DEV", "env_id"),  # ids are lowercase, as in the file
        ("/api/dashboards?env_id=ss%20dev", "env_id"),
        ("/api/datasets?env_id=..%2Fetc", "env_id"),
        ("/api/permissions/audit?env_id=ss-dev&object_type=chart&object_id=1", "object_type"),
        ("/api/permissions/audit?env_id=ss-dev&object_type=dataset", "object_id"),
        (
            "/api/permissions/audit?env_id=ss-dev&object_type=dataset&object_id=2147483648",
            "object_id",
        ),
        ("/api/dashboards?env_id=ss-dev&q=" + "x" * 201, "q"),
        ("/api/databases/1/schemas/" + "s" * 129 + "/tables?env_id=ss-dev", "schema"),
        ("/api/databases/1/schemas/a%00b/tables?env_id=ss-dev", "schema"),
        ("/api/databases/1/schemas/main/tables/" + "t" * 129 + "/columns?env_id=ss-dev", "table"),
        ("/api/databases/1/schemas/main/tables/a%0Ab/columns?env_id=ss-dev", "table"),
    ],
)
async def test_bad_parameters_are_422_naming_the_field(
    client: httpx.AsyncClient, auth: AuthHeaders, url: str, field: str
) -> None:
    response = await client.get(url, headers=auth(Role.analyst))
    assert response.status_code == 422
    assert field in [error["loc"][-1] for error in response.json()["detail"]]


async def test_unparseable_sql_is_422_with_the_parser_message(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    response = await client.post(
        "/api/sql/format", json={"sql": "selec 1 from"}, headers=auth(Role.analyst)
    )
    assert response.status_code == 422
    error = response.json()["detail"][0]
    assert error["loc"] == ["body", "sql"]
    assert "Строка 1" in error["msg"]


async def test_format_needs_env_with_database(client: httpx.AsyncClient, auth: AuthHeaders) -> None:
    response = await client.post(
        "/api/sql/format", json={"sql": "select 1", "database_id": 1}, headers=auth(Role.analyst)
    )
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "env_id"]


async def test_openapi_is_served_to_a_signed_in_user_only(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    anonymous = await client.get("/openapi.json")
    assert anonymous.status_code == 401  # as the API it describes
    page = await client.get("/docs", headers={"Accept": "text/html"})
    assert page.status_code == 303
    assert page.headers["location"] == "/login?next=%2Fdocs"
    schema = (await client.get("/openapi.json", headers=auth(Role.analyst))).json()
    for path in (
        "/api/environments",
        "/api/dashboards/{dashboard_id}/health",
        "/api/sql/execute",
        "/api/permissions/audit",
        "/api/datasets/{dataset_id}/review",
    ):
        assert path in schema["paths"]
    assert "/openapi.json" not in schema["paths"]
    token = auth(Role.analyst)["Authorization"].removeprefix("Bearer ")
    client.cookies.set("sstools_session", token)
    assert (await client.get("/docs")).status_code == 200
    assert (await client.get("/openapi.json")).status_code == 200  # as the page fetches it


async def test_sql_the_database_refuses_is_a_422_naming_sql_without_internals(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/sqllab/execute/":
            message = (
                "(sqlite3.OperationalError) no such table: nope\n[SQL: SELECT * FROM nope]\n"
                "(Background on this error at: https://sqlalche.me/e/14/e3q8)"
            )
            error = {"message": message, "error_type": "GENERIC_DB_ENGINE_ERROR"}
            return httpx.Response(500, json={"errors": [error]})
        return fake_superset.handle(request)

    async with app_client(settings, httpx.MockTransport(answer)) as client:
        response = await client.post(
            "/api/sql/execute?env_id=ss-dev",
            json={"database_id": 1, "sql": "select * from nope"},
            headers=auth(Role.analyst),
        )
    assert response.status_code == 422
    assert response.json()["detail"] == [
        {"type": "superset_refused", "loc": ["body", "sql"], "msg": "no such table: nope"}
    ]
    assert response.json()["env_id"] == "ss-dev"


async def test_dashboard_environments_lists_every_environment_one_down_as_its_row(
    client: httpx.AsyncClient, auth: AuthHeaders, fake_superset: FakeSuperset
) -> None:
    fake_superset.dashboards = [
        {
            "id": 3,
            "dashboard_title": "Отчёт",
            "published": True,
            "changed_on_utc": "2026-11-30T00:19:00",
        }
    ]
    response = await client.get(
        "/api/dashboards/3/environments?env_id=ss-dev", headers=auth(Role.analyst)
    )
    assert response.status_code == 200
    body = response.json()
    rows = {row["env_id"]: row for row in body["environments"]}
    assert set(rows) == {"ss-dev", "prod"}
    dev = rows["ss-dev"]
    assert (dev["reachable"], dev["present"], dev["dashboard_id"], dev["title"]) == (
        True,
        True,
        3,
        "Отчёт",
    )
    assert dev["changed_on"].startswith("2026-11-30T00:19:00")
    assert dev["git_status"] == "не версионирован"
    assert (rows["prod"]["reachable"], rows["prod"]["present"]) == (False, None)
    assert rows["prod"]["stage"] == "prod"


async def test_dashboard_environments_of_a_missing_dashboard_is_404(
    client: httpx.AsyncClient, auth: AuthHeaders, fake_superset: FakeSuperset
) -> None:
    response = await client.get(
        "/api/dashboards/77/environments?env_id=ss-dev", headers=auth(Role.analyst)
    )
    assert response.status_code == 404
