"""BM25 (bm25s) over the tools' texts, in the tokens of :mod:`sstools.agent.routing.tokens`."""

from __future__ import annotations

from collections.abc import Sequence

import bm25s  # type: ignore[import-untyped]
import numpy as np
from numpy.typing import NDArray

from sstools.agent.routing.tokens import tokens


class LexicalIndex:
    """One BM25 index over all tools; scores are read for the candidates a turn has."""

    def __init__(self, names: Sequence[str], documents: Sequence[str]) -> None:
        self._position = {name: index for index, name in enumerate(names)}
        self._bm25 = bm25s.BM25()
        corpus = [tokens(document) for document in documents]
        self._vocabulary = {token for document in corpus for token in document}
        self._bm25.index(corpus, show_progress=False)

    def scores(self, message: str, names: Sequence[str]) -> NDArray[np.float32]:
        query = [token for token in tokens(message) if token in self._vocabulary]
        if not query:
            return np.zeros(len(names), dtype=np.float32)
        every = np.asarray(self._bm25.get_scores(query), dtype=np.float32)
        return every[[self._position[name] for name in names]]
