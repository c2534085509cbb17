"""What a request means, in the words people type: the offline planner's intent frames
(issue 22 §2) and the search verbs that lead a message. Data the matching reads
(:mod:`sstools.agent.offline.intent`), not text anyone reads; the rest of the matching
vocabulary is in :mod:`sstools.agent.texts.vocabulary`.
"""

from __future__ import annotations

# Each intent is a set of frames, tried in the order of INTENT_FRAMES (the first that matches and
# whose tool is here wins; the router's ranking decides when none does). A frame is words matched
# on the folded text as the start of a word, one right after the other; «…» between two words
# lets anything come between them. Russian and English as people type them; transliterated
# Russian folds to the same letters («выкати» and "vykati" meet).

INTENT_FRAMES: dict[str, tuple[str, ...]] = {
    "capabilities": (
        "что ты умеешь", "что умеешь", "умеешь", "что … можно сделать", "что тут можно",
        "что здесь можно", "мне доступно", "что доступно", "мои возможности", "твои возможности",
        "твоих возможностей", "возможности", "какие … команды", "список команд", "помощь",
        "помоги", "чем … помочь", "чем можешь", "что … можешь", "что ты можешь", "что я могу",
        "что мне можно", "help", "what can you", "what can i", "what tools", "my options",
        "capabilit", "what are you able", "which commands", "what commands", "what do you do",
        "what are my", "chto umeesh", "umeesh",
        "почему … не могу", "не могу", "why can t i", "why cant i", "why can i not",
    ),
    "restore": (
        "восстанов", "восстан", "restor", "накати бэкап", "накати бекап", "накати копию",
        "накати резерв", "верни … из копии", "верни … из бэкапа", "верни … из бекапа",
        "подними … из бэкапа", "подними … из бекапа", "подними … из копии", "откатись на бэкап",
        "откатись к бэкапу", "recover", "roll … back to backup", "bring back from", "vosstan",
        "верни … из резервн",
    ),
    "rollback": (
        "к предыдущей версии", "предыдущую версию", "previous version",
        "откат", "откати", "откатить", "откатим", "откатись", "rollback", "roll back",
        "roll it back", "roll … back", "undo", "undoing", "revert", "верни как было",
        "верни … как было", "вернуть задачу", "верни задачу", "вернуть выкатку", "верни выкатку",
        "верни предыдущ", "отмени выкатку", "отмени деплой", "otkat",
    ),
    "task_status": (
        "статус задачи", "состояние задачи", "задача … ещё", "задача … еще", "задача … идет",
        "задача … готова", "задача … закончил", "задача … завершил", "моя задача",
        "моей задачи", "мою задачу", "доехал", "доехала", "progress of", "status of task",
        "task status", "status of job", "job status", "is my task", "is the task", "my task",
        "how is task", "как там задача", "что с задачей", "задач … статус", "статус задч",
        "задач … status", "task … status", "status … task", "check task", "task … done",
        "task … finished", "задача … висит", "где … задача", "zadach … status",
        "task … going", "how s … task", "how is … task", "как … задача",
    ),
    "backup_make": (
        "сделай бэкап", "сделай бекап", "сделай резервн", "сделай копию", "создай резервн",
        "создай бэкап", "создай бекап", "запусти бэкап", "запусти бекап", "запусти резервн",
        "бэкапни", "бекапни", "забэкап", "забекап", "сними бэкап", "сними бекап", "сними копию",
        "сними снапшот", "сделай снапшот", "сделай дамп", "нужен бэкап", "нужен бекап",
        "backup now", "back up", "backup … now", "run a backup", "run backup", "start a backup",
        "take a backup", "make a backup", "create a backup", "backup this", "backup pls",
        "backup please", "backup the", "snapshot", "бэкап сейчас", "sdelay bekap", "бэкп",
        "бекп", "zabekap",
        "сохрани резервн", "сохрани копию", "save … backup",
        "нужна резервн", "нужна копия", "нужен снапшот", "need a backup",
        "бэкап … нужен", "бекап … нужен", "нужен … бэкап",
    ),
    "backup_list": (
        "бэкап", "бекап", "бэкапы", "резервн", "копии", "снапшот", "backups", "backup", "архив",
        "bekap",
    ),
    "format_sql": (
        "отформатируй", "отформат", "отфоратир", "форматир", "формат", "причеши", "красиво",
        "приведи в порядок", "выровняй", "сделай читаем", "читаемым", "pretty", "prettify",
        "beautify", "format", "reformat", "tidy", "indent", "lint … sql", "lint … query",
        "читаемый вид", "в читаем", "readable",
    ),
    "create_dataset": (
        "создай … датасет", "создай … dataset", "заведи … датасет", "сделай … датасет",
        "добавь … датасет", "оберни … в датасет", "новый датасет", "create … dataset",
        "new dataset", "register … as a dataset", "register … dataset", "make … dataset",
        "add … dataset", "датасет из таблиц", "датасет на таблиц", "датасет по таблиц",
        "датасет для таблиц", "dataset from table", "dataset for table", "dataset iz",
        "sozday dataset", "зарегистрируй таблиц", "register table",
        "нужен … датасет", "виртуальн … датасет", "virtual dataset", "need … dataset",
    ),
    "execute_sql": (
        "выполни запрос", "выполни sql", "запусти запрос", "запусти sql", "выполни в базе",
        "прогони запрос", "run … query", "run … sql", "execute", "exec", "выполнить запрос",
        "сколько строк", "сколько записей", "сколько всего строк", "первые … строк",
        "строк из", "строки из", "строк отсюда", "строк датасета", "first … rows",
        "how many rows", "count rows", "row count", "посчитай", "среднее", "сумма",
        "максимальн", "минимальн", "max ", "min ", "average", "sum of",
    ),
    "drift": (
        "отличается от git", "отличаются от git", "отличия от git", "отличие от git",
        "отличается от main", "отличаются от main", "расхожден", "расходятся с git",
        "расходится с git", "расходятся с main", "расходится с main",
        "рассинхрон", "дрейф", "drift", "out of sync", "differ … from git", "differs from git",
        "differ from git", "differs from main", "differ from main", "поменяли руками",
        "изменили руками", "правили руками", "руками в прод", "edited directly",
        "changed directly", "напрямую в", "отстает от", "отстают от", "otlichaetsya ot git",
    ),
    "git_status": (
        "статус git", "статус гит", "статус репо", "git status", "состояние репо",
        "состояние git", "состояние гит", "uncommitted", "не закоммич", "незакоммич",
        "расходятся с", "отличается от ветк", "отличаются от ветк", "diff with the repo",
        "diff against the repo", "diff with git", "what changed in git", "что в гите",
        "что в git", "изменения в гите", "статус репозитория", "состояние репозитория",
        "repo status", "working tree", "pending changes", "status gita", "status git",
        "что изменилось", "what changed since", "changed since", "изменилось с",
        "с последнего коммита", "since … commit",
        "в какой … ветке", "на какой ветке", "current branch", "which branch am i",
    ),
    "branch_create": (
        "создай … ветк", "создай … бранч", "заведи … ветк", "заведи … бранч", "нужна ветк",
        "нужен бранч", "новая ветк", "новую ветк", "новый бранч", "ветку … создай",
        "бранч … создай", "ветку … заведи", "create … branch", "new branch", "make … branch",
        "open … branch", "start … branch", "branch called", "branch named", "branch off",
        "checkout b", "сделай ветк", "сделай бранч", "отведи ветк", "ответви",
    ),
    "branch_list": (
        "ветки", "ветк", "бранчи", "бранч", "фичеветк", "branches", "branch", "vetki",
    ),
    "documentation": (
        "документац", "задокументир", "доку", "доки", "readme", "docs", "document",
        "опиши дашборд для", "опиши … для вики", "для вики", "wiki", "markdown",
        "описание дашборда", "напиши описание", "write up", "dokument",
    ),
    "commit": (
        "закоммит", "закомм", "закомит", "коммит", "commit", "запушь", "запуш", "push … to git",
        "push … repo", "в репу", "сохрани … в гит", "сохрани … в git", "отправь … в гит",
        "зафиксируй", "check in", "zakommit",
    ),
    "permissions": (
        "права", "прав доступа", "доступа", "доступ к", "доступы", "кто может", "кто видит",
        "у кого", "grant", "грант", "роли", "permission", "who can", "who is allowed",
        "who has access", "access to", "rbac", "dostup k",
        "кому доступ", "кто имеет доступ",
    ),
    "validation": (
        "провалид", "валидац", "validate", "validation", "проверь", "проверка", "проверку",
        "проверить", "чекни", "линт", "lint", "прогони проверку", "run a check", "check for",
        "sanity check", "найди проблемы", "найди ошибки", "поищи ошибки", "audit the dashboard",
        "проверь на ошибки", "proverk", "proveri",
        "ревью", "review", "проверь дашборд",
    ),
    "timeline": (
        "версии", "версий", "истори … верси", "истори … изменени", "хронолог", "timeline",
        "versions", "version history",
        "снимк", "к какой … вернуть", "на какую … вернуть", "какие … были правки",
    ),
    "tasks_list": (
        "истори", "журнал", "последние задачи", "список задач", "какие задачи", "задачи",
        "таски", "в работе", "что запущено", "что выполняется", "history", "recent tasks",
        "last tasks", "list tasks", "running tasks", "tasks", "jobs", "log of", "какие выкатки",
        "какие деплои", "какие миграции", "кто последн", "что выкатывали", "что деплоили",
        "what got", "who deployed", "who migrated", "what was deployed", "what ran",
        "список … задач", "последн … задач", "list … tasks", "recent … tasks", "spisok … zadach",
        "статус выкат", "статус депло", "статус миграц", "когда … выкатывали",
        "когда … деплоили", "когда … мигрировали", "when … deployed", "when … migrated",
        "running", "in progress", "в процессе", "сейчас идут", "идут ли", "recent", "недавн",
        "последние выкатки", "последние миграции", "последние деплои", "last deploys",
        "last migrations",
        # What failed, and why: the task records say it (their errors), never a write.
        "упал", "упала", "упали", "не прошл", "не прошёл", "сломал", "провалил", "завалил",
        "не удалась", "не удалось", "с ошибкой", "ошибкой", "failed", "fail", "broke",
        "статус … миграц", "статус … выкат", "статус … депло",
        "по задачам", "задачам", "задачах", "таск", "тасок", "что крутится",
        "покажи выкатки", "покажи деплои", "покажи миграции", "список выкаток", "список миграций",
        "show … deploys", "list … deploys", "list … migrations",
        "что нового", "что менялось", "что поменялось на", "что изменилось на", "что изменилось в",
        "за неделю", "за последние дни", "за сегодня", "за вчера", "what s new", "whats new",
        "упал", "упала", "упали", "сломалось", "сломались", "не удалось", "failed", "ошибкой",
    ),
    "changed_by": (
        "кто … менял", "кто … изменял", "кто … правил", "кто … редактировал", "кто … трогал",
        "who changed", "who edited", "who last changed", "who modified",
    ),
    "compare": (
        "сравни", "сравнить", "сравнение", "compare", "отличается", "различия", "разниц",
        "такой же как", "такая же как", "то же самое", "совпадает", "same as", "in sync with",
    ),
    "migration": (
        "миграц", "мигрир", "мигрируй", "перенес", "перенос", "перенеси", "перетащи", "переложи",
        "скопируй", "migrat", "migrate", "move … to", "copy … to", "transfer", "promote",
        "migracii", "perenes",
    ),
    "deploy": (
        "выкат", "выкати", "деплой", "депло", "задеплой", "разверн", "разворач", "раскат",
        "катни", "закинь", "залей", "выложи", "опубликуй", "deploy", "deplyo", "depoly", "ship",
        "push … to prod", "push … to production", "push … to staging", "push … live",
        "go live", "release", "roll out", "publish to", "vykat", "zadeplo", "deplo",
    ),
    "explore": (
        "колонк", "столбц", "поля", "схем", "таблиц", "базы", "базу", "база данных", "метрик",
        "что за датасет", "с датасетом", "датасет", "columns", "fields", "schema", "tables",
        "databases", "metrics", "describe … dataset", "what … use this dataset",
        "what s in this dataset", "kolonki",
    ),
    "search": (
        "найди", "поиск", "ищи", "поищи", "search", "find", "look up", "look for", "со словом",
        "похожие", "какие … дашборды", "какие есть дашборды", "список дашбордов", "все дашборды",
        "дашборды по", "дашборды про", "где дашборд", "есть ли дашборд", "есть ли … дашборд",
        "дашборд про", "дашборд … есть", "дашборд по", "дашборды о", "dashboard about", "naydi",
        "where is … dashboard", "list … dashboards", "any dashboards", "dashboards about",
    ),
    "overview": (
        "список графиков", "список чартов", "покажи графики", "покажи чарты", "графики дашборда",
        "из чего состоит", "откуда … данные", "откуда … берет", "на чем построен",
        "what is it built on", "where does … data come from", "list … charts",
        "какие графики", "какие чарты", "из каких чартов", "из каких графиков", "какие датасеты",
        "на каких датасетах", "каких датасет", "какие диаграммы", "what charts", "which charts",
        "which datasets", "what datasets",
        "расскажи про", "расскажи о", "расскажи", "что показывает", "что на этом дашборде",
        "что на дашборде", "о чем этот дашборд", "о чем дашборд", "что за дашборд", "обзор",
        "опиши этот дашборд", "what does … show", "tell me about", "overview",
        "what is this dashboard", "what s on this dashboard", "describe this dashboard",
        "rasskazhi",
    ),
    "health": (
        "как дела", "здоров", "состояни", "статус", "опубликован", "в порядке", "норм",
        "кто владелец", "владел", "графики не", "сломан", "health", "status", "broken",
        "who owns", "about this", "закоммичен", "в гите",
        "все ок", "все ли ок", "ломаютс", "правили", "менялся", "меняли", "что с этим",
        "is it ok", "is this ok", "whats wrong", "what s wrong", "last modified", "published",
        "чувствует", "самочувств", "how is … doing", "how s … doing",
    ),
    "environments": (
        "окружени", "энвы", "энв", "envs", "environments", "environment", "инстанс", "стенды",
        "суперсеты", "суперсетов", "доступен", "жив", "отвечает", "reachable", "instances",
        "are … up", "is … up", "живой", "жива", "okruzh",
        "alive", "down", "работает ли", "лежит", "online",
    ),
}  # fmt: skip

# A search verb that starts a message leads it: «найди дашборды, которые надо перенести».
SEARCH_VERBS = ("найди", "поищи", "ищи", "search", "find", "look for", "look up", "naydi")
