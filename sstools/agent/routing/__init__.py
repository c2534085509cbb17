"""The tool router (AGTL-FR-006): which of the allowed tools fit the person's message."""

from sstools.agent.routing.router import RouterMode, ToolRouter, tool_router

__all__ = ["RouterMode", "ToolRouter", "tool_router"]
