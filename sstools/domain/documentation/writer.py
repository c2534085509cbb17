"""The document by the model: the same sections, in its words, checked before it is kept.

An answer without every section, or one that leaves out a chart, is not used: the template's
document is stored instead, and the task says why.
"""

from __future__ import annotations

import json
import re

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from sstools.domain.documentation.models import DocumentSource
from sstools.domain.documentation.render import sections
from sstools.domain.validation.review import model_failure, structure
from sstools.errors import SstoolsError
from sstools.texts import documentation as texts

MAX_DOCUMENT_CHARS = 50_000

SYSTEM = """You write the documentation of an Apache Superset dashboard for the people who use
and maintain it, in Russian, as Markdown. Start with "# <dashboard title>", then exactly these
second-level sections in this order: {sections}. Explain the dashboard's purpose from its charts
and data; list every chart with its dataset and metrics; use only the facts given. Answer with
the Markdown document only."""

_FENCE = re.compile(r"^```(?:markdown|md)?\s*\n|\n```\s*$")


class DocumentRejected(SstoolsError):
    """The model did not answer, or its document lacks a section or a chart."""


def check_document(markdown: str, source: DocumentSource) -> None:
    """Every section heading and every chart's name, or :class:`DocumentRejected`."""
    headings = {line[3:].strip() for line in markdown.splitlines() if line.startswith("## ")}
    missing = [title for title in texts.SECTIONS if title not in headings]
    if missing:
        raise DocumentRejected(texts.MISSING_SECTIONS.format(sections=", ".join(missing)))
    absent = [chart.name for chart in source.facts.charts if chart.name not in markdown]
    if absent:
        raise DocumentRejected(texts.UNNAMED_CHARTS.format(charts=", ".join(absent)))
    if len(markdown) > MAX_DOCUMENT_CHARS:
        raise DocumentRejected(texts.TOO_LONG.format(chars=MAX_DOCUMENT_CHARS))


def model_document(model: BaseChatModel, source: DocumentSource) -> str:
    facts = {
        "dashboard": structure(source.facts),
        "environment": source.facts.env_id,
        "sections_from_metadata": sections(source),
    }
    system = SYSTEM.format(sections=", ".join(f"«## {title}»" for title in texts.SECTIONS))
    try:
        reply = model.invoke(
            [SystemMessage(system), HumanMessage(json.dumps(facts, ensure_ascii=False))]
        )
    except Exception as exc:  # any transport or provider error: fall back to the template
        raise DocumentRejected(model_failure(exc, "documentation")) from exc
    markdown = _FENCE.sub("", str(reply.content).strip()).strip() + "\n"
    check_document(markdown, source)
    return markdown
