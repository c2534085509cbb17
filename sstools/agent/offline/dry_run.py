"""The offline answer to a dry run (a write called with ``dry_run: true``): its plan in words,
and that nothing was changed.

The plan reads as a preview's (:func:`sstools.agent.offline.answers.deploys.plan`: the impact in
the card's words, :func:`sstools.agent.card.impact.impact_text`, then what changes); a dry run
that failed reads as the failure, which changed nothing either.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sstools.agent.card.impact import no_card_because
from sstools.agent.card.plan import PlanView
from sstools.agent.offline.answers import render_content
from sstools.agent.offline.answers.deploys import is_plan
from sstools.agent.texts import tools as texts

# Every plan (a deploy's, a migration's, a rollback's, a restore's) reads as the preview's.
_PLAN_READER = "preview_migration"


def render(content: str, args: Mapping[str, Any], env_id: str | None) -> str:
    """The plan as a person reads it, then «Это только план: ничего не изменено.» (a dry run
    that got no plan: why, and «Ничего не изменено.»)."""
    answer = render_content(_PLAN_READER, content, args, env_id)
    try:
        plan = json.loads(content)
    except ValueError:
        plan = None
    if not (isinstance(plan, dict) and is_plan(plan)):
        return f"{answer}\n\n{texts.DRY_RUN_NO_PLAN}"
    out = [answer, texts.DRY_RUN_NOTHING_CHANGED]
    if no_card_because(PlanView.of(plan)) is None:  # it can be applied: say how
        out.append(texts.DRY_RUN_HOW_TO_APPLY)
    return "\n\n".join(out)
