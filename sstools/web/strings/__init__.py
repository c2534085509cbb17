"""Every string the pages show, in one catalogue (Russian): an English UI is a file away.

The catalogue is one dict, ``UI``, read by the templates as ``t`` and by the scripts as ``ui``;
its entries live in a module per area of the pages, so none grows past a screenful of keys.
A key is in exactly one module (``tests/web/test_strings.py``).
"""

from __future__ import annotations

from sstools.web.strings._agent import AGENT, SUGGESTIONS
from sstools.web.strings._approvals import APPROVALS
from sstools.web.strings._audit import AUDIT
from sstools.web.strings._dashboard import DASHBOARD
from sstools.web.strings._fleet import FLEET
from sstools.web.strings._general import GENERAL
from sstools.web.strings._tasks import TASKS

AREAS: tuple[dict[str, str], ...] = (GENERAL, APPROVALS, AGENT, DASHBOARD, TASKS, FLEET, AUDIT)
UI: dict[str, str] = {key: text for area in AREAS for key, text in area.items()}

__all__ = ["AREAS", "SUGGESTIONS", "UI"]
