"""Russian text of a task named by the first digits of its id."""

from __future__ import annotations

AMBIGUOUS = "по «{reference}» нашлось несколько задач: укажите больше символов её номера"
