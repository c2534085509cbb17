"""The tool catalogue: importing this package registers all 24 tools."""

from sstools.agent.tools import dashboards, datasets, deploys, operations
from sstools.agent.tools.spec import (
    CATALOGUE,
    CallScope,
    ToolArgs,
    ToolArgumentError,
    ToolKind,
    ToolRequest,
    ToolSpec,
)

__all__ = [
    "CATALOGUE",
    "CallScope",
    "ToolArgs",
    "ToolArgumentError",
    "ToolKind",
    "ToolRequest",
    "ToolSpec",
    "dashboards",
    "datasets",
    "deploys",
    "operations",
]
