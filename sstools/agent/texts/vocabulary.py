"""Matching vocabulary: the words people type, as data the matching reads (not text anyone reads).

The one stop-list and the one transliteration that :mod:`sstools.agent.routing.tokens` folds
messages and tool texts with, and what the offline planner and its answers recognise in text
they are given; what a request means (the intent frames) is in
:mod:`sstools.agent.texts.intents`. What a tool is called in people's words (its keywords) is in
``sstools/agent/routing/tools.yaml``.
"""

from __future__ import annotations

import re

# Russian letters to Latin, so «покажи дашборды», "pokazhi dashbordy" and "dashboards" meet.
TRANSLIT = str.maketrans(
    {
        "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ж": "zh", "з": "z",
        "и": "i", "й": "y", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p",
        "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "h", "ц": "ts", "ч": "ch",
        "ш": "sh", "щ": "sch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu", "я": "ya",
    }
)  # fmt: skip

# Words that say nothing about which tool is meant, in both languages (Russian as typed, or
# already transliterated: both fold to the same token).
STOP_WORDS = (
    # English
    "a", "an", "the", "of", "for", "to", "in", "on", "at", "me", "my", "is", "are", "be", "it",
    "this", "that", "these", "what", "which", "how", "please", "can", "you", "i", "do", "and",
    "or", "with", "from", "all", "any", "show", "whether",
    # Russian
    "в", "во", "на", "по", "про", "о", "об", "мне", "мой", "моя", "все", "это", "этот", "эта",
    "этого", "этому", "эту", "как", "что", "где", "какой", "какая", "какие", "есть", "ли",
    "у", "с", "со", "для", "из", "к", "ко", "пожалуйста", "можно", "давай", "ты", "нам",
    "ну", "а", "и", "покажи", "скажи",
)  # fmt: skip

# The object itself («дашборд», «датасет») says what, not what to do: no intent, no query.
OBJECT_WORDS = ("дашборд", "датасет", "dashboard", "dataset")

# How the health summary's last validation begins when there was one («последняя проверка: …»).
LAST_VALIDATION = "последняя"

# «база 3», "database 3", "db 3": the database a message names by its id.
DATABASE_MENTION = re.compile(r"(?:баз[аеуы]|database|db)\D{0,3}([0-9]{1,9})", re.IGNORECASE)

# -- a question or a command (the offline planner: a question never becomes a write card) -------
# Matched on the folded text (sstools.agent.routing.tokens.fold) as the start of a word, so
# «покажите» and "pokazhi" match «покаж»; a phrase's words follow one another.

# Asks what a write would change: answered with its plan (a dry run or the preview tool).
PLAN_QUESTIONS = (
    "что изменит", "что поменяет", "что будет", "что произойд", "что случит", "изменится ли",
    "предпросмотр", "превью", "план", "сравни", "оцени", "без изменений", "без выкатки",
    "ничего не меняя", "затрон", "поедут", "перезапиш", "перезатр", "конфликт", "что отличается",
    "что вернется", "что откатится", "поменяется", "поменяются", "изменится", "изменятся",
    "разниц", "различия", "дифф", "отличается", "отличаются", "чем … отлич", "отличия",
    "would change", "will change", "change if", "changes if", "affected", "what s different",
    "whats different", "differences", "what happens", "what happen", "what if", "что если",
    "а если", "можно ли", "получится ли", "удастся ли", "is it possible", "could we",
    "what would", "what will", "what changes", "what is going to", "whats going to",
    "preview", "dry run", "dryrun", "plan", "diff", "simulat", "симулир", "прикин",
)  # fmt: skip

# A plan question about the outcome itself («что будет, если откатить к версии…»).
OUTCOME_QUESTIONS = (
    "что изменит", "что поменяет", "что будет", "что произойд", "что вернется", "что откатится",
    "what would", "what happens", "what changes", "would change", "what will",
)  # fmt: skip

# Orders a task that writes nothing (a check, a document): a command even with «?».
TASK_COMMANDS = (
    "проверь", "провалидируй", "прогони", "задокументируй", "опиши", "напиши", "сгенерируй",
    "validate", "document", "check", "составь", "составить", "написать", "write", "прогонишь",
    "проверишь", "составишь", "напишешь",
)  # fmt: skip

