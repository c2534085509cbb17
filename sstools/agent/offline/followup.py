"""What a message means given the conversation before it (issue 36, issue 33 §1).

- :func:`follow_up`: the planner asked back («в какое окружение — staging или prod?») and the
  person answers with the slot alone («prod», «на стейдж», «7 и 8», the first digits of a task):
  the answer is read together with the message it completes, so it fills the slot asked for and
  keeps every other one the first message gave («перенеси в стейдж» + «7 и 8»).
  An answer «первый» picks the first of the choices the question listed; «а на проде?», «а
  теперь?» after an answer asks the earlier request again, there or now.
- :func:`small_talk`: thanks or a message sent by mistake, answered in words, nothing run (a
  greeting still gets the page's default answer);
- :func:`waiting`: «ну что там?» after a task was started: its status.
- :func:`elsewhere`: «откати…» where no rollback is offered (a dashboard's chat, before any
  deploy in it), «сделай бэкап дева» beside a dashboard: told where to ask, not answered with
  another tool's card.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from sstools.agent.context import UIContext
from sstools.agent.offline.asking import latest_task
from sstools.agent.offline.intent import (
    BACKUP_ID,
    SQL,
    asks,
    intent_tools,
    intents,
    phrases,
    spaced,
    task_ids,
    writes,
)
from sstools.agent.texts import OFFLINE_PREFIX
from sstools.agent.texts import conversation_words as turns
from sstools.agent.texts import offline as texts
from sstools.agent.texts import vocabulary as vocab
from sstools.agent.tools import CATALOGUE

# At most this many words answer a question back; a longer message is a request of its own.
_ANSWER_WORDS = 5
# At most this many ask the earlier request again («ну тогда хотя бы покажи, что изменится»).
_SWITCH_WORDS = 8
# A name given alone: one token with a digit or a separator («q1-budget-review», «feature/x»).
_IDENTIFIER = re.compile(r"(?=\S*[0-9_./-])[\w./-]+")
# Intents an answer may carry without being a request of its own: a task's digits read as its
# status, a word for the environment.
_SLOT_INTENTS = frozenset({"task_status"})
_SMALL_TALK = frozenset(spaced(word) for word in turns.THANKS)
_APOLOGY = frozenset(spaced(word) for word in turns.APOLOGIES) - {"my", "ne", "tot"}
_YES = frozenset(spaced(word) for word in turns.AGREED)
# «а на проде?», «а теперь?» after an answer: the same request again, there or now.
_SWITCH = re.compile(
    r"(?:a|and|what about)(?: |$)"
    r"|(?:i|how about|same for|also|teper|now|nu togda|togda|then) (?=\S)"
    r"|.*(?: tak zhe| tozhe| too| as well)$"  # «на проде так же?»
)
_SWITCH_INTENTS = frozenset({"task_status", "health"})
# Reads of the environment or the repository a page has no neighbour for: «бэкапы есть?» beside a
# dashboard is told where to ask (unless it names the page's object: «в каких бэкапах этот
# дашборд» reads its versions).
_POINTED_READS = frozenset(
    {
        *("task_status", "backup_list", "branch_list", "tasks_list", "drift", "environments"),
        *("execute_sql", "format_sql"),  # a query typed beside a dashboard
    }
)
# A table named by its name («колонки в таблице sales_orders»): the database's, not the page's.
_TABLE_NAMED = re.compile(r"(?<![\w/.-])[a-z][a-z0-9]*_[a-z0-9_]+(?![\w/.-])")
# The page's object, in the singular: «с дашбордами» speaks of all of them, not of this one.
_PAGE_WORDS = re.compile(
    r"(?:^| )(?:dashbord|dashboard|bord|board|dash|dashik|dataset)(?:a|e|u|om|ik|ika|e)?(?= |$)"
)


def last_said(messages: Sequence[BaseMessage]) -> str:
    """The person's latest message."""
    return str(next((m.content for m in reversed(messages) if isinstance(m, HumanMessage)), ""))


def _asked_back(message: BaseMessage) -> bool:
    """An answer with no call that asks something: the planner's question back (or a model's)."""
    if not isinstance(message, AIMessage) or message.tool_calls:
        return False
    # Answers before 5 December began with the prefix (the /agent page now says it once).
    content = str(message.content).removeprefix(OFFLINE_PREFIX)
    return "?" in content or _ASKS.search(spaced(content)) is not None


_ASKS = phrases(turns.ASKING_WORDS)


