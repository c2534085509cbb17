"""Reading deeply nested SQL: in a thread with a large stack, up to an explicit nesting limit.

sqlglot parses recursively, about 20 Python frames per level of parentheses, so Python's default
limit of 1,000 frames stops it near 45 levels, which generated BI SQL reaches. The SQL is read
in a worker thread whose stack is large enough for :data:`MAX_NESTING` levels, with the
interpreter's recursion limit raised while any such reading runs (the limit is per process;
the other threads keep their own, smaller, C stacks, which pure-Python recursion does not use
on Python 3.11+). SQL nested deeper than that is refused with the limit named, before parsing.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TypeVar

from sqlglot.tokenizer_core import Token, TokenType

from sstools.sql._model import SqlTooDeep
from sstools.texts import sql as texts

T = TypeVar("T")

MAX_NESTING = 1_000  # levels of ( ), [ ] and { } sstools reads
_FRAMES_PER_LEVEL = 40  # measured: about 20 for a parenthesised expression, doubled for margin
_STACK_BYTES = 64 * 1024 * 1024  # 4x what 1,000 levels were measured to need on Python 3.11

_OPENERS = frozenset({TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE})
_CLOSERS = frozenset({TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE})

TOO_DEEP = texts.TOO_DEEP.format(levels=f"{MAX_NESTING:,}".replace(",", " "))


class _RecursionLimit:
    """Raised while any reading runs, restored when the last one ends."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.readers = 0
        self.saved = 0

    def raise_(self) -> None:
        with self.lock:
            if self.readers == 0:
                self.saved = sys.getrecursionlimit()
                sys.setrecursionlimit(self.saved + MAX_NESTING * _FRAMES_PER_LEVEL)
            self.readers += 1

    def restore(self) -> None:
        with self.lock:
            self.readers -= 1
            if self.readers == 0:
                sys.setrecursionlimit(self.saved)


_LIMIT = _RecursionLimit()
_START_LOCK = threading.Lock()  # threading.stack_size is process-wide: one start at a time


def check_nesting(tokens: list[Token]) -> None:
    """Refuses SQL nested deeper than :data:`MAX_NESTING`, counted without recursion."""
    depth = deepest = 0
    for token in tokens:
        if token.token_type in _OPENERS:
            depth += 1
            deepest = max(deepest, depth)
        elif token.token_type in _CLOSERS:
            depth -= 1
    if deepest > MAX_NESTING:
        raise SqlTooDeep(
            texts.TOO_DEEP_HERE.format(too_deep=TOO_DEEP, deepest=f"{deepest:,}".replace(",", " "))
        )


def read_deeply(work: Callable[[], T]) -> T:
    """Runs ``work`` in a thread with room for :data:`MAX_NESTING` levels of recursion."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        _LIMIT.raise_()
        try:
            outcome.append(work())
        except BaseException as exc:  # handed to the caller's thread, re-raised there
            failure.append(exc)
        finally:
            _LIMIT.restore()

    with _START_LOCK:  # the size applies to the threads started while it is set
        previous = threading.stack_size(_STACK_BYTES)
        try:
            worker = threading.Thread(target=run, name="sstools-sql-reader", daemon=True)
            worker.start()
        finally:
            threading.stack_size(previous)
    worker.join()
    if failure:
        raise failure[0]
    return outcome[0]
