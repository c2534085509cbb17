"""The tool catalogue: importing this package registers all 24 tools.

Its face: what a tool is (``spec``) and what one call of it carries (``call``).
"""

from sstools.agent.tools import dashboards, datasets, deploys, operations
from sstools.agent.tools.call import ApprovedPlan, CallScope, ToolArgumentError, ToolRequest
from sstools.agent.tools.spec import CATALOGUE, ToolArgs, ToolKind, ToolSpec

__all__ = [
    "CATALOGUE",
    "ApprovedPlan",
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
