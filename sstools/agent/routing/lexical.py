"""BM25 (bm25s) over the tools' texts, with tokens that survive how people type.

Russian and English text is folded into one Latin alphabet (so «покажи дашборды», "pokazhi
dashbordy" and "dashboards" share tokens) and each word is cut to its first letters (a crude stem
that also ignores Russian endings).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import bm25s  # type: ignore[import-untyped]
import numpy as np
from numpy.typing import NDArray

from sstools.text import normalize

STEM_LENGTH = 5

_TRANSLIT = str.maketrans(
    {
        "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ж": "zh", "з": "z",
        "и": "i", "й": "y", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p",
        "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "h", "ц": "ts", "ч": "ch",
        "ш": "sh", "щ": "sch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu", "я": "ya",
    }
)  # fmt: skip
_WORD = re.compile(r"[a-z0-9]+")
# Words that say nothing about which tool is meant, in both languages (already transliterated).
_STOP = frozenset(
    (
        # English
        "a", "an", "the", "of", "for", "to", "in", "on", "at", "me", "my", "is", "are", "be", "it",
        "this", "that", "these", "what", "which", "how", "please", "can", "you", "i", "do", "and",
        "or", "with", "from", "all", "any",
        # Russian, transliterated
        "v", "vo", "na", "po", "pro", "o", "ob", "mne", "moy", "moya", "vse", "eto", "etot", "eta",
        "etogo", "etomu", "etu", "kak", "chto", "gde", "kakoy", "kakaya", "kakie", "est", "li",
        "u", "s", "so", "dlya", "iz", "k", "ko", "pozhaluysta", "mozhno", "davay", "ty", "nam",
        "nu",
    )
)  # fmt: skip


def tokens(text: str) -> list[str]:
    latin = normalize(text).translate(_TRANSLIT).replace("kh", "h")
    return [word[:STEM_LENGTH] for word in _WORD.findall(latin) if word not in _STOP]


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
