"""What a request says beyond its tool: the arguments the offline planner fills (issue 22 §2).

Each slot is read the way people give it: an environment by its id or its everyday name («прод»,
«на проде», «стейджинг», «дэв», "prod", "stage"), where from and where to («из стейджа в прод»),
dashboards by number («дашборд 7», «перенеси 11 и 12»), a branch with its ``/``
(«feature/energy-css»), a SQL text (backquoted, or from its first keyword on), a backup's and a
task's id, the table, schema and database of a dataset. Ids and SQL are cut out of the prose
first: «ss-dev.20261129T…Z» names a backup, not the dev environment, and the numbers of a query
are data.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sstools.agent.offline.intent import BACKUP_ID, SQL, phrases, spaced, task_ids
from sstools.agent.routing.catalogue import keywords
from sstools.agent.routing.tokens import fold, stem, words
from sstools.agent.texts import vocabulary as vocab
from sstools.agent.tools import CATALOGUE

_NUMBER = re.compile(r"(?<![\w.#/-])#?([0-9]{1,9})(?![\w.:/-])")
_COMMIT = phrases(vocab.COMMIT_WORDS)
_NO_COMMIT = phrases(vocab.NO_COMMIT)
_LAST = phrases(vocab.LAST_WORDS)
_TRAILING_PROSE = vocab.TRAILING_PROSE


@dataclass(frozen=True)
class Said:
    """A message taken apart once: its ids and SQL, and the prose left without them."""

    text: str
    prose: str
    sql: str | None
    backup_ids: tuple[str, ...]
    task_ids: tuple[str, ...]
    commits: tuple[str, ...] = ()

    @classmethod
    def of(cls, text: str) -> Said:
        sql = SQL.search(text)
        prose = text[: sql.start()] + " " + text[sql.end() :] if sql else text
        query = (sql.group(1) or sql.group(2)).strip() if sql else None
        if sql and sql.group(2) and (said := _TRAILING_PROSE.search(query or "")):
            # «выполни select … в базе 3»: the words after the query are the person's
            prose += " " + said.group(0)
            query = (query or "")[: said.start()].strip()
        backups = tuple(BACKUP_ID.findall(prose))
        prose = BACKUP_ID.sub(" ", prose)
        commits = tuple(one.lower() for one in vocab.COMMIT_REF.findall(prose))
        prose = vocab.COMMIT_REF.sub(" ", prose)
        named = task_ids(prose)
        for task in named:
            prose = re.sub(re.escape(task), " ", prose, flags=re.IGNORECASE)
        tasks = tuple(task.replace("-", "") for task in named)  # a UUID's dashes: the id is hex
        return cls(text, prose, query, backups, tasks, commits)

    @property
    def last(self) -> bool:
        """«последняя выкатка», "the last deploy": the latest one is meant."""
        return _LAST.search(spaced(self.prose)) is not None


@dataclass(frozen=True)
class Environments:
    """The environments a message names: where to, where from."""

    targets: tuple[str, ...]
    sources: tuple[str, ...]
    directed: tuple[str, ...] = ()  # the targets said after «на», «в», "to", "into"


def environments(said: Said, known: Sequence[str], here: str | None) -> Environments:
    """Each mention in order, an id («staging») or a word for its stage («на проде»); one after
    «из»/"from" is a source; «здесь» is the page's environment."""
    tokens = spaced(said.prose).split()
    targets: list[str] = []
    sources: list[str] = []
    directed: list[str] = []
    for index, token in enumerate(tokens):
        env = _environment(token, known) or (here if token in vocab.HERE_WORDS else None)
        if env is None or _spared(tokens, index):
            continue
        before = tokens[index - 1] if index else ""
        (sources if before in vocab.SOURCE_MARKS else targets).append(env)
        if before in vocab.DIRECTION_MARKS:
            directed.append(env)
    for env_id in known:  # an id with a dash («ss-dev») is two tokens once spaced
        named = re.search(rf"(?<![\w.]){re.escape(env_id)}(?![\w.])", said.prose)
        if "-" in env_id and named and env_id not in {*targets, *sources}:
            targets.append(env_id)
    return Environments(tuple(targets), tuple(sources), tuple(directed))


