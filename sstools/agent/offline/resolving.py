"""Arguments the message gives by name, filled from the fleet (issue 36).

:func:`~sstools.agent.offline.slots.arguments` reads what the message says in ids and words;
here what it says by name is resolved against the fleet the graph handed over
(:mod:`sstools.agent.fleet`, matched in :mod:`~sstools.agent.offline.names`):

- a dashboard by its title («выкати Пиковые нагрузки на прод», «сравни Energy KPIs в dev и
  prod»); several that fit: asked back, with them as the choices;
- a search by its topic («есть ли дашборд про погоду?»): the dashboards found, by id;
- «все», «всё» in a migration: every dashboard of the source, listed on its card;
- the page's dashboard read in another environment («статус дашборда на проде»): its namesake;
- «последний бэкап», «последняя выкатка», «моя миграция», a deploy by its first digits: from
  the task records (the environment too), with choices when more than one fits;
- a data question on a dataset's page («сколько строк?», «первые 10 строк», «средняя температура
  по регионам»): the query on its table, written out (a read; :mod:`.data_questions`).

Each returns the arguments, or the question back in words (never an argument's name).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sstools.agent.context import ObjectType, UIContext
from sstools.agent.fleet import Fleet, Listed, ListedTask
from sstools.agent.offline import names
from sstools.agent.offline.answers.words import short_id
from sstools.agent.offline.data_questions import query_args
from sstools.agent.offline.dated import backup_on
from sstools.agent.offline.intent import phrases, spaced
from sstools.agent.offline.slots import Said, environments
from sstools.agent.texts import answers as answer_texts
from sstools.agent.texts import offline as texts
from sstools.agent.texts import vocabulary as vocab
from sstools.agent.tools import CATALOGUE

# Tools whose one dashboard a title names; those that take several.
_ONE_DASHBOARD = frozenset(
    {
        "deploy_dashboard",
        "get_health_summary",
        "run_llm_validation",
        "run_llm_documentation",
        "get_dashboard_timeline",
    }
)
_SEVERAL = frozenset({"execute_migration", "preview_migration"})
_DEPLOYS = ("deploy", "migration")
SHOWN = 3


def _choices(found: list[Listed]) -> str:
    listed = [f"«{one.title}» (#{one.id})" for one in found[:SHOWN]]
    return texts.OR.join(listed) if len(listed) <= 2 else ", ".join(listed)


def _which_dashboard(name: str, found: list[Listed]) -> str:
    tool = CATALOGUE[name].title
    return texts.ASK_WHICH_DASHBOARD.format(tool=tool, choices=_choices(found))


def _task_choices(tasks: list[ListedTask]) -> str:
    return ", ".join(
        texts.TASK_CHOICE.format(
            kind=answer_texts.TASK_KINDS.get(task.kind, task.kind),
            id=short_id(task.id),
            status=answer_texts.TASK_STATUSES.get(task.status, task.status),
        )
        + (f" ({task.env_id})" if task.env_id else "")
        for task in tasks[:SHOWN]
    )


def resolve(
    name: str,
    args: dict[str, Any],
    said: Said,
    context: UIContext | None,
    fleet: Fleet,
    *,
    numbered: bool,
    known: Sequence[str],
) -> dict[str, Any] | str:
    """``args`` with what the message names resolved, or a question back. ``numbered``: the
    message named its dashboards by number (then no title is looked for)."""
    here = context.env_id if context else None
    on_dashboard = context is not None and context.object_type is ObjectType.dashboard
    page_id = int(context.object_id) if on_dashboard and context and context.object_id else None
    prose = said.prose
    if name == "search_dashboards" and fleet.dashboards:
        found = names.about(prose, fleet, here)
        if found:
            return {key: v for key, v in args.items() if key != "query"} | {
                "dashboard_ids": [one.id for one in found][:20]
            }
    if name == "get_drift" and len(compared := set(_mentioned(said, known))) >= 2:
        # «на проде всё как в стейдже?», «между стейджем и продом»: the later one lags or not
        args["env_id"] = max(compared, key=_stage)
    if name == "get_dashboard_data":
        args = _numbers_where(args, _mentioned(said, known), here, prose)
        if numbered or "dashboard_id" in args or not fleet.dashboards:
            return args
        # «какие цифры на Продажах по регионам»: by its title, in the environment read
        found = names.named(prose, fleet, args.get("env_id") or here)
        found = [one for one in found if one.id != page_id] if on_dashboard else found
        if len(found) > 1:
            return _which_dashboard(name, found)
        return args | ({"dashboard_id": found[0].id} if found else {})
    if name == "get_health_summary" and args.get("env_id") not in (None, here):
        return _elsewhere(args, fleet, here, page_id, prose)
    if name == "get_health_summary":
        args.pop("env_id", None)  # the page's own environment: as before, no argument
    if name in _ONE_DASHBOARD and not numbered and fleet.dashboards:
        found = names.named(prose, fleet, here)
        if on_dashboard:  # beside one dashboard, another named by its title is the one meant
            found = [one for one in found if one.id != page_id]
            found = found if len(found) == 1 else []
        if len(found) > 1:
            return _which_dashboard(name, found)
        if found:
            args["dashboard_id"] = found[0].id
    if name in _SEVERAL and "dashboard_ids" not in args and fleet.dashboards:
        if "source_env_id" not in args and args.get("target_env_id"):
            # «сравни … в dev и prod», «всё, что в деве, в прод»: neither marked as where from,
            # so the earlier stage is (changes flow dev → staging → prod)
            mentioned = sorted(set(_mentioned(said, known)), key=_stage)
            if len(mentioned) >= 2:
                args["source_env_id"], args["target_env_id"] = mentioned[0], mentioned[-1]
        source = args.get("source_env_id") or here
        _several(args, prose, fleet, source, named=not numbered)
    if name == "commit_changes" and "dashboard_ids" not in args and not on_dashboard:
        _several(args, prose, fleet, here, named=not numbered)
    if name == "restore_backup" and "backup_id" not in args:
        env = args.get("target_env_id") or here
        mine = names.says_mine(prose)
        backups = names.latest_task(fleet, ("backup",), env, mine=mine)
        ids = [task.objects[0] for task in backups if task.objects and task.status == "succeeded"]
        # «из бэкапа от 5 декабря»: that day's; «из последнего», «мой бэкап»; else asked
        dated = backup_on(said.prose, fleet, [e for e in (env, *_mentioned(said, known)) if e])
        chosen = dated or (ids[0] if ids and (said.last or mine) else None)
        if chosen is not None:
            args["backup_id"] = chosen
            args.setdefault("target_env_id", env)
    if name == "rollback_deploy":
        page = names.titled(fleet, here, page_id) if page_id else None
        title = page.title if page else (context.object_name if on_dashboard and context else None)
        if title is None and not numbered:  # "roll back yesterday's Executive Summary deploy"
            named = names.named(prose, fleet, args.get("env_id") or here)
            title = named[0].title if len(named) == 1 else None
        return _rollback(args, said, fleet, title)
    if name == "get_task_status" and len(prefix := str(args.get("task_id", ""))) in range(4, 32):
        known_task = names.latest_task(fleet, (), prefix=prefix)  # "why did a6d03e7b fail"
        if len(known_task) == 1:
            args["task_id"] = known_task[0].id
    if name == "superset_audit_permissions" and "object_id" not in args and not numbered:
        args |= _audited_by_name(prose, fleet, here)
    if name == "superset_audit_permissions" and on_dashboard and "object_type" not in args:
        args["object_type"] = "dashboard"  # «кто может открыть этот дашборд?»: the page's, said
    if name == "superset_explore_database" and "table" not in args:
        _table_named(args, prose, context, fleet)  # "columns of weather_daily?"
    on_a_dataset = context is not None and context.object_type is ObjectType.dataset
    if name == "superset_explore_database" and "schema_name" in args and not on_a_dataset:
        args |= _the_database(args, fleet, here)  # «какие таблицы в схеме main?»: in which base
    if name == "superset_execute_sql" and "sql" not in args:
        return query_args(args, said, context, fleet)
    if name == "superset_create_dataset" and "table" in args and "schema_name" not in args:
        args |= _schema_of(args.get("database_id"), fleet, here)  # "register weather_daily"
    return args


def _the_database(args: dict[str, Any], fleet: Fleet, here: str | None) -> dict[str, Any]:
    """The one database this environment's datasets live in, when the message names none."""
    if "database_id" in args:
        return {}
    used = {one.database_id for one in fleet.datasets if one.env_id == here and one.database_id}
    return {"database_id": used.pop()} if len(used) == 1 else {}


