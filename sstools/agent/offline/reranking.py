"""What the fleet changes about the tools a request means (issue 36, round 3).

:func:`~sstools.agent.offline.intent.choose` reads the words alone; some requests mean another
tool once their names are resolved against the fleet the graph handed over:

- a data question on a dataset («есть ли пустые значения в колонке region?», "top 5 regions by
  revenue") that a query over its columns answers, or a change of its rows in words («удали те,
  где quantity больше 15»): the SQL, before its schema or a search;
- a comparison with nothing named to move («is staging in sync with dev?», «этот дашборд везде
  одинаковый?»): the drift;
- who changed what with no dashboard on the page or named («кто что менял на стейдже?»): the
  environment's task records, not a dashboard's timeline;
- a history question naming one dashboard by title away from its page («кто и когда выкатывал
  Каналы продаж?»): its timeline (the task list filters by the page's dashboard only);
- why a task of one kind failed («почему упала миграция мониторинга сетей?») when the records
  hold such a failed task: its status, with its error (the list answers when none failed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sstools.agent.context import ObjectType, UIContext
from sstools.agent.fleet import Fleet
from sstools.agent.offline import names
from sstools.agent.offline.data_questions import data_change, data_question
from sstools.agent.offline.intent import Choice, intents, phrases, spaced, writes
from sstools.agent.offline.resolving import task_asked
from sstools.agent.offline.slots import Said, dashboards
from sstools.agent.texts import vocabulary as vocab

_SQL, _TASKS, _STATUS = "superset_execute_sql", "list_tasks", "get_task_status"
_TIMELINE, _DRIFT = "get_dashboard_timeline", "get_drift"


def _first(choice: Choice, name: str) -> Choice:
    return replace(choice, tools=(name, *(tool for tool in choice.tools if tool != name)))


def reranked(
    choice: Choice,
    text: str,
    said: Said,
    context: UIContext | None,
    fleet: Fleet,
    offered: Sequence[str],
) -> Choice:
    """``choice`` with the tool the fleet shows the request means first, where one does."""
    a_read_first = not choice.tools or not writes(choice.tools[0])
    if a_read_first and _SQL in offered and data_question(said, context, fleet):
        return _first(choice, _SQL)
    if _SQL in offered and data_change(said, context, fleet):
        return _first(choice, _SQL)  # refused to a reader, asked as SQL from an engineer
    if _DRIFT in offered and _environments_compared(text, said, context, fleet):
        return _first(choice, _DRIFT)
    if (
        choice.tools[:1] == (_TIMELINE,)
        and _TASKS in offered
        and _changes_of_nothing(text, said, context, fleet)
    ):
        return _first(choice, _TASKS)
    if choice.tools[:1] == (_TASKS,) and _TIMELINE in offered and _history_of(said, context, fleet):
        return _first(choice, _TIMELINE)
    if choice.tools[:1] == (_TASKS,) and _STATUS in offered and _failed_of_a_kind(said, fleet):
        return _first(choice, _STATUS)
    return choice


def _failed_of_a_kind(said: Said, fleet: Fleet) -> bool:
    """«почему упала миграция мониторинга сетей?»: a kind of task and its dashboard named, and the
    records hold such a task that failed (without a dashboard, the failed tasks' list answers)."""
    if not vocab.FAILED_WORDS.search(said.prose):
        return False
    prose = spaced(said.prose)
    if not any(phrases(words).search(prose) for words in vocab.TASK_KIND_WORDS.values()):
        return False
    titles = {one.title for one in names.named(said.prose, fleet, None)}
    task = task_asked(said, fleet, None)
    return task is not None and task.status == "failed" and bool(titles & set(task.objects))


def _on_a_dashboard(context: UIContext | None) -> bool:
    return context is not None and context.object_type is ObjectType.dashboard


def _environments_compared(text: str, said: Said, context: UIContext | None, fleet: Fleet) -> bool:
    found = intents(text)
    if not found or found[0] != "compare":
        return False
    if vocab.EVERYWHERE.search(said.prose):
        return True
    here = context.env_id if context else None
    named = dashboards(said) or names.named(said.prose, fleet, here)
    return not (_on_a_dashboard(context) or named)


def _changes_of_nothing(text: str, said: Said, context: UIContext | None, fleet: Fleet) -> bool:
    """«кто что менял на стейдже?» with no dashboard on the page or named: the environment's
    task records answer (a timeline is one dashboard's)."""
    if _on_a_dashboard(context) or dashboards(said) or intents(text)[:1] != ["changed_by"]:
        return False
    here = context.env_id if context else None
    return not names.named(said.prose, fleet, here)


def _history_of(said: Said, context: UIContext | None, fleet: Fleet) -> bool:
    """A history question naming one dashboard by title away from its page, asking who or when
    (what failed is the task records' answer)."""
    if _on_a_dashboard(context) or vocab.FAILED_WORDS.search(said.prose):
        return False
    here = context.env_id if context else None
    return len(names.named(said.prose, fleet, here)) == 1