def _spared(tokens: Sequence[str], index: int) -> bool:
    """«прод не трогай», "dont touch prod", «не на прод»: this mention is where not to go."""
    before = " ".join(tokens[max(0, index - 4) : index]) + " "
    after = " ".join(tokens[index + 1 : index + 3])
    return bool(vocab.SPARED_BEFORE.search(before) or vocab.SPARED_AFTER.match(after))


def _environment(token: str, known: Sequence[str]) -> str | None:
    if token in known:
        return token
    for stage, pattern in vocab.ENVIRONMENT_WORDS.items():
        if pattern.fullmatch(token):
            return next((env for env in known if stage in env), None)
    return None


def target(found: Environments, here: str | None) -> str | None:
    """Where to: the last place named that is not where from; the page's own environment only
    when nothing else is named («сравни здесь и в prod» → prod)."""
    # «restore … into staging, need prod data there»: where it goes was said with «в», "into"
    directed = [env for env in found.directed if env != here]
    if directed:
        return directed[-1]
    elsewhere = [env for env in found.targets if env != here]
    if elsewhere:
        return elsewhere[-1]
    return found.targets[-1] if found.targets else None


def dashboards(said: Said) -> list[int]:
    """The dashboards named: «дашборд 6», «дашборды 7, 8»; else the bare numbers of the prose
    («перенеси 11 и 12 на стейдж»), a database's number excepted."""
    named = vocab.DASHBOARD_MENTION.search(said.prose)
    if named:
        return [int(one) for one in re.findall(r"[0-9]+", named.group(1))]
    prose = vocab.DATABASE_MENTION.sub(" ", _QUOTED.sub(" ", said.prose))
    prose = vocab.DATASET_MENTION.sub(" ", prose)
    return [int(one) for one in _NUMBER.findall(prose) if not _YEAR.fullmatch(one)]


# A title's own digits («Тарифы 2023 (архив)») and a year said bare are not a dashboard's number.
_QUOTED = re.compile(r"«[^»]*»")
_YEAR = re.compile(r"(?:19|20)[0-9]{2}")


def branch(said: Said, *, new: bool = False) -> str | None:
    """A branch's name: a word with ``/`` («feature/energy-css»), else the word after «ветка»,
    else the name given («ветку назови energy.v2»), else — in a message about a branch — a word
    shaped like one («нужна ветка для правок: fix-kpi-tiles»). The branch a ``new`` one starts
    from («от main», "off main") is not its name. A name in backquotes reads as code to the SQL
    reader: a one-word «query» is a name."""
    quoted = said.sql if said.sql and not said.sql.split()[1:] else ""
    prose = vocab.BRANCH_BASE.sub(" ", said.prose) if new else said.prose
    text = f"{prose} {quoted}"
    slashed = re.findall(r"(?<![\w/])[A-Za-z0-9][\w.-]*(?:/[\w.-]+)+", text)
    if slashed:
        return str(slashed[-1])
    named = vocab.BRANCH_WORDS.search(prose)
    if named and _could_be_branch(named.group(1)):
        return named.group(1)
    if not _mentions_branch(said):
        return None
    if quoted:
        return quoted
    given = vocab.NAME_MENTION.search(prose)
    if given and given.group(1):
        return given.group(1)
    shaped = [word for word in _BRANCH_SHAPED.findall(prose) if _could_be_branch(word)]
    return shaped[-1] if shaped else None


# A word a branch could be named: Latin letters, digits and ``-_.``, with a separator or a digit
# («fix-kpi-tiles», «JIRA-123», «energy2»), so an English word of the sentence is not taken.
_BRANCH_SHAPED = re.compile(
    r"(?<![\w./-])(?=[\w.-]*[-_.0-9])[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)+(?![\w/])"
    r"|(?<![\w./-])(?=[A-Za-z]*[0-9])[A-Za-z][A-Za-z0-9]+(?![\w./-])"
)


_NOT_NAMES = frozenset(
    {"git", "v", "in", "na", "dlya", "for", "s", "iz", "from", "i", "and", "off", "as", "pod",
     "main", "master", "new", "a", "the", "novuyu", "novaya"}
)  # fmt: skip


def _could_be_branch(word: str) -> bool:
    return fold(word) not in _NOT_NAMES and not word.isdigit()


