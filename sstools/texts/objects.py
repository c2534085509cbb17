"""Russian text of an object a page names, looked up in an environment."""

from __future__ import annotations

NOT_FOUND = {"dashboard": "дашборда #{id} нет", "dataset": "датасета #{id} нет"}