def follow_up(messages: Sequence[BaseMessage], *, routed: bool = False) -> str | None:
    """The first message and its completing answer as one request, or None when the latest
    message is a request of its own. ``routed``: what the tools are ranked for — after an
    answer, «а на стейдже?» asks the earlier request again, so its words alone."""
    said = [i for i, message in enumerate(messages) if isinstance(message, HumanMessage)]
    if len(said) < 2 or said[-1] != len(messages) - 1:
        return None
    latest, earlier = messages[said[-1]], messages[said[-2]]
    between = messages[said[-2] + 1 : said[-1]]
    if not between:
        return None
    answer = str(latest.content)
    # A pasted query answers «какой запрос?» whatever its length.
    asked = _asked_back(between[-1])
    pasted = SQL.match(answer.strip()) is not None and asked
    length = len(spaced(answer).split())
    if not pasted and (length > _SWITCH_WORDS or (length > _ANSWER_WORDS and asked)):
        return None
    if asked:
        question = str(between[-1].content)
        # «q1-budget-review» after «как назвать ветку?»: a name, not a request of its own
        named = _IDENTIFIER.fullmatch(answer.strip()) is not None
        if not named and not pasted and not set(intents(answer)) <= _SLOT_INTENTS:
            # «второй, расскажи про него»: a request of its own about the choice it picks
            picked = _picked_first(answer, question)
            return None if picked is None else picked
        answer = (
            _picked(answer, question)
            or _agreed(answer, question)
            or _every_choice(answer, question)
            or answer
        )
    elif not (_SWITCH.match(spaced(answer)) and set(intents(answer)) <= _SWITCH_INTENTS):
        return None
    elif routed:
        return str(earlier.content)
    return f"{earlier.content} {answer}"


def _picked(answer: str, question: str) -> str | None:
    """«первый», «второй» after a question listing choices in «…»: the choice itself."""
    place = turns.ORDINALS.get(spaced(answer))
    choices = re.findall(r"«([^»]+)»", question)
    if place is None or not choices or place >= len(choices):
        return None
    return str(choices[place])


def _every_choice(answer: str, question: str) -> str | None:
    """«оба, на стейдж», "both, to staging" after a question listing choices in «…»: every one
    of them, with the rest of the answer."""
    choices = re.findall(r"«([^»]+)»", question)
    if len(choices) < 2 or not set(spaced(answer).split()) & _EVERY:
        return None
    return " ".join([answer, *(f"«{choice}»" for choice in choices)])


_EVERY = frozenset(spaced(word) for word in turns.EVERY_CHOICE)


def _picked_first(answer: str, question: str) -> str | None:
    """«второй, расскажи про него»: the answer with its leading ordinal read as the choice."""
    first, _, rest = answer.partition(" ")
    choice = _picked(first.strip(" ,.;:!"), question)
    return f"«{choice}» {rest}" if choice is not None and rest.strip() else None


def _agreed(answer: str, question: str) -> str | None:
    """«да, её» after «Последняя выкатка — … (задача e27f4a18…). Откатить её?»: yes to what the
    question named — its tasks and backups by their ids."""
    if not set(spaced(answer).split()) <= _YES:
        return None
    named = [*BACKUP_ID.findall(question), *task_ids(BACKUP_ID.sub(" ", question))]
    return f"{answer} {' '.join(named)}" if named else None


def waiting(messages: Sequence[BaseMessage]) -> str | None:
    """«ну что там?», «и?», "any news?" after a task was started: the person waits for it — the
    message read with the task's id (its status is asked), or None."""
    said = last_said(messages)
    words = set(spaced(said).split())
    if not words or not words <= _NUDGE_WORDS:  # «ну что, готово?»: nudges said together
        return None
    task = latest_task(messages)
    if task is not None:
        return f"{said} {task.id}"
    reply = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    named = task_ids(str(reply.content)) if reply is not None else []
    return f"{said} {named[0]}" if named else None


_NUDGE_WORDS = frozenset(word for words in turns.NUDGES for word in spaced(words).split())
# At most this many words refer to what the answer named; a longer message says its own.
_REFERRING_WORDS = 8
_REFERRING = phrases(turns.REFERRING_WORDS, whole=True)


def _named_in(answer: str) -> tuple[list[str], list[str]]:
    """The objects an answer names: its titles («…», or a link's words) and its task and
    backup ids, each in order."""
    titles = re.findall(r"«([^»]+)»|\[([^\]]+)\]\(/dashboards/", answer)
    backups = BACKUP_ID.findall(answer)
    ids = [*backups, *task_ids(BACKUP_ID.sub(" ", answer))]
    return [a or b for a, b in titles], list(dict.fromkeys(ids))


