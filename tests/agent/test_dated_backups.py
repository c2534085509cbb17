"""A backup named by its day («из бэкапа от 5 декабря», "the Dec 5 backup"): that day's backup
from the records, in the environment restored, else the one the message names."""

from __future__ import annotations

import pytest

from sstools.agent.fleet import ListedTask
from sstools.agent.offline.dated import Day, backup_on, day_said
from sstools.auth.roles import Role
from tests.agent.test_planner_names import FLEET
from tests.agent.test_planner_round6 import asked


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("восстанови прод из бэкапа от 5 декабря", Day(12, 5)),
        ("restore prod from the Dec 5 backup", Day(12, 5)),
        ("restore from the backup of December 5th", Day(12, 5)),
        ("бэкап за 30 ноября", Day(11, 30)),
        ("из копии 05.12", Day(12, 5)),
        ("из копии 05.12.2026", Day(12, 5, 2026)),
        ("backup 2026-11-30", Day(11, 30, 2026)),
        ("из последнего бэкапа", None),
        ("дашборды 5 и 8 на прод", None),
        ("5 may", Day(5, 5)),
        ("march 32", None),
    ],
)
def test_the_day_a_message_names(text: str, day: Day | None) -> None:
    assert day_said(text) == day


def _backup(env_id: str, taken: str, status: str = "succeeded") -> ListedTask:
    backup_id = f"{env_id}.{taken}000000Z"
    return ListedTask(
        id=taken.replace("T", "0")[:32].ljust(32, "a"),
        kind="backup",
        status=status,
        env_id=env_id,
        objects=[backup_id],
    )


RECORDS = FLEET.model_copy(
    update={
        "tasks": [  # newest first, as GET /api/tasks lists them
            _backup("prod", "20261206T030000", status="failed"),
            _backup("prod", "20261205T030000"),
            _backup("prod", "20261205T010000"),
            _backup("prod", "20261204T030000"),
            _backup("staging", "20261204T030000"),
        ]
    }
)


def test_the_days_newest_succeeded_backup_of_the_environment_restored() -> None:
    assert backup_on("от 5 декабря", RECORDS, ["prod"]) == "prod.20261205T030000000000Z"
    assert backup_on("от 6 декабря", RECORDS, ["prod"]) is None  # that night's failed
    assert backup_on("от 4 декабря", RECORDS, ["staging", "prod"]) == (
        "staging.20261204T030000000000Z"
    )
    assert backup_on("от 5 декабря", RECORDS, ["staging", "prod"]) == (
        "prod.20261205T030000000000Z"  # none in staging that day: the other one named
    )


def test_a_restores_what_if_from_a_dated_backup_is_its_plan() -> None:
    outcome = asked(
        "что будет, если восстановить прод из бэкапа от 5 декабря?", Role.admin, handed=RECORDS
    )
    assert outcome.calls == [
        (
            "restore_backup",
            {
                "target_env_id": "prod",
                "dry_run": True,
                "backup_id": "prod.20261205T030000000000Z",
            },
        )
    ]
