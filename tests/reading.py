"""What a Russian reader would trip over in a text: a number whose noun does not agree with it
(«4 графики», «5 дашборды») and English words that are not a product's name or a person's data.

The noun forms are written out here by hand, not taken from the catalogues, so that a wrong form
there is caught rather than trusted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sstools.russian import plural_form

# One (1, 21), few (2–4, 22–24), many (0, 5–20, 11–14): each counted noun the faces say.
FORMS = {
    "база данных": ("база данных", "базы данных", "баз данных"),
    "байт": ("байт", "байта", "байт"),
    "ветка": ("ветка", "ветки", "веток"),
    "график": ("график", "графика", "графиков"),
    "датасет": ("датасет", "датасета", "датасетов"),
    "дашборд": ("дашборд", "дашборда", "дашбордов"),
    "задача": ("задача", "задачи", "задач"),
    "замечание": ("замечание", "замечания", "замечаний"),
    "инструмент": ("инструмент", "инструмента", "инструментов"),
    "колонка": ("колонка", "колонки", "колонок"),
    "копия": ("копия", "копии", "копий"),
    "объект": ("объект", "объекта", "объектов"),
    "окружение": ("окружение", "окружения", "окружений"),
    "проблема": ("проблема", "проблемы", "проблем"),
    "раз": ("раз", "раза", "раз"),
    "роль": ("роль", "роли", "ролей"),
    "строка": ("строка", "строки", "строк"),
    "строку": ("строку", "строки", "строк"),  # accusative: «запрос вернул 1 строку»
    "схема": ("схема", "схемы", "схем"),
    "таблица": ("таблица", "таблицы", "таблиц"),
    "файл": ("файл", "файла", "файлов"),
    "одобрение": ("одобрение", "одобрения", "одобрений"),
    "ошибка": ("ошибка", "ошибки", "ошибок"),
    "изменение": ("изменение", "изменения", "изменений"),
    "минута": ("минута", "минуты", "минут"),
    "секунда": ("секунда", "секунды", "секунд"),
    "запрос": ("запрос", "запроса", "запросов"),
}
# The nominative plural is never the form after a number: «4 графики», «5 дашборды».
NOMINATIVE_PLURALS = {
    "базы данных": "база данных",
    "ветки": "ветка",
    "графики": "график",
    "датасеты": "датасет",
    "дашборды": "дашборд",
    "задачи": "задача",
    "замечания": "замечание",
    "инструменты": "инструмент",
    "объекты": "объект",
    "окружения": "окружение",
    "файлы": "файл",
    "одобрения": "одобрение",
    "изменения": "изменение",
    "запросы": "запрос",
}
_NOUN_OF = {form: noun for noun, forms in FORMS.items() for form in forms} | NOMINATIVE_PLURALS
_COUNTED = re.compile(r"(?<![\w.,:#/-])(\d+) ([а-яё]+)", re.IGNORECASE)
_LAST_WORD = re.compile(r"(\w+)\W*$")
# A preposition or a comparison before the number governs the noun's case («из 21 дашборда»).
_GOVERNING = frozenset(
    [
        "в",
        "во",
        "на",
        "о",
        "об",
        "с",
        "со",
        "к",
        "ко",
        "по",
        "за",
        "под",
        "над",
        "при",
        "через",
        "про",
        "из",
        "от",
        "до",
        "для",
        "без",
        "около",
        "у",
        "больше",
        "меньше",
        "более",
        "менее",
        "свыше",
    ]
)


# English a person may read: product and format names, and words people type themselves.
ENGLISH_ALLOWED = frozenset(
    {
        "Superset",
        "sstools",
        "SQL",
        "Lab",
        "git",
        "Git",
        "UUID",
        "JSON",
        "YAML",
        "CSV",
        "API",
        "URL",
        "LLM",
        "main",
        "PostgreSQL",
        "SQLite",
        "Markdown",
        "UTC",
        "MCP",
        "Claude",
        "Cursor",
        "Authorization",  # the header a token goes in, typed into a client's configuration
    }
)
_ENGLISH_WORD = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z_-]*[A-Za-z](?![\w-])")
_CODE = re.compile(r"`[^`]*`")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")


def disagreements(text: str) -> list[str]:
    """Each «N noun» in ``text`` whose noun has another form for N than the one written."""
    found = []
    for match in _COUNTED.finditer(text):
        number, word = match.groups()
        before = _LAST_WORD.search(text[: match.start()])
        if before is not None and before.group(1).lower() in _GOVERNING:
            continue
        noun = _NOUN_OF.get(word.lower())
        if noun is not None and word.lower() != plural_form(int(number), *FORMS[noun]):
            found.append(f"{number} {word}")
    return found


def english_words(text: str, data: Iterable[str] = ()) -> list[str]:
    """English words of ``text`` outside code spans and link targets that are neither allowed
    nor a word of ``data`` (names, columns, logins: what the person's fleet holds)."""
    own = {word for value in data for word in _ENGLISH_WORD.findall(value)}
    readable = _LINK_TARGET.sub("]", _CODE.sub("", text))
    return sorted(
        {
            word
            for word in _ENGLISH_WORD.findall(readable)
            if word not in ENGLISH_ALLOWED and word not in own
        }
    )