def referred(messages: Sequence[BaseMessage], context: UIContext | None) -> str | None:
    """«кто им владеет» after «Нашёл «Отчёт по энергопотреблению»», "restore it" after a
    backup's id, «первую откати» after two tasks: the message with what the agent's latest
    answer named (an ordinal picks one of them); None when the message names its own object
    or refers to none. Beside an object, only tasks and backups: the page is the dashboard meant."""
    said = last_said(messages)
    words = spaced(said)
    if not isinstance(messages[-1], HumanMessage) or len(words.split()) > _REFERRING_WORDS:
        return None
    place = next((turns.ORDINALS[w] for w in words.split() if w in turns.ORDINALS), None)
    if place is None and not _REFERRING.search(words):
        return None
    if "«" in said or task_ids(said) or BACKUP_ID.search(said) or re.search(r"\d", said):
        return None
    reply = next(
        (m for m in reversed(messages[:-1]) if isinstance(m, AIMessage) and not m.tool_calls),
        None,
    )
    if reply is None:
        return None
    titles, ids = _named_in(str(reply.content))
    if context is not None and context.object_type is not None:
        titles = []
    named = [*titles, *ids]
    if place is not None:  # of a list of tasks or backups, else of its titles
        pool = ids if len(ids) > 1 else titles or ids
        named = [pool[place]] if place < len(pool) else []
    if not named:
        return None
    if place is not None:  # the ordinal has picked its object: «почему вторая упала» is about it
        said = " ".join(w for w in said.split() if spaced(w) not in turns.ORDINALS)
    return " ".join([said, *(one if one in ids else f"«{one}»" for one in named)])


def small_talk(text: str) -> str | None:
    """The answer to a message of thanks or sent by mistake («ой, не туда»); None otherwise."""
    said = set(spaced(text).split())
    if not said or not said <= _SMALL_TALK:
        return None
    return texts.SMALL_TALK_SORRY if said & _APOLOGY else texts.SMALL_TALK


_ASKED_WRITE = {"deploy": "deploy_dashboard", "migration": "execute_migration"}


def write_previewed_elsewhere(
    text: str, offered: Sequence[str], lacking: Sequence[str]
) -> str | None:
    """«что изменится на проде, если это перенести?» from one who may neither deploy nor migrate,
    on a page with no preview: the write asked about (its refusal is said), while the preview is
    theirs to ask for elsewhere; None otherwise."""
    found = intents(text)
    writes_asked = tuple(_ASKED_WRITE.values())
    if (
        not found
        or found[0] not in _ASKED_WRITE
        or asks(text) != "plan"
        or any(tool in offered for tool in (*writes_asked, "preview_migration"))
        or "preview_migration" in lacking
    ):
        return None
    asked = _ASKED_WRITE[found[0]]
    return asked if asked in lacking else next((w for w in writes_asked if w in lacking), None)


def elsewhere(
    text: str, offered: Sequence[str], lacking: Sequence[str], context: UIContext | None
) -> str | None:
    """Where to ask instead, when what the request means is not offered on this page and the
    role would not lack it: «откати…» in a dashboard's chat before any deploy in it, «сделай
    бэкап дева» beside a dashboard (a backup is the environment's, not the dashboard's)."""
    found = intents(text)
    if not found:
        return None
    tools = intent_tools(found[0])
    preview = write_previewed_elsewhere(text, offered, lacking) is not None
    if preview:
        tools = ("preview_migration",)  # what moving it would change: a read the role may use
    elif any(tool in offered or tool in lacking for tool in tools):
        return None
    if found[0] == "rollback":
        return texts.ROLLBACK_ELSEWHERE
    page = context.object_type if context else None
    barred = page is not None and all(page not in CATALOGUE[tool].affinity for tool in tools)
    # A read the page has a neighbour for answers with it; no tool of a page says a release.
    pointed = (
        preview
        or all(writes(tool) for tool in tools)
        or vocab.SUPERSET_RELEASE.search(spaced(text))
        or (found[0] in _POINTED_READS and not _PAGE_WORDS.search(spaced(text)))
        or (found[0] == "explore" and _TABLE_NAMED.search(text) is not None)
    )
    if page is None or not barred or not pointed:
        return None  # not routed here, or a read: the next best tool answers
    return texts.ELSEWHERE.format(tool=CATALOGUE[tools[0]].title, page=texts.PAGES[page.value])
