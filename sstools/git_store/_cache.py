"""A small bounded in-process cache whose keys carry what makes a value fresh.

A key names the object and its freshness (an environment, a dashboard UUID, a fingerprint of its
``changed_on`` and its charts'): when the object moves, its key changes and the old entry is
never read again, only pushed out by newer ones. So a hit is never stale, and nothing has to be
invalidated. Concurrent misses of one key share one computation.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class BoundedCache(Generic[Key, Value]):
    """The ``size`` most recently used values (``size`` 0: nothing is kept)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Key, Value] = OrderedDict()
        self._pending: dict[Key, asyncio.Future[Value]] = {}
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        self._items.clear()

    def get(self, key: Key) -> Value | None:
        return self._items.get(key)

    def put(self, key: Key, value: Value) -> None:
        if self.size <= 0:
            return
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    async def get_or_make(self, key: Key, make: Callable[[], Awaitable[Value]]) -> Value:
        """The value kept for ``key``, else ``make()``'s (shared by whoever asks meanwhile)."""
        if key in self._items:
            self.hits += 1
            self._items.move_to_end(key)
            return self._items[key]
        pending = self._pending.get(key)
        if pending is not None:
            self.hits += 1
            return await asyncio.shield(pending)
        self.misses += 1
        future: asyncio.Future[Value] = asyncio.ensure_future(make())
        self._pending[key] = future
        try:
            value = await asyncio.shield(future)
        finally:
            self._pending.pop(key, None)
        self.put(key, value)
        return value
