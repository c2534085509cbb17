"""What every apply route asks of its body: the digest of the plan the person approved."""

from __future__ import annotations

from typing import Any

from pydantic import BeforeValidator


def required_digest(missing: str) -> BeforeValidator:
    """A ``digest`` that must be a non-empty string; ``missing`` says which plan to make first."""

    def check(value: Any) -> Any:
        if not isinstance(value, str) or not value:
            raise ValueError(missing)
        return value

    return BeforeValidator(check)
