"""The drift rule on its own: a dashboard in one environment against its source and git main."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sstools.domain.drift import DriftState, Reference, drift_state

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
EARLIER, LATER = T0 - timedelta(hours=1), T0 + timedelta(hours=1)


@pytest.mark.parametrize(
    ("present", "references", "expected"),
    [
        # Nothing anywhere: not a row at all.
        (False, [None, None], None),
        # The source or git has it, this environment does not.
        (False, [Reference(T0, None), None], DriftState.missing),
        (False, [None, Reference(T0, None)], DriftState.missing),
        # Equal to its source: in sync, however old.
        (True, [Reference(EARLIER, False), None], DriftState.in_sync),
        # The source changed after this copy, and differs: behind.
        (True, [Reference(LATER, True), None], DriftState.behind_source),
        # git main has a newer, different version: behind too.
        (True, [Reference(EARLIER, False), Reference(LATER, True)], DriftState.behind_source),
        # Changed here after the source and differing from it, git does not track it.
        (True, [Reference(EARLIER, True), None], DriftState.edited_here),
        # …and from git main too, newer than both.
        (True, [Reference(EARLIER, True), Reference(EARLIER, True)], DriftState.edited_here),
        # Adopted into git: equal to main, so not drift, though it differs from its source.
        (True, [Reference(EARLIER, True), Reference(LATER, False)], DriftState.in_sync),
        # Came from its source (equal to it) though git lags: the drift is the source's.
        (True, [Reference(EARLIER, False), Reference(EARLIER, True)], DriftState.in_sync),
        # The first stage: only git; newer and different is edited here.
        (True, [None, Reference(EARLIER, True)], DriftState.edited_here),
        # No reference at all: new work here, not drift.
        (True, [None, None], DriftState.in_sync),
        # A doubt never reports drift: unknown comparison, unknown time.
        (True, [Reference(EARLIER, None), None], DriftState.in_sync),
        (True, [Reference(None, True), None], DriftState.in_sync),
    ],
)
def test_the_state_follows_the_rule(
    present: bool, references: list[Reference | None], expected: DriftState | None
) -> None:
    assert drift_state(present, T0, references) is expected


def test_an_unknown_time_here_is_never_newer_nor_older() -> None:
    assert drift_state(True, None, [Reference(T0, True), None]) is DriftState.in_sync


def test_a_naive_time_is_read_as_utc() -> None:
    naive_later = LATER.replace(tzinfo=None)
    assert drift_state(True, naive_later, [Reference(T0, True), None]) is DriftState.edited_here
