"""``/audit``: the agent's writes as they were asked, approved and run, and their JSON and CSV."""

from __future__ import annotations

from sstools.web.audit.routes import api_router, page_router

__all__ = ["api_router", "page_router"]
