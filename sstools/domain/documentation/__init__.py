"""Dashboard documentation: markdown by the model or a template, stored and committed to git.

See docs/validation.md.
"""

from sstools.domain.documentation.models import DashboardDocumentation, DocumentSource
from sstools.domain.documentation.render import template_document
from sstools.texts.documentation import SECTIONS

__all__ = ["SECTIONS", "DashboardDocumentation", "DocumentSource", "template_document"]