# Orders a write: the whole word (the imperative, not «выкатить» in «что будет, если выкатить»).
WRITE_COMMANDS = (
    "выкати", "выкатывай", "выкатим", "разверни", "разворачивай", "задеплой", "задеплоить",
    "сделай", "запусти", "откати", "откатись", "восстанови", "мигрируй", "перенеси",
    "переноси", "закоммить", "создай", "забэкапь", "опубликуй", "закинь", "перекинь", "удали",
    "выполни", "верни", "заведи", "сохрани", "зафиксируй", "сними", "сделаешь", "заведешь",
    "выкатишь", "перенесешь", "откатишь", "восстановишь", "создашь", "закоммитишь",
)  # fmt: skip

# An English write verb a command starts with («please deploy…», "go ahead and migrate").
WRITE_COMMANDS_EN = (
    "deploy", "migrate", "rollback", "roll", "restore", "back", "commit", "create", "push",
    "promote", "ship", "release", "run", "make", "take", "revert", "undo", "move", "copy",
    "delete", "bring", "recover", "snapshot", "save", "put", "reset",
)  # fmt: skip

# An imperative's last letter («сделай»), which a slip may leave off: «сдела бекап».
IMPERATIVE_END = "й"
# Besides the command verbs, the words whose slips are read as them («сдлеай датасет», «бкэап»).
MENDED_WORDS = (
    "бэкап", "бекап", "датасет", "дашборд", "дашборды", "окружение", "окружения", "миграция",
    "миграцию", "выкатку", "выкатка", "history", "backup", "dataset", "dashboard", "deploy",
    "migrate", "rollback", "restore", "validate", "branch", "ветку",
)  # fmt: skip

# What a command may start with before its verb.
COMMAND_LEAD = (
    "please", "ok", "okay", "go ahead and", "now", "pls", "could you", "can you", "would you",
    "kindly", "hey",
)  # fmt: skip

# Asks to be shown something: a read.
READ_QUESTIONS = (
    "покаж", "показ", "пакаж", "посмотр", "каки", "какой", "какая", "какую", "каков", "какого",
    "каком",
    "перечисл", "спис", "истори",
    "есть ли", "были ли", "был ли", "когда", "сколько", "что", "где", "кто", "почему",
    "отчего", "зачем",
    "show", "list", "which", "history", "is there", "are there", "do we have", "did", "when",
    "how many", "what", "whats", "where", "who", "any", "why",
)  # fmt: skip

# A question mark after these is politeness: «можешь выкатить в prod?» is a command.
# «кто-то», «что-нибудь»: someone, something — no question asked.
# «на какой версии суперсета прод?», "superset version": the environments' releases, not a
# dashboard's versions (on the spaced text).
SUPERSET_RELEASE = re.compile(
    r"(?:^| )(?:versi\w*|release|reliz\w*)(?: \w+){0,3} superset|(?:^| )superset\w*(?: \w+){0,3} "
    r"(?:versi\w*|release|reliz\w*)"
)
INDEFINITE = re.compile(r"(?:^| )(?:kto|chto|gde|kogda|kuda) (?:to|nibud|libo)(?= |$)")
POLITE_ASKS = (
    "можешь", "можете", "сможешь", "можно", "пожалуйста", "давай", "сделаешь", "сделаете",
    "could you", "can you", "would you", "please", "pls", "plz",
)  # fmt: skip

