"""A reply's text as it streams, shown up to where a tool call written as text may begin."""

from __future__ import annotations

from sstools.agent.text_calls import call_may_start


class Streamed:
    """A reply's text as it streams, shown up to where a tool call written as text may begin:
    the rest waits for the whole reply, whose final message never shows raw call JSON."""

    def __init__(self) -> None:
        self._text: dict[str, str] = {}
        self._shown: dict[str, int] = {}

    def showable(self, message_id: str, piece: str) -> str:
        text = self._text.get(message_id, "") + piece
        self._text[message_id] = text
        start = call_may_start(text)
        safe = len(text) if start is None else start
        shown = self._shown.get(message_id, 0)
        if safe <= shown:
            return ""
        self._shown[message_id] = safe
        return text[shown:safe]
