"""Roles, ordered: each role may do everything the ones before it may."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    analyst = "analyst"  # read-only
    engineer = "engineer"  # read + write
    admin = "admin"  # everything

    @property
    def rank(self) -> int:
        return _ORDER.index(self)

    def allows(self, required: Role) -> bool:
        return self.rank >= required.rank


_ORDER = [Role.analyst, Role.engineer, Role.admin]
