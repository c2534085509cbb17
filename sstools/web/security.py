"""Security headers on every response: a strict CSP (no inline script), no sniffing, no framing.

A pure ASGI middleware that wraps ``send``: unlike ``BaseHTTPMiddleware`` it also sees streamed
responses and every exception handler's response. The 500 handler runs outside all middleware,
so it takes :data:`SECURITY_HEADERS` itself.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}

# Pages and API answers carry a user's data: no browser or proxy may keep a copy.
NO_STORE: dict[str, str] = {"Cache-Control": "no-store"}


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` everywhere and ``no-store`` outside the static assets."""

    def __init__(self, app: ASGIApp, *, cacheable_prefixes: tuple[str, ...] = ("/static/",)):
        self.app = app
        self.cacheable_prefixes = cacheable_prefixes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cacheable = str(scope["path"]).startswith(self.cacheable_prefixes)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
                if not cacheable:
                    headers.setdefault("Cache-Control", "no-store")
            await send(message)

        await self.app(scope, receive, send_with_headers)