# What a question is about (then a read answers it: the backups, the task history).
BACKUP_WORDS = ("бэкап", "бекап", "backup", "резервн", "копи", "архив", "archive")
# A deploy asked about in the past: «что Аня вчера деплоила?», "when was this pushed to prod?".
PAST_DEPLOYS = (
    "деплоил", "выкатывал", "выкатывала", "выкатили", "задеплоил", "раскатывал", "did … deploy",
    "did … ship", "was … deployed", "were … deployed", "was … pushed", "were … pushed",
    "got deployed", "has been deployed",
    # Someone moved it (never «перенеси»: «кто» or «когда» comes first).
    "кто … перенес", "кто … переносил", "кто … мигрировал", "когда … перенесли",
    "когда … переносили", "who … migrated", "who … moved",
    # The records by name: "deploy history of this board", «история выкаток».
    "deploy history", "deployment history", "history of deploy", "deploy log", "история выкат",
    "история депло", "журнал выкат",
)  # fmt: skip
# A task asked about while it runs or as it ended: «проверка ещё идёт?», «бэкап прошёл?».
IN_PROGRESS = (
    "ещё идёт", "еще идет", "идёт ли", "идет ли", "закончил", "завершил", "готова", "готов ли",
    "висит", "still running", "in progress", "done yet", "finished", "is it done", "kicked off",
    "прошёл", "прошел", "прошла", "удался", "удалась", "успешно", "go through", "went through",
    "succeed",
)  # fmt: skip
# The state of a dashboard named outright: «чекни health», "check the status of" (not a check).
HEALTH_ASKED = ("health", "здоровье", "состояние", "статус", "status")
# Asks whether the person may do it: «а мне можно бэкапить прод?», "can I back up prod?".
# A dashboard the person cannot find: a search, not what they may do («не могу найти …»).
CANT_FIND = ("не могу … найти", "не могу найти", "не нахожу", "не найду", "can t find",
             "cannot find", "can not find")  # fmt: skip
MAY_I = ("can i", "may i", "am i allowed", "мне можно", "могу ли я", "я могу", "можно мне")
OWNER_WORDS = ("владел", "owner", "ответственн", "vladel", "овнер")
RESTORE_WORDS = ("восстан", "restore", "recover")
HISTORY_WORDS = (
    "истори", "последн", "недавн", "прошл", "были", "было", "был", "запуска", "сегодня",
    "вчера", "идут", "идет", "выполня", "спис", "history", "recent", "last", "past",
    "running", "ran", "today", "yesterday", "list",
)  # fmt: skip
TASK_WORDS = (
    "выкат", "деплой", "депло", "миграц", "задач", "релиз", "запуск",
    "deploy", "migrat", "task", "release", "job",
)  # fmt: skip

# «дашборд 6», «дашборды 10 и 11», "dashboards 3,4", «борд #7»: the dashboards a message names.
# «почему в prod цифры другие», «не совпадают с staging»: the numbers compared between two places.
NUMBERS_DIFFER = re.compile(
    r"друг|отлича|расход|не сход|не совпада|разн|сравн|чем в|чем тут|чем здесь|меньше|больше"
    r"|differ|mismatch|compar|than in|than here|\bvs\b|\bless\b|\bmore\b|lower|higher",
    re.IGNORECASE,
)
DASHBOARD_MENTION = re.compile(
    r"(?:дашборд|дэшборд|борд|dashboard)\w*\s*#?\s*([0-9]{1,9}(?:\s*(?:,|и|and)\s*[0-9]{1,9})*)",
    re.IGNORECASE,
)

# What a plan question names when it asks about a rollback (else a deploy or a migration).
ROLLBACK_WORDS = ("откат", "откати", "rollback", "roll back", "undo", "revert", "верн")

# The environments as people name them, by stage, as whole folded words («прод», «на проде»,
# "prod", «стейджинг», «дэв»): a word is matched whole, so «продажи» is not prod.
ENVIRONMENT_WORDS = {
    "prod": re.compile(
        r"p+r+od(?:a|e|u|om|ov\w*)?|prodakshe?n\w*|production\w*|prd|prdo|produkt\w*|prom|proma"
        r"|prome|promu|boev\w*|boyu|live"
    ),
    "stag": re.compile(
        r"ste[yij]?d?zh\w*|stadzh\w*|stage|staging\w*|stg|preprod\w*|uat|testov\w*|teste|testa"
    ),
    "dev": re.compile(r"dev|deva|deve|devu|devom|devov\w*|develop\w*|razrabotk\w*|razrab\w*"),
}

