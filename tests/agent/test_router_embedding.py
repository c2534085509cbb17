"""AGTL-FR-006: a message's embedding costs the turn little and the other users nothing.

The message is embedded once, from the moment it arrives, on the engine's own thread; the turn
awaits it without blocking the event loop or holding a thread. A slow embedding is injected
(the real one, delayed) where a test needs the wait to be visible.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from sstools.agent.routing import semantic
from sstools.agent.routing.router import ToolRouter
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role
from sstools.testing import answer
from tests.agent.conftest import dashboard_context
from tests.support import read_events

HYBRID = ToolRouter("hybrid", 5)
SLOW_S = 1.0

# A dashboard's page with no environment chosen: an analyst has fewer tools than K.
FEW_TOOLS = {**dashboard_context(), "envId": None}


class Embedded(Counter[str]):
    """The texts the engine embedded; ``began`` is set when the first one starts."""

    def __init__(self) -> None:
        super().__init__()
        self.began = threading.Event()
        self.delay_s = SLOW_S
        self.gate: threading.Event | None = None  # when set here: embeddings wait for it instead
        self.ended = float("inf")  # when the latest embedding was done (perf_counter)

    def embed(self, text: str) -> semantic.Vector:
        """The real embedding, ``delay_s`` late (or once the gate opens)."""
        self[text] += 1
        self.began.set()
        if self.gate is None:
            time.sleep(self.delay_s)
        else:
            self.gate.wait(30)
        self.ended = time.perf_counter()
        return semantic.embed_query(text)


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch) -> Iterator[Embedded]:
    """The process's message embeddings, made slow."""
    counts = Embedded()
    monkeypatch.setattr(semantic.QUERIES, "embed", counts.embed)
    semantic.QUERIES.clear()
    yield counts
    if counts.gate is not None:
        counts.gate.set()
    semantic.drain()  # no slow embedding left for the next test
    semantic.QUERIES.clear()


