"""A failed model call in validation or documentation is named by its class and status only.

The endpoint's text may quote the request's Authorization header; it must not reach the task
result or the validation row every user reads (issue 18, item 5). The real client against a
scripted endpoint is in tests/integration/test_documentation_commit.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import openai
import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from sstools.domain.documentation.models import DocumentSource, GitFacts
from sstools.domain.documentation.writer import DocumentRejected, model_document
from sstools.domain.validation.facts import DashboardFacts
from sstools.domain.validation.review import ReviewFailed, model_failure, review
from sstools.environments import Stage

KEY = "sk-live-unit-0123456789SECRET"


def _refused() -> openai.AuthenticationError:
    request = httpx2.Request("POST", "http://llm.test/v1/chat/completions")
    response = httpx2.Response(401, request=request)
    message = f"Incorrect API key provided. Authorization: Bearer {KEY}"
    return openai.AuthenticationError(message, response=response, body={"message": message})


def _failing(exc: Exception) -> GenericFakeChatModel:
    def replies() -> Iterator[AIMessage]:
        raise exc
        yield AIMessage(content="")  # never reached: makes this a generator

    return GenericFakeChatModel(messages=replies())


FACTS = DashboardFacts(
    env_id="ss-dev",
    stage=Stage.dev,
    dashboard_id=1,
    uuid="u-1",
    title="Отчёт",
    slug=None,
    published=True,
    changed_on=None,
    url="http://superset.test/superset/dashboard/1/",
    owners=[],
    certified_by=None,
    charts=[],
    datasets=[],
    filters=[],
)


def test_an_http_failure_is_its_class_and_status() -> None:
    assert model_failure(_refused(), "review") == "AuthenticationError (HTTP 401)"


def test_a_failure_without_a_status_is_its_class() -> None:
    assert model_failure(ConnectionError(f"to http://llm.test/?key={KEY}"), "review") == (
        "ConnectionError"
    )


@pytest.mark.parametrize("exc", [_refused(), RuntimeError(KEY)])
def test_neither_review_nor_document_keeps_the_endpoints_words(exc: Exception) -> None:
    with pytest.raises(ReviewFailed) as reviewed:
        review(_failing(exc), FACTS, [])
    source = DocumentSource(facts=FACTS, deployments=[], git=GitFacts(status="не в git"))
    with pytest.raises(DocumentRejected) as documented:
        model_document(_failing(exc), source)
    for failure in (reviewed.value, documented.value):
        assert KEY not in str(failure)
        assert "SECRET" not in str(failure)
        assert str(failure).startswith(type(exc).__name__)