# Before an environment: it is where from («из стейджа», "from staging"), not where to.
SOURCE_MARKS = ("iz", "from", "s", "so", "ot", "behind")
# «на прод», "into staging": the word before where something goes.
DIRECTION_MARKS = ("na", "v", "vo", "to", "into", "onto", "dlya", "for")
# «прод не трогай», "don't touch prod", «не на прод»: an environment left out (spaced words).
SPARED_BEFORE = re.compile(
    r"(?:^| )(?:ne|not|krome|except|bez|without|dont touch|don t touch|do not touch|"
    r"ne trogay|ne trogayte|leave)(?: (?:na|v|vo|to|in|on|the))? $"
)
SPARED_AFTER = re.compile(r"^(?:ne trog|ne lez|ne kasa|alone|untouched|is frozen|frozen)")
# «здесь», "here": the page's environment.
HERE_WORDS = ("zdes", "tut", "here", "tekuschee", "tekuschem", "tekuschego", "current")

# Where a sentence ends: «что такое датасет? я из финансов» asks once, in its first sentence.
SENTENCE_END = re.compile(r"[?!.]+(?:\s|$)")
# A message about a branch at all («ветку назови …», "the branch").
BRANCH_WORD = re.compile(r"ветк|бранч|branch|vetk", re.IGNORECASE)
# A branch a message names: after these words («ветку feature/x», "branch called cleanup").
BRANCH_WORDS = re.compile(
    r"(?:ветк\w*|бранч\w*|branch\w*|vetk\w*)[:\s]+(?:(?:called|named|с именем|под названием|"
    r"из|from)\s+)?[«\"'`]?([A-Za-z0-9][\w./-]*)",
    re.IGNORECASE,
)
# After a word for a task, its first digits need no letter («задача 20261201»).
TASK_NAMED = re.compile(
    r"(?:задач|таск|task|job|zadach|выкатк|деплой|deploy|rollout|миграци|migration)\w*"
    r"\s*[#№:]?\s*([0-9a-f]{8,32})(?![\w-])"
)
# A git commit a deploy reads from («из коммита 3f2a…», "from commit 3f2a…"): a ref, not a task.
COMMIT_REF = re.compile(
    r"(?<!\w)(?:коммит\w*|commit|из git|из гит\w*|from git|git)\s+([0-9a-f]{7,40})(?![\w-])",
    re.IGNORECASE,
)
# Where a new branch starts from («от main», «на основе develop», "off main"): not its name.
BRANCH_BASE = re.compile(
    r"(?:\bот|\bиз|на основе|\bfrom|\boff(?: of)?|based on|\bgit|\bгит\w*)\s+"
    r"[«\"'`]?(?:ветк\w*\s+)?"
    r"(main|master|trunk)\b[»\"'`]?",
    re.IGNORECASE,
)
# A commit message the person gave: «с сообщением "…"», «коммит-месседж: …», "message: …".
COMMIT_MESSAGE = re.compile(
    r"(?:сообщени\w*|комментари\w*|месседж\w*|message|msg)\s*[:=]?\s*[«\"'`]([^»\"'`]{1,500})[»\"'`]",
    re.IGNORECASE,
)
# A message after «с сообщением», "with message", "-m" without quotes: to the sentence's end.
COMMIT_MESSAGE_BARE = re.compile(
    r"(?:с\s+сообщением|с\s+комментарием|with\s+(?:the\s+)?message|(?:message|msg)\s*:|-m"
    r"|(?:коммент\w*|сообщени\w*|комментари\w*)\s*[:—–-])\s+"
    r"([^«\"'`\s][^.!?\n]{0,199})",
    re.IGNORECASE,
)
# «всё про продажи», "all the weather boards", «все дашборды о погоде»: «все» of one topic.
ALL_ABOUT = re.compile(
    r"(?:все|всё|всех|all|everything)\s+(?:дашборд\w*\s+)?(?:про|о|об|по\s+теме|about|on)\s+(\w+)"
    r"|all\s+(?:the\s+|our\s+|my\s+)?([a-z]+)\s+(?:dashboards|boards)"
    r"|все\s+([а-яё]+)\s+дашборд\w*",
    re.IGNORECASE,
)
# «всё, кроме черновика», "everything except the draft", «без черновика и архива»: left out.
ALL_BUT = re.compile(
    r"(?:кроме|без|except|but\s+not|excluding)\s+(?:the\s+)?([\w-]+(?:\s+[\w-]+){0,3})",
    re.IGNORECASE,
)
# The name a new object is given («с именем sales_eu», «назови его orders_v2», "called churn").
NAME_MENTION = re.compile(
    r"(?:с именем|под (?:названием|именем)|назови(?:\s+его)?|названи(?:ем|е)|named|called|"
    r"name it|with (?:the )?name)\s*[:=]?\s*[«\"'`]?([A-Za-z0-9_][\w./-]*)"
    r"|(?:датасет|dataset)\s+(?:([a-z][a-z0-9_]{2,99})\s*(?::|\s(?:из|from|на|as|по)\s)"
    r"|«([^»]{1,100})»)",
    re.IGNORECASE,
)
# The table, schema and database a message names («таблица events», "schema crm", «в базе 1»).
TABLE_MENTION = re.compile(
    r"(?:таблиц\w*|table|tablic\w*|tablits\w*)\s+[«\"'`]?([A-Za-z_][\w.]*)", re.IGNORECASE
)
# A table by its name alone, where a dataset is made of one («заведи датасет на tariffs_legacy»,
# "register weather_daily as a dataset"): a lower-case name with an underscore.
TABLE_NAMED = re.compile(r"(?<![\w.])([a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9])(?![\w.])")
SCHEMA_MENTION = re.compile(r"(?:схем\w*|schema|shem\w*)\s+[«\"'`]?([A-Za-z_]\w*)", re.IGNORECASE)
# «датасет 7», «датасету 7», "dataset 7": the dataset a permissions audit is about.
DATASET_MENTION = re.compile(r"(?:датасет|dataset)\w*\s*#?\s*([0-9]{1,9})", re.IGNORECASE)

