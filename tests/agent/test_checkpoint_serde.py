"""Checkpoints deserialise strictly: a stored object of a class off LangGraph's allow-list comes
back as plain data, never as an instance (a tampered checkpoint cannot construct what it names)."""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from sstools.agent.run.checkpoints import strict_serde


@dataclass
class Payload:
    command: str


def test_an_unlisted_class_is_not_rebuilt_but_messages_are() -> None:
    stored = JsonPlusSerializer().dumps_typed({"p": Payload("rm -rf /"), "m": HumanMessage("hi")})
    permissive = JsonPlusSerializer(allowed_msgpack_modules=True).loads_typed(stored)
    strict = strict_serde().loads_typed(stored)
    assert isinstance(permissive["p"], Payload)  # what the default would have done
    assert not isinstance(strict["p"], Payload)
    assert isinstance(strict["m"], HumanMessage)
