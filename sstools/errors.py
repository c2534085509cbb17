"""The one root of sstools' own errors; the HTTP edge maps them to statuses, not the errors.

Every exception sstools raises on purpose derives from :class:`SstoolsError` (beside a standard
base such as ``ValueError`` where a library needs one), so a handler can tell ours from a bug.
The tree, by area:

    SstoolsError
"""

from __future__ import annotations


class SstoolsError(Exception):
    """An error sstools raises on purpose; anything else reaching an edge is a bug."""
