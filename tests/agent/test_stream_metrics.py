"""The open-streams gauge follows the slots: up when a stream opens, down however it ends."""

from __future__ import annotations

from prometheus_client import REGISTRY

from sstools.agent.run.stream_slots import StreamSlots


def _open() -> float:
    return REGISTRY.get_sample_value("sstools_active_streams") or 0.0


def test_active_streams_gauge_counts_open_slots_once() -> None:
    slots = StreamSlots(per_user=5, per_conversation=5)
    before = _open()
    first = slots.acquire("olga", "c1")
    second = slots.acquire("olga", "c2")
    assert _open() - before == 2
    first.release()
    first.release()  # a slot released twice counts once
    assert _open() - before == 1
    second.release()
    assert _open() == before
