"""What a request means: which tool the offline planner calls (issue 22 §2).

Two readings, in this order:

1. **Frames** (:data:`~sstools.agent.texts.intents.INTENT_FRAMES`): what people say for each
   intent («сделай бэкап», «история выкаток», «создай ветку», "pretty print"), tried in order,
   so a verb decides before the object or the environment a message names («сделай резервную
   копию окружения staging» is a backup, not the environment list). An intent names its tools
   best first; the first one that is here (offered, or hidden only by the role) wins.
2. **The router's ranking** (BM25 + the shipped multilingual embedding, over the tools' texts and
   example requests in ``routing/tools.yaml``) when no frame matches: the meaning of the request.

A question (:func:`asks`) never becomes a write: a write with a plan is asked with
``dry_run`` (its plan is the answer), another write is passed over for the next reading — unless
the role lacks it, when the answer is the refusal naming the role.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from sstools.agent.routing.router import indexes, ranking, scores
from sstools.agent.routing.tokens import fold
from sstools.agent.texts import intents as intent_words
from sstools.agent.texts import vocabulary as vocab
from sstools.agent.tools import CATALOGUE, ToolKind

Asking = Literal["plan", "read"]

# Each intent's tools, best first; for a plan question, :data:`_PLAN_TOOLS` first.
_TOOLS: dict[str, tuple[str, ...]] = {
    "capabilities": ("show_capabilities",),
    "restore": ("restore_backup",),
    "rollback": ("rollback_deploy",),
    "task_status": ("get_task_status",),
    "backup_make": ("run_backup",),
    "backup_list": ("list_backups",),
    "format_sql": ("superset_format_sql",),
    "create_dataset": ("superset_create_dataset",),
    "execute_sql": ("superset_execute_sql",),
    "drift": ("get_drift",),  # before git's status and a comparison: «что отличается от git»
    "git_status": ("get_git_status",),
    "branch_create": ("create_branch",),
    "documentation": ("run_llm_documentation",),
    "commit": ("commit_changes",),
    "permissions": ("superset_audit_permissions",),
    "validation": ("run_llm_validation",),
    # «кто последний менял …»: its versions with who made each, else its last change and owners
    "changed_by": ("get_dashboard_timeline", "get_health_summary"),
    "timeline": ("get_dashboard_timeline",),  # before the task list: «история версий»
    "tasks_list": ("list_tasks",),
    "numbers": ("get_dashboard_data",),
    # Where no plan of a write can answer (the page, or the role), the drift of the page's object.
    "compare": ("preview_migration", "deploy_dashboard", "execute_migration", "get_drift"),
    "migration": ("execute_migration", "preview_migration", "deploy_dashboard"),
    "deploy": ("deploy_dashboard",),
    "branch_list": ("list_branches",),  # after the verbs: «выкати из ветки …» is a deploy
    "explore": ("superset_explore_database",),
    "search": ("search_dashboards",),
    "overview": ("get_health_summary",),  # asked in full: what it shows (issue 22 §4)
    "health": ("get_health_summary",),
    "environments": ("list_environments",),
}
# A plan question about a migration is its preview first (a read), then the write's dry run.
_PLAN_TOOLS = {"migration": ("preview_migration", "execute_migration")}
# A question about a check or a document reads what the dashboard's summary says of them (its
# last validation); it never starts the task («он проходил проверку?»).
_QUESTION_TOOLS = {
    "validation": ("get_health_summary",),
    "documentation": ("get_health_summary",),
}
# Frames that do not stand for an intent when a plan is asked: «что изменится при выкатке» is
# about the deploy, not its history.
_NOT_FOR_PLANS = frozenset({"tasks_list", "backup_list", "environments", "health", "search"})


_TRANSLIT_I = re.compile(r"(?<=[aeiou])[ij](?![aeiou])")


def _slips(word: str) -> set[str]:
    """A word as fast typing gets it wrong: two neighbouring letters swapped («сдлеай»), or, in
    a long word, a letter inside it left out («выполни» as «выпони»; the last one only as an
    imperative's «й»: «перенес» is another form of «перенеси»)."""
    swapped = {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}
    dropped = (
        {word[:i] + word[i + 1 :] for i in range(1, len(word) - 1)} if len(word) >= 6 else set()
    )
    if word.endswith(vocab.IMPERATIVE_END) and len(word) >= 6:
        dropped.add(word[:-1])  # «сдела бекап»: an imperative's «й» left off is no other form
    return (swapped | dropped) - {word}


@cache
def _mends() -> dict[str, str]:
    """Each slip of a command's verb or the object it names, and the word it stands for (a slip
    two words share, or that is itself one of them, is left as typed)."""
    words = {*vocab.WRITE_COMMANDS, *vocab.TASK_COMMANDS, *vocab.MENDED_WORDS}
    found: dict[str, set[str]] = {}
    for word in words:
        for slip in _slips(word):
            found.setdefault(slip, set()).add(word)
    return {
        slip: meant.pop() for slip, meant in found.items() if len(meant) == 1 and slip not in words
    }


def mend(text: str) -> str:
    """The text with the slips of :func:`_mends` typed right."""
    mends = _mends()
    return _WORD.sub(lambda m: mends.get(m[0].lower(), m[0]), text)


_WORD = re.compile(r"\w+")


def spaced(text: str) -> str:
    """Folded, with every run of non-letters one space: what the phrase patterns read. An «i» or
    a «j» after a vowel is the «й» of a transliteration ("sozdai", "sdelaj" as «создай»); a slip
    of a command's word is read as the word (:func:`mend`)."""
    return " ".join(re.findall(r"[a-z0-9]+", _TRANSLIT_I.sub("y", fold(mend(text)))))


# Russian prepositions as spaced: one ending a phrase is a word, not a longer word's start.
_PREPOSITIONS = frozenset({"po", "o", "ob", "v", "vo", "s", "so", "k", "na", "iz", "do", "ot", "u"})


def phrases(items: Sequence[str], *, whole: bool = False) -> re.Pattern[str]:
    """Any of ``items`` at the start of a word of the spaced text (``whole``: as whole words);
    «…» in an item lets any words come between its parts."""
    patterns = []
    for item in sorted(items, key=len, reverse=True):
        parts = [re.escape(spaced(part)) for part in item.split("…") if spaced(part)]
        pattern = r"\S*(?: \S+)*? ".join(parts)
        # «дашборд по» is not the start of «дашборд Погода»: a last preposition is whole
        said = spaced(item).split()
        patterns.append(pattern + r"(?= |$)" if said[1:] and said[-1] in _PREPOSITIONS else pattern)
    end = r"(?= |$)" if whole else ""
    return re.compile(r"(?:^| )(?:" + "|".join(patterns) + ")" + end)


_PLAN_QUESTION = phrases(vocab.PLAN_QUESTIONS)
_WRITE_COMMAND = phrases((*vocab.WRITE_COMMANDS, *vocab.TASK_COMMANDS), whole=True)
_LEADS = "|".join(re.escape(spaced(lead)) for lead in vocab.COMMAND_LEAD)
_WRITE_COMMAND_EN = re.compile(
    rf"^(?:(?:{_LEADS}) )*(?:{'|'.join(map(re.escape, vocab.WRITE_COMMANDS_EN))})(?= |$)"
)
_READ_QUESTION = phrases(vocab.READ_QUESTIONS)
_POLITE = phrases(vocab.POLITE_ASKS, whole=True)
_SEARCH_VERB = phrases(intent_words.SEARCH_VERBS)
_BACKUP = phrases(vocab.BACKUP_WORDS)
_PAST_DEPLOY = phrases(vocab.PAST_DEPLOYS)
_IN_PROGRESS = phrases(vocab.IN_PROGRESS)
_OWNER = phrases(vocab.OWNER_WORDS)
_MAY_I = phrases(vocab.MAY_I)
_CANT_FIND = phrases(vocab.CANT_FIND)
_HEALTH_ASKED = phrases(vocab.HEALTH_ASKED)
# What a write would do, asked outright: its plan answers, not the list of versions.
_OUTCOME = phrases(vocab.OUTCOME_QUESTIONS)
# A SQL text: backquoted, or from the keyword a statement starts with to the end.
SQL = re.compile(
    r"`([^`]+)`|(\b(?:select\s|with\s+\w+\s+as\s*\(|insert\s+into\s|update\s+\w+\s+set\s|"
    r"delete\s+from\s|(?:create|drop|alter)\s+(?:table|view|index|schema)\s|truncate\s).*)",
    re.IGNORECASE | re.DOTALL,
)
# A task's id, whole or its first digits: hexadecimal with a digit and a letter, 8 to 32 long
# (or written as a UUID).
TASK_ID = re.compile(
    r"(?<![\w-])(?:[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}"
    r"|(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,32})(?![\w-])"
)
# A backup's id as list_backups names it: «ss-dev.20261130T051038123456Z».
BACKUP_ID = re.compile(r"[\w-]+\.[0-9]{8}T[0-9]{6,}Z")


def task_ids(text: str) -> list[str]:
    """The tasks a text names by id, in order."""
    lower = text.lower()
    return TASK_ID.findall(lower) or vocab.TASK_NAMED.findall(lower)


def _orders(text: str) -> bool:
    """An imperative write verb («перенеси», "deploy …"), not a noun («журнал миграций»)."""
    said = spaced(SQL.sub(" ", text))
    return bool(_WRITE_COMMAND.search(said) or _WRITE_COMMAND_EN.search(said))


def asks(text: str) -> Asking | None:
    """Whether the message asks rather than orders: ``plan`` when it asks what a write would
    change, ``read`` when it asks to be shown something; None: a command (its card, if a write).

    An imperative write verb makes a command («выкати в prod», even with «?»), unless the
    message asks what would change; a trailing «?» asks, unless it is politeness («можешь…?»).
    """
    said = spaced(SQL.sub(" ", text))  # a query's words («select», «with») are not the ask
    said = vocab.INDEFINITE.sub(" ", said).strip()  # «его кто-то снёс» asks nothing
    if _PLAN_QUESTION.search(said):
        return "plan"
    if _WRITE_COMMAND.search(said) or _WRITE_COMMAND_EN.search(said):
        return None
    if _READ_QUESTION.search(said):
        return "read"
    if "?" in SQL.sub(" ", text) and not _POLITE.search(said):  # «прод отвечает? что-то тупит»
        return "read"
    return None


@cache
def _frames() -> dict[str, re.Pattern[str]]:
    return {intent: phrases(items) for intent, items in intent_words.INTENT_FRAMES.items()}


def intents(text: str) -> list[str]:
    """The intents whose frames the message matches, in their order of precedence."""
    # A commit a deploy reads from («из коммита 3f2a…») is its source, not a request to commit.
    # What is left out («всё, кроме архива») says nothing of what is asked.
    asked = vocab.ALL_BUT.sub(" ", text) if vocab.ALL_WORDS.search(text) else text
    said = spaced(vocab.COMMIT_REF.sub(" ", SQL.sub(" sql ", asked)))
    found = [intent for intent, frame in _frames().items() if frame.search(said)]
    leading = {i: m.end() for i in found if (m := _frames()[i].match(said)) is not None}
    searching = _SEARCH_VERB.match(said)
    if searching and max(leading, key=lambda i: leading[i]) == "search":
        found.remove("search")  # «найди дашборды, которые надо перенести»: the verb leads
        return ["search", *sorted(set(found), key=list(_TOOLS).index)]
    if "rollback" in found and "restore" not in found and _BACKUP.search(said):
        # «откатись на вчерашний бэкап»: back to a backup is its restore, not a deploy's undo
        found[found.index("rollback")] = "restore"
    if found[:1] in (["validation"], ["documentation"]) and _IN_PROGRESS.search(said):
        # «проверка Customer Revenue ещё идёт?»: the task's status, not the dashboard's
        found.insert(0, "task_status")
    if _PAST_DEPLOY.search(said) and not SQL.search(text) and not _PLAN_QUESTION.search(said):
        # «что Аня вчера деплоила?», "when was this pushed to prod?": the records, not a deploy
        found = [i for i in found if i not in ("deploy", "migration")] + ["tasks_list"]
    if "deploy" in found and "migration" not in found and vocab.ALL_DASHBOARDS.search(text):
        # «выкати все в стейдж»: every dashboard of the source is a migration, not one deploy.
        found[found.index("deploy")] = "migration"
    if "timeline" in found and "branch_list" in found and vocab.BRANCH_WORD.search(text):
        found.remove("timeline")  # «как называются ветки? ищу ту, где релизная версия»
    if found[:1] == ["validation"] and "health" in found and _HEALTH_ASKED.search(said):
        found.remove("validation")  # «чекни health этого борда»: its state, not a check task
    if "capabilities" in found and "search" in found and _CANT_FIND.search(said):
        found.remove("capabilities")  # «не могу найти дашборд …»: where it is, not the role
    if "changed_by" in found and _OWNER.search(said):
        # «кто владелец и кто его последний трогал»: the summary says both, its owners first
        found[found.index("changed_by")] = "health"
    if vocab.SUPERSET_RELEASE.search(said):
        # «какая версия суперсета на проде?»: the environments say their releases
        return ["environments", *(i for i in found if i not in ("timeline", "environments"))]
    if SQL.search(text):
        # A query to run, unless a verb says what else to do with it (format it, wrap it).
        found.append("execute_sql")
    if BACKUP_ID.search(text) and "backup_make" not in found:
        found.append("restore")  # a backup's id: restoring it, unless a verb says more
    if task_ids(vocab.COMMIT_REF.sub(" ", BACKUP_ID.sub(" ", text))):
        found.append("task_status")  # a task's number: its status, unless a verb says more
    order = list(_TOOLS)
    return sorted(set(found), key=order.index)


def intent_tools(intent: str) -> tuple[str, ...]:
    """The tools an intent stands for, best first."""
    return _TOOLS[intent]


def writes(name: str) -> bool:
    return CATALOGUE[name].kind is ToolKind.write


def starts_a_task(name: str) -> bool:
    """A task it starts whatever its arguments (a write with a plan starts none when asked with
    ``dry_run``)."""
    return CATALOGUE[name].starts_task and not has_plan(name)


def has_plan(name: str) -> bool:
    return "dry_run" in CATALOGUE[name].args_model.model_fields


def answers_a_question(name: str) -> bool:
    """A read, a write with a plan (asked with ``dry_run``), or a tool whose kind depends on the
    call (its arguments decide, later)."""
    tool = CATALOGUE[name]
    return tool.kind is ToolKind.read or has_plan(name) or tool.classify is not None


# The embedding's closest passage at least this close (cosine) means the request is about a tool;
# greetings and noise («привет», «спасибо», "asdf") stay below it (measured on the tune split).
MEANING_FLOOR = 0.9


def _has_an_opinion(text: str, names: Sequence[str]) -> bool:
    """Whether the router's ranking means something: a word of a tool's texts (BM25), or a
    meaning close to one of their passages (the embedding)."""
    if scores(text, names, "bm25").any():
        return True
    return float(indexes().semantic.scores(text, names).max()) >= MEANING_FLOOR


# Intents a command orders: said with a task's history («вчера упало»), the order comes first.
_ORDERED = frozenset({"deploy", "migration", "rollback", "restore", "backup_make"})
# Intents whose question is what the write would change, when they come first.
_WRITES_ASKED_ABOUT = frozenset({"rollback", "compare", "migration", "deploy"})


def _about_a_write(intent: str, text: str) -> bool:
    return intent in _WRITES_ASKED_ABOUT or (
        intent == "restore" and BACKUP_ID.search(text) is not None
    )


@dataclass(frozen=True)
class Choice:
    """The tools to try for a request, best first, and whether it asks a question."""

    tools: tuple[str, ...]
    asking: Asking | None
    overview: bool = False  # «расскажи про этот дашборд»: what it shows, not its status


def choose(text: str, offered: Sequence[str], beyond_role: Sequence[str]) -> Choice:
    """The tools that answer ``text``, best first, among those ``offered`` and those the role
    lacks (``beyond_role``: then the answer is the refusal naming the role)."""
    asking = asks(text)
    found = intents(text)
    if asking == "read" and found and _about_a_write(found[0], text):
        asking = "plan"  # «what does undoing the last deploy revert?»: what the write would do
    here = [*offered, *(name for name in beyond_role if name not in offered)]
    chosen: list[str] = []
    plans: list[str] = []  # for a question that is not about a plan: a plan only if nothing reads
    # A comparison the role could only have answered with a write's plan it lacks: refused naming
    # the role only if nothing it may read answers it («чем он отличается от дева» → the drift).
    beyond: list[str] = []

    def admit(name: str) -> None:
        if name not in here or name in chosen:
            return
        if asking is not None and name in offered and not answers_a_question(name):
            return  # a question is never answered by a write it may make
        if asking is not None and starts_a_task(name):
            return  # nor by a task it would start (a plan is asked with dry_run: none starts)
        if asking == "plan" and name in offered and writes(name) and not has_plan(name):
            return
        if asking == "read" and name in offered and writes(name):
            plans.append(name)
            return
        if comparing and asking is not None and name not in offered and writes(name):
            beyond.append(name)
            return
        chosen.append(name)

    if asking == "plan":  # what a write would change first, its history or list after
        found = sorted(found, key=lambda intent: intent in _NOT_FOR_PLANS)
    elif asking is None and _ORDERED.intersection(found) and _orders(text):
        # «перенеси на стейдж ещё раз, вчера же упало», «закинь эту версию на прод»: the order,
        # not the records or the versions it mentions
        found = sorted(found, key=lambda intent: intent in ("tasks_list", "timeline"))
    if asking is not None and "timeline" in found and not _OUTCOME.search(spaced(text)):
        # «к какой версии можно откатиться?», «можно ли вернуть его к версии до…»: its versions
        found = ["timeline", *(intent for intent in found if intent != "timeline")]
    comparing = bool(found) and found[0] == "compare"
    for intent in found:
        tools = (_PLAN_TOOLS.get(intent) if asking == "plan" else None) or _TOOLS[intent]
        if asking is not None:
            tools = _QUESTION_TOOLS.get(intent, tools)
        if intent == "deploy" and asking == "plan" and "deploy_dashboard" not in offered:
            # «что изменится, если выкатить…» from one who may not deploy: the preview answers
            tools = ("preview_migration", *tools)
        if intent == "restore" and asking == "read" and not BACKUP_ID.search(text):
            tools = ("list_backups", *tools)  # «из какого бэкапа можно восстановить?»: the list
        for name in tools:
            admit(name)
    if asking == "plan" and not chosen:
        # «что изменится, если…» with no object named: the deploy's or the migration's plan.
        for name in ("preview_migration", "deploy_dashboard", "execute_migration"):
            if name in here:
                chosen.insert(0, name)
                break
    if not chosen and asking is not None and found and _MAY_I.search(spaced(text)):
        # «can I back up prod?» where the role may not: the answer is the role it needs.
        chosen = [name for name in _TOOLS[found[0]] if name in beyond_role]
    if not chosen:
        # The meaning, when no frame says it, among the offered tools only: a write the role
        # lacks is refused when the person's words name it, never for a meaning's neighbour.
        ranked = list(offered)
        if len(ranked) > 1 and not _has_an_opinion(text, ranked):
            return Choice(tools=(), asking=asking)  # «привет»: the page's default answers
        for name, _ in ranking(text, ranked, "hybrid") if len(ranked) > 1 else []:
            admit(name)
        for name in ranked:
            admit(name)
    chosen += [name for name in plans if name not in chosen]
    if not chosen:
        chosen = [name for name in beyond if name not in chosen]
    # «расскажи про…», «на каких датасетах он построен» (after the dataset's own words, which
    # no dashboard page offers a tool for): what it shows, unless its status is asked too.
    overview = "overview" in found and "health" not in found and "changed_by" not in found
    return Choice(tools=tuple(chosen), asking=asking, overview=overview)
