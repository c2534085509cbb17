"""A transport to Superset that counts the requests sent through it (what a bench reports)."""

from __future__ import annotations

import httpx


class CountingTransport(httpx.AsyncBaseTransport):
    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self.sent = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent += 1
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()

    def take(self) -> int:
        """The requests sent since the last take."""
        sent, self.sent = self.sent, 0
        return sent
