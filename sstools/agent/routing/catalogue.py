"""The router's text per tool (``tools.yaml``): descriptions in Russian and English, the words
people use for it, requests."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, RootModel

from sstools.agent.tools import ToolSpec

_FILE = Path(__file__).with_name("tools.yaml")


class RoutingText(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ru: str = Field(min_length=1)
    en: str = Field(min_length=1)
    keywords: tuple[str, ...] = Field(min_length=1)  # the offline planner's lexicon
    examples: tuple[str, ...] = Field(min_length=1)


class RoutingTexts(RootModel[dict[str, RoutingText]]):
    pass


@cache
def routing_texts() -> dict[str, RoutingText]:
    return RoutingTexts.model_validate(yaml.safe_load(_FILE.read_text(encoding="utf-8"))).root


def keywords(name: str) -> tuple[str, ...]:
    """The words a person uses for the tool ``name``."""
    return routing_texts()[name].keywords


def lexical_document(tool: ToolSpec) -> str:
    """Everything BM25 matches for a tool: its name, title, keywords, descriptions, examples."""
    text = routing_texts()[tool.name]
    parts = [
        tool.name.replace("_", " "),
        tool.title,
        " ".join(text.keywords),
        tool.description,
        text.ru,
        text.en,
        *text.examples,
    ]
    return "\n".join(parts)


def semantic_passages(tool: ToolSpec) -> list[str]:
    """Embedded one by one: a request is scored by the passage of the tool it is closest to."""
    text = routing_texts()[tool.name]
    return [f"{tool.title}. {text.ru}", text.en, *text.examples]
