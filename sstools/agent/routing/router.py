"""The hybrid tool router: BM25 and an embedding, fused, with a K that widens when unsure.

It only ranks the candidates it is given (what the hard filters left); ``hard_filter`` decides
what is always kept. One index per process, built when the first router is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from sstools.agent.routing import passage_vectors, semantic
from sstools.agent.routing.catalogue import lexical_document, semantic_passages
from sstools.agent.routing.lexical import LexicalIndex
from sstools.agent.routing.semantic import SemanticIndex
from sstools.agent.tools import CATALOGUE, ToolSpec

Method = Literal["hybrid", "bm25", "embedding"]
RouterMode = Literal["hybrid", "bm25", "off"]

# Tuned on the `tune` split of bench/data/router_eval.jsonl (bench/router.py prints the result).
LEXICAL_WEIGHT = 0.5
# The K-th and the next tool this close (in fused score, 0..1) means the cut is a coin toss.
UNSURE_GAP = 0.03
MAX_EXTRA = 2


class Indexes:
    """BM25 and embedding indexes over the whole catalogue."""

    def __init__(self, tools: Sequence[ToolSpec]) -> None:
        names = [tool.name for tool in tools]
        self.lexical = LexicalIndex(names, [lexical_document(tool) for tool in tools])
        passages = [semantic_passages(tool) for tool in tools]
        self.semantic = SemanticIndex(names, passage_vectors.vectors(names, passages))


@cache
def indexes() -> Indexes:
    return Indexes(list(CATALOGUE.values()))


def _unit(scores: NDArray[np.float32]) -> NDArray[np.float32]:
    """Scores scaled to 0..1 across the candidates (all equal → all 0: no opinion)."""
    low, high = float(scores.min()), float(scores.max())
    if high - low <= 1e-9:
        return np.zeros_like(scores)
    return (scores - low) / (high - low)


def scores(message: str, names: Sequence[str], method: Method) -> NDArray[np.float32]:
    index = indexes()
    if method == "bm25":
        return _unit(index.lexical.scores(message, names))
    meaning = _unit(index.semantic.scores(message, names))
    if method == "embedding":
        return meaning
    lexical = _unit(index.lexical.scores(message, names))
    return LEXICAL_WEIGHT * lexical + (1 - LEXICAL_WEIGHT) * meaning


def ranking(message: str, names: Sequence[str], method: Method) -> list[tuple[str, float]]:
    """The candidates best first, with their fused scores (ties keep the catalogue order)."""
    fused = scores(message, names, method)
    order = sorted(range(len(names)), key=lambda i: -float(fused[i]))
    return [(names[i], float(fused[i])) for i in order]


def cut(ranked: Sequence[tuple[str, float]], k: int) -> list[str]:
    """Top ``k``, widened by up to MAX_EXTRA while the next one scores as well as the K-th."""
    size = min(k, len(ranked))
    while (
        size < len(ranked)
        and size < k + MAX_EXTRA
        and ranked[size - 1][1] - ranked[size][1] < UNSURE_GAP
    ):
        size += 1
    return [name for name, _ in ranked[:size]]


class ToolRouter:
    """A :class:`sstools.agent.selection.Router`: the candidates most relevant to the message."""

    def __init__(self, method: Method, k: int) -> None:
        self.method: Method = method
        self.k = k
        indexes()  # built now, not on somebody's first message

    def _embeds(self, message: str) -> bool:
        return self.method != "bm25" and bool(message.strip())

    def start(self, message: str) -> None:
        """A message arrived: embed it while its turn is set up (the ranking waits for it)."""
        if self._embeds(message):
            semantic.start(message)

    def ranks(self, message: str, candidates: Sequence[ToolSpec]) -> bool:
        """Not when the filters left K or fewer: they are all offered, with no embedding."""
        return len(candidates) > self.k and bool(message.strip())

    async def ready(self, message: str) -> None:
        """Until the ranking need not wait for the message's embedding: awaited on the event
        loop, a turn waiting for it holds no thread that other work needs."""
        if self._embeds(message):
            await semantic.QUERIES.ready(message)

    def __call__(self, message: str, candidates: list[ToolSpec]) -> list[ToolSpec]:
        if not self.ranks(message, candidates):
            return candidates
        names = [tool.name for tool in candidates]
        chosen = set(cut(ranking(message, names, self.method), self.k))
        return [tool for tool in candidates if tool.name in chosen]


@cache
def tool_router(mode: RouterMode, k: int) -> ToolRouter | None:
    """The process's router for these settings (None: routing is off)."""
    if mode == "off":
        return None
    return ToolRouter("bm25" if mode == "bm25" else "hybrid", k)
