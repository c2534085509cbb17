"""Drift: per environment, the dashboards that differ from git main or from the upstream stage,
and the two ways to reconcile one edited directly (adopt it into git, or put git's back)."""

from __future__ import annotations

from typing import Any

from sstools.agent.offline.answers.dashboards import sstools_dashboard
from sstools.agent.offline.answers.words import (
    NO_HINT,
    Hint,
    count,
    link,
    listing,
    mapping,
    md,
    more,
    when,
)
from sstools.agent.texts import answers as texts


def drift(payload: Any, hint: Hint = NO_HINT) -> str | None:
    if not isinstance(payload, dict) or "environments" not in payload:
        return None
    out = [texts.DRIFT_CHECKED.format(when=when(payload.get("checked_at")))]
    edited_in: list[str] = []
    in_git: list[str] = []  # environments with a dashboard edited directly that git holds
    for env in (mapping(one) for one in listing(payload.get("environments"))):
        env_id, stage = md(env.get("env_id") or "—"), md(env.get("stage") or "—")
        drifted = [mapping(one) for one in listing(env.get("drifted"))]
        if env.get("reachable") is False:
            out += ["", texts.DRIFT_ENV_UNREACHABLE.format(env=env_id, stage=stage)]
            continue
        if not drifted:
            out += ["", texts.DRIFT_ENV_CLEAN.format(env=env_id, stage=stage)]
            continue
        total = int(env.get("drifted_total_count") or len(drifted))
        out += [
            "",
            texts.DRIFT_ENV_FOUND.format(env=env_id, stage=stage, count=count(total, "dashboard")),
        ]
        source = md(env.get("source_env_id") or texts.DRIFT_NO_SOURCE)
        for one in drifted:
            state = str(one.get("state"))
            title = md(one.get("title") or "—")
            shown = link(title, sstools_dashboard(one.get("dashboard_id"), str(env.get("env_id"))))
            words = texts.DRIFT_STATES.get(state, state).format(source=source)
            out.append(f"- «{shown or title}» — {words}")
            if state == "edited_here":
                edited_in.append(env_id)
                if one.get("in_git"):
                    in_git.append(env_id)
        if (note := more(len(drifted), total)) is not None:
            out.append(note)
    if edited_in:  # put back as in git only where git holds it
        put_back = texts.DRIFT_PUT_BACK.format(env=in_git[0]) if in_git else ""
        tail = texts.DRIFT_CARDS if in_git else texts.DRIFT_CARD
        out += ["", texts.DRIFT_ADOPT + put_back + tail]
    out += ["", texts.DRIFT_PAGE]
    return "\n".join(out)