# Documentation to be committed to git («и закоммить», "and commit it").
COMMIT_WORDS = ("коммит", "закоммит", "commit", "в гит", "в git", "git", "гит", "zakommit",
                "репозитор", "repo", "запуш", "пушн", "push")  # fmt: skip
# Where a query ends and the person's words resume: «… в базе 3», "… on db 2".
TRAILING_PROSE = re.compile(
    r"[\s,;]+(?:(?:в|на|из|по|on|in|against)\s+)?(?:баз\w*|database|db)\s*#?\s*[0-9]+\s*$"
    r"|[\s,;]+(?:and\s+|и\s+)?(?:name it|call it|назови(?:\s+его)?|с именем|named|called)"
    r"\s+[«\"'`]?[\w.-]+[»\"'`]?\s*$",
    re.IGNORECASE,
)

# «без коммита», "don't commit": documentation that is not to be committed.
NO_COMMIT = ("без коммит", "не коммит", "не закоммит", "не комить", "don t commit", "dont commit",
             "do not commit", "no commit", "without commit", "without committing", "не пуш",
             "не запуш", "без пуш", "не клади", "не кладите", "don t push",
             "dont push", "в гит не надо", "в гит не нужно", "без гита", "не в гит",
             "no git")  # fmt: skip

# The latest deploy: «последняя выкатка», "the last deploy" (its task, from the conversation).
LAST_WORDS = ("последн", "недавн", "прошл", "свеж", "вчерашн", "last", "latest", "recent",
              "previous", "newest", "fresh", "poslednii", "poslednei", "posledn", "ночн", "nightly",
              "yesterday")  # fmt: skip

