"""Every catalogue entry that can hold a number, rendered with 1, 2, 5, 11 and 21: each number's
noun agrees with it («1 дашборд», «2 дашборда», «11 дашбордов», «21 дашборд»), by the one
plural function (``sstools.russian.plural_form``) and the forms written out in tests/reading.py.
"""

from __future__ import annotations

import ast
import inspect
import re
import string
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sstools.agent import texts as agent_texts
from sstools.agent.offline.answers import sql, words
from sstools.agent.texts import answers as answer_texts
from sstools.russian import plural_form
from sstools.texts import deploy as deploy_texts
from sstools.web import strings as web_strings
from tests.reading import FORMS, disagreements

ROOT = Path(__file__).resolve().parents[1]
CATALOGUES = ("sstools/texts", "sstools/agent/texts", "sstools/web/strings")
NUMBERS = (1, 2, 5, 11, 21)
CYRILLIC = re.compile("[\u0400-\u04ff]")


class _Every(string.Formatter):
    """Fills every field of a format string with the one number, whatever its name or spec."""

    def __init__(self, number: int) -> None:
        self.number = number

    def get_value(self, key: int | str, args: Any, kwargs: Any) -> int:
        return self.number

    def format_field(self, value: Any, format_spec: str) -> str:
        return str(value)


def _catalogue_modules() -> Iterator[ModuleType]:
    import importlib

    for folder in CATALOGUES:
        for path in sorted((ROOT / folder).glob("*.py")):
            dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            yield importlib.import_module(dotted.removesuffix(".__init__"))


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, tuple | list | frozenset | set):
        for item in value:
            yield from _strings(item)


def _entries() -> list[tuple[str, str]]:
    found = []
    for module in _catalogue_modules():
        for name, value in vars(module).items():
            if name.isupper() or (name.startswith("_") and name[1:].isupper()):
                found += [(f"{module.__name__}.{name}", text) for text in _strings(value)]
    return found


ENTRIES = _entries()


def test_the_entries_are_the_catalogues() -> None:
    assert len(ENTRIES) > 500, "the scan found too few entries: are the catalogues where it looks?"


@pytest.mark.parametrize("number", NUMBERS)
def test_every_catalogue_entry_agrees_with_any_number(number: int) -> None:
    wrong = {}
    for where, text in ENTRIES:
        try:
            rendered = _Every(number).format(text)
        except (ValueError, IndexError):
            continue  # braces that are not a format (a JSON example)
        if found := disagreements(rendered):
            wrong[where] = found
    assert wrong == {}


def _int_only(function: Callable[..., object]) -> bool:
    parameters = inspect.signature(function).parameters.values()
    return bool(parameters) and all(p.annotation in ("int", int) for p in parameters)


def _counting_functions() -> list[Callable[..., object]]:
    return [
        value
        for module in _catalogue_modules()
        for name, value in vars(module).items()
        if inspect.isfunction(value)
        and value.__module__ == module.__name__
        and not name.startswith("_")
        and _int_only(value)
    ]


@pytest.mark.parametrize("number", NUMBERS)
def test_every_counting_function_agrees_with_any_number(number: int) -> None:
    functions = _counting_functions()
    assert {function.__name__ for function in functions} >= {"dashboards_impact", "problems_text"}
    for function in functions:
        names = inspect.signature(function).parameters
        text = str(function(**dict.fromkeys(names, number)))
        assert disagreements(text) == [], f"{function.__name__}: {text}"
    titles = [f"Дашборд {index}" for index in range(number)]
    plans = [
        deploy_texts.plan_summary(titles, number, "prod", [None] * number, removed=titles),
        deploy_texts.plan_summary(titles, number, "prod", [], created=titles),
        deploy_texts.plan_summary([], number, "prod", []),
        deploy_texts.rollback_summary(
            task_id="3f9c2b7e",
            deployed_by="irina",
            restore_summary="",
            restores=0,
            deleted_dashboards=number,
            deleted_charts=number,
        ),
        agent_texts.charts_removed(number),
    ]
    for text in plans:
        assert disagreements(text) == [], text
    for noun in answer_texts.NOUNS:
        assert disagreements(words.count(number, noun)) == [], noun


def _written_forms() -> list[tuple[str, tuple[str, str, str]]]:
    """Every (one, few, many) the code hands to plural_form, as tuples or as its arguments."""
    found = []
    for path in sorted((ROOT / "sstools").rglob("*.py")):
        catalogue = path.relative_to(ROOT).as_posix().startswith(CATALOGUES)
        for node in ast.walk(ast.parse(path.read_text())):
            items: list[ast.expr] = []
            if catalogue and isinstance(node, ast.Tuple) and len(node.elts) == 3:
                items = node.elts
            elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "plural_form":
                items = node.args[1:]
            texts = [
                item.value
                for item in items
                if isinstance(item, ast.Constant) and isinstance(item.value, str)
            ]
            if len(texts) == 3 and all(CYRILLIC.search(text) for text in texts):
                where = f"{path.relative_to(ROOT)}:{items[0].lineno}"
                found.append((where, (texts[0], texts[1], texts[2])))
    return found


def test_every_hand_written_set_of_forms_is_right() -> None:
    written = _written_forms()
    assert len(written) > 20
    for where, forms in written:
        noun = forms[0].split(" ")[0] if forms[0] not in FORMS else forms[0]
        assert noun in FORMS, f"{where}: add «{noun}» to tests/reading.py FORMS, checked by hand"
        for number in NUMBERS:
            said = f"{number} {plural_form(number, *forms)}"
            assert disagreements(said) == [], f"{where}: {said}"


def test_the_check_sees_a_noun_that_disagrees() -> None:
    assert disagreements("4 графики, 5 дашборды, 21 дашборд, 11 задач") == [
        "4 графики",
        "5 дашборды",
    ]
    assert disagreements("показаны 20 из 21 дашборда; в 2 окружениях; не больше 21 задачи") == []
    assert web_strings.UI["used_by_counts"].format(charts=4, dashboards=5) == (
        "графиков: 4, дашбордов: 5"
    )


@pytest.mark.parametrize(("rows", "said"), [(1, "1 строку"), (3, "3 строки"), (21, "21 строку")])
def test_a_query_returns_its_rows_in_the_accusative(rows: int, said: str) -> None:
    answer = sql.execute({"rows": [{"n": 1}] * rows, "row_count": rows, "columns": ["n"]})
    assert answer is not None
    assert answer.startswith(f"Запрос вернул {said}.")
