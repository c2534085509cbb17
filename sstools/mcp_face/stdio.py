"""``sstools mcp``: the MCP face over stdio for a host on this machine, as a bridge to ``/mcp``
of a running ``sstools serve`` — the same server, sign-in and holds, not a second copy of them.

Every message the host writes goes to the server as it is, and every message of the server
(elicitations included) back to the host: the bridge reads none of them.
"""

from __future__ import annotations

import anyio
import httpx
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.client.streamable_http import streamable_http_client
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage


async def _pump(
    source: ObjectReceiveStream[SessionMessage | Exception],
    sink: ObjectSendStream[SessionMessage],
) -> None:
    async for message in source:
        if isinstance(message, SessionMessage):  # a transport's own hiccup is not forwarded
            await sink.send(message)


async def bridge(url: str, token: str) -> None:
    """Serve stdio until the host closes it, relaying to ``url``'s ``/mcp`` as ``token``."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(30, read=None)) as http,
        streamable_http_client(f"{url.rstrip('/')}/mcp", http_client=http) as remote,
        stdio_server() as (host_in, host_out),
        anyio.create_task_group() as tasks,
    ):
        remote_in, remote_out, _ = remote
        tasks.start_soon(_pump, remote_in, host_out)
        await _pump(host_in, remote_out)  # the host closed stdin: done
        tasks.cancel_scope.cancel()
