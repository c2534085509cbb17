"""The API face's catalogue: every word a person reads from ``/api/...``, one module per feature.

It sits with the core so that every layer producing API words (``tasks``, ``git_store``,
``domain``, ``http``) can import it; it imports nothing of sstools beyond the core. The agent's
words live in ``sstools.agent.texts``, the web pages' in ``sstools.web.strings``;
``tests/test_catalogues.py`` fails on Russian text anywhere else.
"""

# A stage as people read it («Стадия: продуктив»), for every module of this catalogue.
STAGES = {"dev": "разработка", "staging": "тестирование", "prod": "продуктив"}
