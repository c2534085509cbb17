"""The app's one instance of a thing made on first use (a throttle, the drift check's state)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

from fastapi import Request

T = TypeVar("T")


def made_once(request: Request, name: str, make: Callable[[], T]) -> T:
    """``app.state.<name>``, made by ``make`` the first time.

    Call it from an ``async def`` dependency only: on the event loop the look and the set cannot
    interleave, while FastAPI runs a plain ``def`` one in a thread pool, where two first requests
    could each make their own (and a throttle would count each burst twice as leniently).
    """
    state = request.app.state
    found = getattr(state, name, None)
    if found is None:
        found = make()
        setattr(state, name, found)
    return cast(T, found)