def _schema_of(database_id: object, fleet: Fleet, here: str | None) -> dict[str, Any]:
    """The database's schema when its datasets here all live in one: where a new table is."""
    schemas = {
        one.schema_name
        for one in fleet.datasets
        if one.env_id == here and one.database_id == database_id and one.schema_name
    }
    return {"schema_name": schemas.pop()} if len(schemas) == 1 else {}


def _several(
    args: dict[str, Any], prose: str, fleet: Fleet, source: str | None, *, named: bool
) -> None:
    """The dashboards of ``source`` a request means: «все» (of one topic: «всё про продажи»,
    but one: «всё, кроме черновика»), else those its titles name."""
    if vocab.ALL_WORDS.search(prose):
        every = _all_of(prose, fleet, source)
        if every:
            args["dashboard_ids"] = every
    elif named:
        found = names.named(prose, fleet, source)
        if found:
            args["dashboard_ids"] = [one.id for one in found]


def _all_of(prose: str, fleet: Fleet, source: str | None) -> list[int]:
    topic = vocab.ALL_ABOUT.search(prose)
    if topic:  # a topic no title is about means none, never everything
        chosen = names.about(next(word for word in topic.groups() if word), fleet, source)
    else:
        chosen = [one for one in fleet.dashboards if one.env_id == source]
    but = vocab.ALL_BUT.search(prose)
    # «кроме прогноза нагрузки» is that title, not every title with «нагрузки»; «кроме черновика
    # и архива» is two, each by a word
    clause = but.group(1) if but else ""
    spared = names.named(clause, fleet, source) or names.about(
        clause, fleet, source, every_word=True
    )
    left_out = {one.id for one in spared} if but else set()
    return [one.id for one in chosen if one.id not in left_out]