def query(name: str, said: Said, mentioned: Sequence[str]) -> str | None:
    """The words to search titles for: what is left once the tool's own words are gone."""
    lexicon = {stem(word) for phrase in keywords(name) for word in words(phrase)}
    rest = [w for w in words(said.prose) if stem(w) not in lexicon and w not in mentioned]
    return " ".join(rest)[:200] or None


def arguments(
    name: str, said: Said, known: Sequence[str], here: str | None, object_id: str | None
) -> dict[str, Any]:
    """What the message gives for the tool ``name``'s arguments (a missing one is not set)."""
    fields = CATALOGUE[name].args_model.model_fields
    required = {key for key, field in fields.items() if field.is_required()}
    found = environments(said, known, here)
    if "source_env_id" not in fields:  # no «from» to fill: «сравни с продом» names where to
        # and where from is not it when both are named: «что на проде отстаёт от стейджа?»
        found = Environments((*found.sources, *found.targets), (), found.directed)
    args: dict[str, Any] = {}
    database = vocab.DATABASE_MENTION.search(said.prose)
    numbers = dashboards(said)
    for key in fields:
        value: Any = None
        if key == "query":
            value = query(name, said, [*found.targets, *found.sources])
        elif key in ("target_env_id", "env_id"):
            value = target(found, here)
            if value is None and name == "restore_backup" and said.backup_ids:
                value = _origin(said.backup_ids[-1], known)  # «восстанови staging.…Z»: there
        elif key == "source_env_id":
            value = found.sources[0] if found.sources else None
        elif key == "sql":
            value = said.sql
        elif key == "database_id":
            value = int(database.group(1)) if database else (1 if key in required else None)
        elif key == "dashboard_id":
            value = numbers[0] if numbers else None
        elif key == "dashboard_ids":
            value = numbers or None
        elif key == "message":  # the person's own words for it, or a default made by the planner
            given = vocab.COMMIT_MESSAGE.search(said.prose)
            given = given or vocab.COMMIT_MESSAGE_BARE.search(said.prose)
            value = given.group(1).strip() if given else None
        elif key == "backup_id":
            value = said.backup_ids[-1] if said.backup_ids else None
        elif key == "task_id":
            value = said.task_ids[-1] if said.task_ids else None
        elif key == "name" and name == "create_branch":
            value = branch(said, new=True)
        elif key == "name":
            named = vocab.NAME_MENTION.search(said.prose)
            value = next((group for group in named.groups() if group), None) if named else None
        elif key == "git_ref":
            value = _ref(said)
        elif key == "commit":
            prose = spaced(said.prose)
            value = True if _COMMIT.search(prose) and not _NO_COMMIT.search(prose) else None
        elif key == "table":
            table = vocab.TABLE_MENTION.search(said.prose)
            if table is None and name == "superset_create_dataset" and not said.sql:
                table = vocab.TABLE_NAMED.search(said.prose)
            value = table.group(1) if table else None
        elif key == "schema_name":
            schema = vocab.SCHEMA_MENTION.search(said.prose)
            value = schema.group(1) if schema else None
        if value is not None:
            args[key] = value
    if name == "superset_audit_permissions":
        args |= _audited(said)
    return args


def _origin(backup_id: str, known: Sequence[str]) -> str | None:
    """The environment a backup was taken of: its id's first part («staging.2026…Z»)."""
    env = backup_id.split(".", 1)[0]
    return env if env in known else None


def _ref(said: Said) -> str | None:
    """The git ref to deploy from: a commit («из коммита 3f2a…»), a branch named, or «из main»
    / "from master"."""
    if said.commits:
        return said.commits[-1]
    if "/" in said.prose or _mentions_branch(said):
        return branch(said)
    base = vocab.BRANCH_BASE.search(said.prose)
    return base.group(1) if base else None


def _mentions_branch(said: Said) -> bool:
    return vocab.BRANCH_WORD.search(said.prose) is not None


def _audited(said: Said) -> dict[str, Any]:
    """The object a permissions audit is about, when the message names one by number."""
    for object_type, pattern in (
        ("dashboard", vocab.DASHBOARD_MENTION),
        ("dataset", vocab.DATASET_MENTION),
        ("database", vocab.DATABASE_MENTION),
    ):
        named = pattern.search(said.prose)
        if named:
            return {"object_type": object_type, "object_id": int(re.findall("[0-9]+", named[1])[0])}
    return {}