# «все дашборды», «всё», "all": the source's every dashboard (a migration lists them on its card).
# «ну всё, катим этот дашик» is «well then», not every dashboard.
ALL_WORDS = re.compile(
    r"(?<!\w)(?<!ну )(?<!ну, )(?:все|всё|всех|all|everything|vse)(?!\w)", re.IGNORECASE
)
# «выкати все в стейдж», «всё на прод», «все дашборды»: every dashboard, not «все изменения» of one.
ALL_DASHBOARDS = re.compile(
    r"(?<!\w)(?<!ну )(?<!ну, )(?:всё|все(?=\s+(?:дашборд\w*|в|во|на|из)(?!\w))|всех\s+дашборд\w*"
    r"|all\s+(?:the\s+|our\s+|my\s+)?(?:[a-z]+\s+)?(?:dashboards|boards)|everything)(?!\w)",
    re.IGNORECASE,
)
# A task that failed: «почему упала последняя задача?», "what failed".
FAILED_WORDS = re.compile(
    r"(?<!\w)(?:упал\w*|слома\w*|не удал\w*|ошибк\w*|failed|failing|broke\w*)", re.IGNORECASE
)
# A task's kind as people say it («моя выкатка», "my backup"): the kinds of record it means.
TASK_KIND_WORDS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("deploy", "migration"): ("выкат", "деплой", "депло", "deploy", "релиз", "release"),
    ("migration",): ("миграц", "перенос", "migrat"),
    ("backup",): ("бэкап", "бекап", "резервн", "backup"),
    ("validation",): ("проверк", "валидац", "ревью", "validation", "check"),
    ("documentation",): ("документац", "доку", "дока", "documentation", "docs"),
}
# The order a fleet's changes flow in (dev → staging → prod): with two environments named and
# neither marked as the source («сравни в dev и prod»), the earlier stage is where from.
STAGE_ORDER = ("dev", "stag", "prod")
# Rows a person asks to see: «первые 10 строк», «пять строк», "first 20 rows".
ROWS_WANTED = re.compile(
    r"(?<!\w)([0-9]{1,4}|одн\w*|дв\w*|тр\w*|пят\w*|дес\w*|двадцат\w*|пятидесят\w*|сто|пар\w*"
    r"|нескольк\w*|few|couple(?:\s+of)?)\s+"
    r"(?:первых\s+)?(?:строк(?!ой|ами)\w*|записе\w*|rows?|strok\w*|zapis\w*)",
    re.IGNORECASE,
)
NUMBER_WORDS = {"одн": 1, "дв": 2, "тр": 3, "пят": 5, "дес": 10, "двадцат": 20, "пятидесят": 50,
                "сто": 100, "пар": 2, "нескольк": 5, "few": 5, "couple": 2}  # fmt: skip
# Counting rows: «сколько строк», "how many rows".
COUNT_ROWS = re.compile(
    r"(?:(?:сколько|скока|скок)\s+(?:всего\s+)?(?:строк|записей))|how many (?:rows|records)"
    r"|row count|count rows"
    r"|skolko\s+(?:vsego\s+)?(?:strok|zapisey)",
    re.IGNORECASE,
)
# Words of dashboard titles in the other language: a search «про погоду» finds «Weather
# Overview» too. Stems as the router folds them (one Latin alphabet, five letters).
TITLE_TRANSLATIONS = (
    ("погода", "weather"), ("продажи", "sales"), ("выручка", "revenue"), ("доход", "revenue"),
    ("энергия", "energy"), ("энергетика", "energy"), ("нагрузка", "load"), ("тарифы", "tariffs"),
    ("регионы", "regional"), ("клиенты", "customer"), ("сети", "grid"), ("прогноз", "forecast"),
    ("пиковые", "peak"), ("каналы", "channels"), ("сводка", "summary"), ("отчет", "report"),
    ("мониторинг", "monitoring"), ("показатели", "kpis"), ("черновик", "draft"),
)  # fmt: skip
# Title words that say nothing of what a dashboard is about: matched only as part of a title.
# «архив» says where a dashboard is kept, not what it is about: a title's word only when left out
# («всё, кроме архива»).
WEAK_TITLE_WORDS = ("по", "и", "в", "на", "the", "of", "and", "архив")
# «моя миграция», "my deploy": the person's own.
MINE = re.compile(r"(?<!\w)(?:мо[йяюеи]\w*|my|mine)(?!\w)", re.IGNORECASE)
# «везде одинаковый?», "the same everywhere": every environment, not one to move to.
EVERYWHERE = re.compile(
    r"(?<!\w)(?:везде|во всех окружениях|everywhere|in every environment"
    r"|across environments)(?!\w)",
    re.IGNORECASE,
)
