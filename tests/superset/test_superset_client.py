"""The Superset client against an in-memory Superset at the httpx transport."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from pydantic import SecretStr

from sstools.environments import Environment, Stage
from sstools.russian import normalize
from sstools.superset import (
    SupersetAuthError,
    SupersetBadRequest,
    SupersetClient,
    SupersetNotFound,
    SupersetUnavailable,
)
from sstools.superset.search import matches
from sstools.testing.fake_superset import FakeSuperset

TITLES = ["Отчёт по энергопотреблению", "ОТЧЁТ ПО ПРОДАЖАМ", "Energy KPIs", "Погода и нагрузка"]


def _environment(password: str) -> Environment:
    return Environment(
        id="ss-dev",
        name="Dev",
        stage=Stage.dev,
        url="http://superset.test",
        username="svc",
        password=SecretStr(password),
    )


@pytest.fixture
async def client(fake_superset: FakeSuperset) -> AsyncIterator[SupersetClient]:
    fake_superset.dashboards = [
        {"id": i, "dashboard_title": title, "slug": None, "published": True}
        for i, title in enumerate(TITLES, start=1)
    ]
    client = SupersetClient(
        _environment(fake_superset.password), transport=fake_superset.transport()
    )
    yield client
    await client.aclose()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("энерг", ["Отчёт по энергопотреблению"]),
        ("Энерг", ["Отчёт по энергопотреблению"]),
        ("ОТЧЁТ", ["Отчёт по энергопотреблению", "ОТЧЁТ ПО ПРОДАЖАМ"]),
        ("отчет", ["Отчёт по энергопотреблению", "ОТЧЁТ ПО ПРОДАЖАМ"]),
        ("energy", ["Energy KPIs"]),
        ("отчёт продаж", ["ОТЧЁТ ПО ПРОДАЖАМ"]),
        ("нет такого", []),
    ],
)
async def test_search_is_case_insensitive_in_any_script(
    client: SupersetClient, query: str, expected: list[str]
) -> None:
    page = await client.search_dashboards(query)
    assert [item.title for item in page.items] == expected
    assert page.total == len(expected)


async def test_rison_query_is_url_encoded(fake_superset: FakeSuperset) -> None:
    seen: list[httpx.URL] = []

    def spy(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        return fake_superset.handle(request)

    client = SupersetClient(
        _environment(fake_superset.password), transport=httpx.MockTransport(spy)
    )
    await client.get_json(
        "/api/v1/dashboard/",
        query={"filters": [{"col": "dashboard_title", "opr": "ct", "value": "энерг"}]},
    )
    await client.aclose()
    raw = seen[-1].raw_path.decode("ascii")  # would fail on unencoded non-ASCII
    assert "%D1%8D%D0%BD%D0%B5%D1%80%D0%B3" in raw.upper()


async def test_pages_through_large_lists(fake_superset: FakeSuperset) -> None:
    fake_superset.dashboards = [
        {"id": i, "dashboard_title": f"Дашборд {i}", "published": True} for i in range(1, 251)
    ]
    client = SupersetClient(
        _environment(fake_superset.password), transport=fake_superset.transport()
    )
    page = await client.search_dashboards("дашборд", page=2, page_size=100)
    await client.aclose()
    assert page.total == 250
    assert [item.id for item in page.items] == list(range(201, 251))


async def test_expired_access_token_is_refreshed_once(
    fake_superset: FakeSuperset, client: SupersetClient
) -> None:
    await client.search_dashboards()
    fake_superset.expire_next_access_token = True
    page = await client.search_dashboards("energy")
    assert page.total == 1
    assert ("POST", "/api/v1/security/refresh") in fake_superset.calls
    assert fake_superset.calls.count(("POST", "/api/v1/security/login")) == 1


async def test_mutations_carry_the_csrf_token_of_the_session(
    fake_superset: FakeSuperset, client: SupersetClient
) -> None:
    body = await client.post_json("/api/v1/dashboard/", {"dashboard_title": "Новый"})
    assert body["id"] == len(TITLES) + 1
    assert ("GET", "/api/v1/security/csrf_token/") in fake_superset.calls


async def test_stale_csrf_token_is_fetched_again(
    fake_superset: FakeSuperset, client: SupersetClient
) -> None:
    await client.post_json("/api/v1/dashboard/", {"dashboard_title": "A"})
    fake_superset.csrf_sessions.clear()  # Superset forgot the session
    await client.post_json("/api/v1/dashboard/", {"dashboard_title": "B"})
    assert fake_superset.calls.count(("GET", "/api/v1/security/csrf_token/")) == 2
    assert [d["dashboard_title"] for d in fake_superset.dashboards][-2:] == ["A", "B"]


async def test_wrong_service_password_is_an_auth_error(fake_superset: FakeSuperset) -> None:
    client = SupersetClient(_environment("wrong"), transport=fake_superset.transport())
    with pytest.raises(SupersetAuthError, match="вход сервисной учётной записи отклонён"):
        await client.search_dashboards()
    await client.aclose()


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (404, SupersetNotFound),
        (400, SupersetBadRequest),
        (502, SupersetUnavailable),
        (503, SupersetUnavailable),
    ],
)
async def test_http_errors_map_to_the_hierarchy(
    fake_superset: FakeSuperset, client: SupersetClient, status: int, error: type[Exception]
) -> None:
    await client.search_dashboards()
    fake_superset.fail_with = status
    with pytest.raises(error) as caught:
        await client.get_json("/api/v1/dashboard/1")
    assert "ss-dev" in str(caught.value)


async def test_unreachable_superset_is_unavailable() -> None:
    env = _environment("x").model_copy(update={"url": "http://127.0.0.1:9"})
    client = SupersetClient(env, timeout_s=2)
    with pytest.raises(SupersetUnavailable) as caught:
        await client.search_dashboards()
    await client.aclose()
    # Russian for a person, never httpx's «All connection attempts failed».
    assert caught.value.message == (
        "недоступен по адресу http://127.0.0.1:9: "
        "соединение не установлено: сервер не отвечает по этому адресу"
    )


def test_normalize_folds_case_compat_forms_and_yo() -> None:
    assert normalize("ОТЧЁТ") == normalize("отчет")
    assert normalize("ＥＮＥＲＧＹ") == "energy"
    assert matches("", "anything")
    assert not matches("kpi", None)


@pytest.mark.parametrize(
    ("error_type", "error"),
    [
        ("GENERIC_DB_ENGINE_ERROR", SupersetBadRequest),
        ("COLUMN_DOES_NOT_EXIST_ERROR", SupersetBadRequest),
        ("CONNECTION_DATABASE_TIMEOUT", SupersetUnavailable),
        ("GENERIC_BACKEND_ERROR", SupersetUnavailable),
    ],
)
async def test_a_500_blaming_the_query_is_a_bad_request(
    fake_superset: FakeSuperset, error_type: str, error: type[Exception]
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/sqllab/execute/":
            body = {"errors": [{"message": "no such table: nope", "error_type": error_type}]}
            return httpx.Response(500, json=body)
        return fake_superset.handle(request)

    client = SupersetClient(
        _environment(fake_superset.password), transport=httpx.MockTransport(answer)
    )
    with pytest.raises(error):
        await client.execute_sql(1, "select * from nope", schema=None, row_limit=10)
    await client.aclose()


SQLALCHEMY_ERROR = (
    '(sqlite3.OperationalError) unknown database "public"\n'
    '[SQL: PRAGMA "public".table_xinfo("x""y")]\n'
    "(Background on this error at: https://sqlalche.me/e/14/e3q8)"
)


@pytest.mark.parametrize(
    ("status", "error_type", "error"),
    [
        (500, "GENERIC_BACKEND_ERROR", SupersetUnavailable),
        (500, "GENERIC_DB_ENGINE_ERROR", SupersetBadRequest),
        (422, None, SupersetBadRequest),
    ],
)
async def test_backend_internals_never_reach_the_message(
    fake_superset: FakeSuperset, status: int, error_type: str | None, error: type[Exception]
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/dataset/7":
            if error_type is None:
                return httpx.Response(status, json={"error": SQLALCHEMY_ERROR})
            failure = {"message": SQLALCHEMY_ERROR, "error_type": error_type}
            return httpx.Response(status, json={"errors": [failure]})
        return fake_superset.handle(request)

    client = SupersetClient(
        _environment(fake_superset.password), transport=httpx.MockTransport(answer)
    )
    with pytest.raises(error) as caught:
        await client.get_json("/api/v1/dataset/7")
    await client.aclose()
    message = caught.value.message  # type: ignore[attr-defined]
    for internal in ("SQL", "PRAGMA", "sqlite3", "sqlalche.me", "\n"):
        assert internal not in message
    if error is not SupersetUnavailable:
        assert message == 'unknown database "public"'  # what blames the input stays


async def test_an_unknown_schema_is_not_found_without_asking_the_database(
    fake_superset: FakeSuperset,
) -> None:
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        if request.url.path == "/api/v1/database/1/schemas/":
            return httpx.Response(200, json={"result": ["main"]})
        if request.url.path == "/api/v1/database/1/tables/":
            return httpx.Response(200, json={"result": [{"value": "energy"}]})
        return fake_superset.handle(request)

    client = SupersetClient(
        _environment(fake_superset.password), transport=httpx.MockTransport(answer)
    )
    with pytest.raises(SupersetNotFound, match="схемы 'public' нет в базе 1"):
        await client.list_tables(1, "public")
    assert "/api/v1/database/1/tables/" not in asked
    with pytest.raises(SupersetNotFound, match="таблицы 'nope' нет в схеме 'main'"):
        await client.table_columns(1, "main", "nope")
    assert "/api/v1/database/1/table_metadata/" not in asked
    await client.aclose()