def _audited_by_name(prose: str, fleet: Fleet, here: str | None) -> dict[str, Any]:
    """«кто имеет доступ к дашборду Customer Revenue?», «… к датасету sales_orders»."""
    found = names.named(prose, fleet, here)
    if len(found) == 1:
        return {"object_type": "dashboard", "object_id": found[0].id}
    table = names.dataset_named(prose, fleet, here)
    return {"object_type": "dataset", "object_id": table.id} if table else {}


def _table_named(args: dict[str, Any], prose: str, context: UIContext | None, fleet: Fleet) -> None:
    """A dataset's table named by its name (not the page's own): where it lives, to read it."""
    here = context.env_id if context else None
    table = names.dataset_named(prose, fleet, here)
    page = context.object_id if context and context.object_type is ObjectType.dataset else None
    if table is None or str(table.id) == page or table.database_id is None:
        return
    args |= {"database_id": table.database_id, "table": table.name}
    if table.schema_name:
        args["schema_name"] = table.schema_name


def _stage(env_id: str) -> int:
    order = vocab.STAGE_ORDER
    return next((i for i, stage in enumerate(order) if stage in env_id), len(order))


def task_asked(
    said: Said, fleet: Fleet, env_id: str | None, known: Sequence[str] = ()
) -> ListedTask | None:
    """The task a status question means without its id, from the records: «моя выкатка»,
    «почему упала последняя задача?», "is my backup done yet?" — the newest that fits what it
    says (its kind, the person's own, failed, where: ``env_id``, else the environment it names
    among ``known``); None when it says none of these."""
    prose = spaced(said.prose)
    env_id = env_id or next(iter(_mentioned(said, known)), None)
    kinds = tuple(
        kind
        for kinds, words in vocab.TASK_KIND_WORDS.items()
        if phrases(words).search(prose)
        for kind in kinds
    )
    mine = names.says_mine(said.prose)
    failed = vocab.FAILED_WORDS.search(said.prose) is not None
    if not (kinds or mine or failed or said.last):
        return None
    fitting = names.latest_task(fleet, kinds, env_id, mine=mine)
    return next((task for task in fitting if not failed or task.status == "failed"), None)


