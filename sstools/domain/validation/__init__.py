"""Dashboard validation: deterministic checks, the model's review, stored findings.

See docs/validation.md.
"""

from sstools.domain.validation.facts import DashboardFacts, collect
from sstools.domain.validation.models import Counts, Finding, ValidationReport, counts_of
from sstools.texts.validation import last_run_text

__all__ = [
    "Counts",
    "DashboardFacts",
    "Finding",
    "ValidationReport",
    "collect",
    "counts_of",
    "last_run_text",
]
