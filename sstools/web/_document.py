"""A generated document (Markdown a model wrote) as a structure of blocks and spans of text.

The page never renders that Markdown as HTML: the text is data. It is read here into headings,
paragraphs, lists, tables and code, each holding plain strings, and the template writes every
string through Jinja's autoescape. Raw HTML in the document stays visible text, and links keep
their words only (an address a model wrote is not followed from our page).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

MAX_CHARS = 60_000  # beyond this the rest is left out, and the page says so
HEADING_OFFSET = 2  # «# title» is an h3 inside the panel: the page's own h1 and h2 come first
SpanKind = Literal["text", "strong", "em", "code"]
BlockKind = Literal["heading", "paragraph", "list", "table", "code", "rule"]

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(.*)$")
_ORDERED = re.compile(r"^\s*\d{1,9}[.)]\s")
_FENCE = re.compile(r"^\s*(```|~~~)")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
# Inline: `code`, **strong**, *em*, [words](address), a backslash escape; the rest is text.
_INLINE = re.compile(
    r"`(?P<code>[^`]+)`"
    r"|\*\*(?P<strong>[^*]+?)\*\*"
    r"|(?<![\w*])\*(?P<em>[^*\s](?:[^*]*[^*\s])?)\*(?![\w*])"
    r"|\[(?P<label>[^\]]*)\]\((?P<address>(?:[^()]|\([^()]*\))*)\)"
    r"|\\(?P<escaped>[!-/:-@\[-`{-~])"
)


@dataclass(frozen=True)
class Span:
    kind: SpanKind
    text: str


@dataclass
class Block:
    kind: BlockKind
    level: int = 0  # a heading's HTML level, 3 to 6
    spans: list[Span] = field(default_factory=list)  # heading, paragraph
    items: list[list[Span]] = field(default_factory=list)  # list
    ordered: bool = False
    header: list[list[Span]] = field(default_factory=list)  # table
    rows: list[list[list[Span]]] = field(default_factory=list)
    text: str = ""  # code


@dataclass
class Document:
    blocks: list[Block]
    cut: bool  # longer than MAX_CHARS: the rest is not shown


def spans(text: str) -> list[Span]:
    """Inline Markdown as spans; whatever is not `code`, **strong** or *em* is plain text."""
    found: list[Span] = []
    plain: list[str] = []
    position = 0

    def flush() -> None:
        if plain:
            found.append(Span("text", "".join(plain)))
            plain.clear()

    for match in _INLINE.finditer(text):
        plain.append(text[position : match.start()])
        position = match.end()
        if match.group("escaped") is not None:
            plain.append(match.group("escaped"))
        elif match.group("label") is not None:
            plain.append(match.group("label"))  # its words; the address is not kept
        else:
            flush()
            kind: SpanKind = next(k for k in ("code", "strong", "em") if match.group(k))
            found.append(Span(kind, match.group(kind)))
    plain.append(text[position:])
    flush()
    return [one for one in found if one.text]


def _cells(line: str) -> list[list[Span]]:
    """A table row's cells, split on the ``|`` that are not escaped (``\\|`` is a character)."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [spans(cell.strip()) for cell in re.split(r"(?<!\\)\|", inner)]


def _is_table(lines: list[str], index: int) -> bool:
    return (
        "|" in lines[index]
        and index + 1 < len(lines)
        and "|" in lines[index + 1]
        and bool(_TABLE_RULE.match(lines[index + 1]))
    )


def _special(lines: list[str], index: int) -> bool:
    """Whether the line starts a block other than a paragraph (so it ends a paragraph)."""
    line = lines[index]
    return bool(
        _HEADING.match(line)
        or _ITEM.match(line)
        or _FENCE.match(line)
        or _RULE.match(line)
        or _is_table(lines, index)
    )


def parse(markdown: str) -> Document:
    """The document's blocks, in order: what the panel shows."""
    cut = len(markdown) > MAX_CHARS
    lines = markdown[:MAX_CHARS].replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            index += 1
        elif fence := _FENCE.match(line):
            end = index + 1
            while end < len(lines) and not lines[end].strip().startswith(fence.group(1)):
                end += 1
            blocks.append(Block("code", text="\n".join(lines[index + 1 : end])))
            index = end + 1
        elif heading := _HEADING.match(line):
            level = min(len(heading.group(1)) + HEADING_OFFSET, 6)
            blocks.append(Block("heading", level=level, spans=spans(heading.group(2))))
            index += 1
        elif _is_table(lines, index):
            header, index = _cells(line), index + 2
            rows = []
            while index < len(lines) and "|" in lines[index] and lines[index].strip():
                rows.append(_cells(lines[index]))
                index += 1
            blocks.append(Block("table", header=header, rows=rows))
        elif _RULE.match(line):
            blocks.append(Block("rule"))
            index += 1
        elif _ITEM.match(line):
            block = Block("list", ordered=bool(_ORDERED.match(line)))
            texts: list[str] = []
            while index < len(lines) and lines[index].strip():
                item = _ITEM.match(lines[index])
                if item:
                    texts.append(item.group(1))
                elif texts:  # a wrapped line of the item above
                    texts[-1] += " " + lines[index].strip()
                index += 1
                following = index < len(lines) and not _ITEM.match(lines[index])
                if following and _special(lines, index):
                    break
            block.items = [spans(text) for text in texts]
            blocks.append(block)
        else:
            words = [line.strip().removeprefix(">").strip()]
            index += 1
            while index < len(lines) and lines[index].strip() and not _special(lines, index):
                words.append(lines[index].strip().removeprefix(">").strip())
                index += 1
            blocks.append(Block("paragraph", spans=spans(" ".join(words))))
    return Document(blocks, cut)
