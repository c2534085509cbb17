"""The agent's answer about the fleet says the Superset release of each environment, and once
more in its first line when the fleet is in the middle of an upgrade."""

from __future__ import annotations

from typing import Any

from sstools.agent.offline.answers.environments import environments


def _env(env_id: str, stage: str, version: str | None) -> dict[str, Any]:
    return {
        "id": env_id,
        "name": f"Superset {env_id}",
        "stage": stage,
        "url": f"http://{env_id}.example",
        "reachable": version is not None,
        "superset_version": version,
    }


def test_a_fleet_mid_upgrade_is_said_with_each_release() -> None:
    text = environments(
        [
            _env("ss-dev", "dev", "6.1.0"),
            _env("staging", "staging", "6.1.0"),
            _env("prod", "prod", "5.0.0"),
        ]
    )
    assert text is not None
    first = text.splitlines()[0]
    assert first.startswith("Окружений: 3; все отвечают. Версии Superset разные")
    assert "ss-dev — 6.1.0, staging — 6.1.0, prod — 5.0.0" in first
    assert "| Версия Superset |" in text
    assert "| продуктив | да | 5.0.0 |" in text


def test_one_release_everywhere_is_not_remarked_and_an_unknown_one_is_a_dash() -> None:
    text = environments([_env("ss-dev", "dev", "6.1.0"), _env("prod", "prod", None)])
    assert text is not None
    assert "разные" not in text
    assert "| продуктив | нет | — |" in text