def test_a_message_is_embedded_once_however_many_turn_steps_ask(embedded: Embedded) -> None:
    text = "покажи графики этого дашборда, пожалуйста"
    candidates = [CATALOGUE[name] for name in CATALOGUE if not CATALOGUE[name].always]
    HYBRID.start(text)  # the message arrived
    results: list[list[str]] = []

    def route() -> None:
        results.append([tool.name for tool in HYBRID(text, candidates)])

    threads = [threading.Thread(target=route) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert embedded[text] == 1
    assert len(results) == 3
    assert results[0] == results[1] == results[2]
    assert len(results[0]) < len(candidates)


def test_a_burst_larger_than_the_cache_embeds_each_message_once(embedded: Embedded) -> None:
    embedded.delay_s = 0.05
    queries = semantic.QueryEmbeddings(size=2, embed=embedded.embed)
    texts = [f"покажи дашборд номер {n}" for n in range(5)]
    for text in texts:  # all arrive before the first is embedded
        queries.start(text)
    vectors = [queries.vector(text) for text in texts]
    assert embedded == Counter(texts)
    assert all(vector.shape == (384,) for vector in vectors)
    queries.vector("следующее сообщение")  # done ones beyond the size are forgotten now
    queries.vector(texts[0])
    assert embedded[texts[0]] == 2


def test_a_flood_of_messages_starts_only_a_few_ahead(embedded: Embedded) -> None:
    embedded.delay_s = 0.1
    queries = semantic.QueryEmbeddings(embed=embedded.embed)
    texts = [f"сообщение {n}" for n in range(semantic.MAX_AHEAD + 6)]
    for text in texts:
        queries.prefetch(text)
    semantic.drain()
    assert sum(embedded.values()) == semantic.MAX_AHEAD
    assert queries.vector(texts[-1]).shape == (384,)  # its turn embeds it on asking


def test_a_failed_embedding_is_tried_again_by_the_next_ask() -> None:
    calls: list[str] = []

    def once_broken(text: str) -> semantic.Vector:
        calls.append(text)
        if len(calls) == 1:
            raise RuntimeError("engine hiccup")
        return semantic.embed_query(text)

    queries = semantic.QueryEmbeddings(embed=once_broken)
    with pytest.raises(RuntimeError):
        queries.vector("статус задачи")
    assert queries.vector("статус задачи").shape == (384,)
    assert calls == ["статус задачи", "статус задачи"]


def test_a_pasted_script_is_embedded_by_its_first_words_only() -> None:
    columns = ", ".join(f"column_{n}" for n in range(2000))
    script = f"почему падает запрос: {columns} из таблицы продаж"
    assert semantic.model().token_count(semantic.head(script), True) <= semantic.MAX_TOKENS
    assert len(semantic.head("x" * 50_000)) <= semantic.MAX_CHARS
    assert semantic.head("покажи этот дашборд") == "покажи этот дашборд"


async def test_the_embedding_starts_before_the_post_answers(
    make_agent: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[str] = []
    monkeypatch.setattr(semantic, "start", started.append)
    async with make_agent(answer("ок")) as agent:
        cid = await agent.conversation(Role.engineer)
        text = "кто владелец этого дашборда?"
        response = await agent.send(cid, text, dashboard_context(), Role.engineer)
        assert response.status_code == 202
        assert started == [text]
        await read_events(agent.client, cid, agent.auth(Role.engineer))


async def test_a_slow_embedding_holds_up_only_its_own_turn(
    make_agent: Any, embedded: Embedded
) -> None:
    """Routing used to run on the event loop: every stream and request of the worker stopped
    for as long as the model embedded a message."""
    embedded.delay_s = 2 * SLOW_S  # room for a loaded machine's slow answer, well inside it
    async with make_agent(answer("ок")) as agent:
        cid = await agent.conversation(Role.engineer)
        text = "какие датасеты у этого дашборда"
        await agent.send(cid, text, dashboard_context(), Role.engineer)
        assert await asyncio.to_thread(embedded.began.wait, 10)
        await asyncio.sleep(0.2)  # the turn has reached its routing and waits for the embedding
        health = await agent.client.get("/healthz")
        answered = time.perf_counter()
        events = await read_events(agent.client, cid, agent.auth(Role.engineer))
    assert health.status_code == 200
    # A loop held by the embedding could only answer once it was done.
    assert answered < embedded.ended
    assert embedded[text] == 1
    assert [event["type"] for event in events][-1] == "done"
    assert len(agent.model.offered[0]) <= 5 + 2 + 1  # it was routed: K, widened, capabilities


async def test_turns_waiting_for_their_embeddings_leave_the_threads_to_other_turns(
    make_agent: Any, embedded: Embedded, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A waiting turn once held a thread of the loop's executor: a few more of them than it has
    threads, and another user's turn, which ranks nothing, waited for theirs. (The scripted
    model answers on that executor too, as LangChain runs a model without async code there.)"""
    executor_threads = min(32, (os.cpu_count() or 1) + 4)  # asyncio's default executor
    waiting = [f"покажи датасеты дашборда номер {n}" for n in range(executor_threads + 2)]
    asked: Counter[str] = Counter()
    start = semantic.QUERIES.start

    def counted(text: str) -> Any:
        asked[text] += 1
        return start(text)

    monkeypatch.setattr(semantic.QUERIES, "start", counted)
    embedded.gate = threading.Event()
    async with make_agent(answer("ок"), agent_runs_per_user=100) as agent:
        stuck = [await agent.conversation(Role.engineer) for _ in waiting]
        for cid, text in zip(stuck, waiting, strict=True):
            await agent.send(cid, text, dashboard_context(), Role.engineer)
        # Each turn has asked for its vector: the first few were also started on arrival.
        for _ in range(200):
            reached = sum(asked[text] for text in waiting) == len(waiting) + semantic.MAX_AHEAD
            if reached:
                break
            await asyncio.sleep(0.05)
        other = await agent.conversation(Role.analyst)  # 3 tools here: none ranked
        await agent.send(other, "какие графики на этом дашборде", FEW_TOOLS, Role.analyst)
        answered = await read_events(agent.client, other, agent.auth(Role.analyst), timeout_s=10)
        embedded.gate.set()
        finished = [
            await read_events(agent.client, cid, agent.auth(Role.engineer)) for cid in stuck
        ]
    assert reached
    assert [event["type"] for event in answered][-1] == "done"
    assert all(events[-1]["type"] == "done" for events in finished)
    assert sum(embedded[text] for text in waiting) == len(waiting)  # each once, after the gate
    assert asked["какие графики на этом дашборде"] == 0  # it ranked nothing: never asked for


async def test_a_turn_that_ranks_nothing_does_not_wait_for_an_embedding(
    make_agent: Any, embedded: Embedded, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An analyst on a dashboard with no environment chosen has 3 tools (its history, git and
    drift), K is 5: the router returns them as they are."""
    monkeypatch.setattr(semantic, "start", lambda text: None)  # not even started on arrival
    embedded.gate = threading.Event()
    semantic.QUERIES.start("что-то, что держит движок")  # the engine is busy until the gate
    asked: list[str] = []
    start = semantic.QUERIES.start

    def counted(text: str) -> Any:
        asked.append(text)
        return start(text)

    monkeypatch.setattr(semantic.QUERIES, "start", counted)
    async with make_agent(answer("ок")) as agent:
        cid = await agent.conversation(Role.analyst)
        text = "какие графики на этом дашборде"
        await agent.send(cid, text, FEW_TOOLS, Role.analyst)
        events = await read_events(agent.client, cid, agent.auth(Role.analyst), timeout_s=10)
    assert [event["type"] for event in events][-1] == "done"
    assert asked == []  # its embedding was never asked for
    assert len(agent.model.offered[0]) == 3 + 1  # all of them, and show_capabilities