def _mentioned(said: Said, known: Sequence[str]) -> list[str]:
    found = environments(said, known, None)
    return list(dict.fromkeys([*found.sources, *found.targets]))


def _numbers_where(
    args: dict[str, Any], mentioned: list[str], here: str | None, prose: str
) -> dict[str, Any]:
    """Where a dashboard's numbers are read: «в prod … чем в staging» compares the two; «почему в
    prod цифры другие?» compares the page's with prod; «покажи цифры в prod» reads prod's."""
    args.pop("env_id", None)
    others = [env for env in mentioned if env != here]
    if len(mentioned) >= 2:
        args["env_id"], args["compare_env_id"] = mentioned[0], mentioned[1]
    elif others and vocab.NUMBERS_DIFFER.search(prose):
        args["compare_env_id"] = others[0]
    elif others:
        args["env_id"] = others[0]
    return args


def _elsewhere(
    args: dict[str, Any], fleet: Fleet, here: str | None, page_id: int | None, prose: str
) -> dict[str, Any] | str:
    """A dashboard read in another environment: the page's (or the named one's) namesake there."""
    env = str(args["env_id"])
    if "dashboard_id" in args:
        return args
    page = names.titled(fleet, here, page_id) if page_id else None
    if page is not None:
        there = names.same_in(fleet, page, env)
        if there is not None:
            return args | {"dashboard_id": there.id}
        return texts.NOT_THERE.format(title=page.title, env=env)
    found = names.named(prose, fleet, env)
    if len(found) > 1:
        return _which_dashboard("get_health_summary", found)
    if found:
        return args | {"dashboard_id": found[0].id}
    return args


def _rollback(
    args: dict[str, Any], said: Said, fleet: Fleet, dashboard: str | None
) -> dict[str, Any] | str:
    """A deploy to undo: named by its first digits, else «последняя» / «моя» from the records;
    beside a dashboard (``dashboard``: its title), the latest deploy of it (where the message
    says), one not rolled back yet."""
    env = args.get("env_id")
    prefix = args.get("task_id")
    if prefix is not None:
        known = names.latest_task(fleet, _DEPLOYS, prefix=str(prefix))
        if len(known) == 1:
            task = known[0]
            if names.rolled_back(fleet, task):
                return texts.ALREADY_ROLLED_BACK.format(id=short_id(task.id))
            args["task_id"] = task.id
            if task.env_id:
                args["env_id"] = task.env_id  # the environment the deploy wrote
        return args
    if not (said.last or names.says_mine(said.prose) or dashboard):
        return args
    fitting = names.latest_task(fleet, _DEPLOYS, env, mine=names.says_mine(said.prose))
    fitting = [
        task
        for task in fitting
        if task.status == "succeeded"
        and not names.rolled_back(fleet, task)
        and (dashboard is None or dashboard in task.objects)
    ]
    if dashboard and fitting:  # «откати прод к предыдущей версии» beside it: its latest deploy
        task = fitting[0]
        return args | {"task_id": task.id} | ({"env_id": task.env_id} if task.env_id else {})
    if len(fitting) == 1 or (fitting and said.last):
        task = fitting[0]
        return args | {"task_id": task.id} | ({"env_id": task.env_id} if task.env_id else {})
    if fitting:
        tool = CATALOGUE["rollback_deploy"].title
        return texts.ASK_WHICH_TASK.format(tool=tool, choices=_task_choices(fitting))
    return args
