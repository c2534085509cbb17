"""What every apply-by-digest route shares: the digest its body must carry, and :class:`Applying`,
the one call into :func:`~sstools.domain.writes.apply_approved` (deploy, migration, rollback,
restore; a held request's approval runs the same path again)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends
from pydantic import BeforeValidator
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.tokens import Caller
from sstools.domain.writes import Granted, PlannedWrite, WriteRequestView, apply_approved
from sstools.http.auth import AdminUser, EngineerUser
from sstools.http.deps import ServicesDep, SessionDep
from sstools.http.services import Services
from sstools.tasks import Task


def required_digest(missing: str) -> BeforeValidator:
    """A ``digest`` that must be a non-empty string; ``missing`` says which plan to make first."""

    def check(value: Any) -> Any:
        if not isinstance(value, str) or not value:
            raise ValueError(missing)
        return value

    return BeforeValidator(check)


@dataclass(frozen=True)
class Applying:
    """Who applies an approved plan, and with what: the route's services and session, its caller,
    and the second person's grant when a held request runs again."""

    services: Services
    session: AsyncSession
    caller: Caller
    granted: Granted | None = None

    async def apply(
        self, write: PlannedWrite, approved_digest: str, body: dict[str, Any]
    ) -> Task | WriteRequestView:
        """``write`` applied if its plan still has ``approved_digest``; ``body`` is what a held
        request keeps to run the route again."""
        return await apply_approved(
            write,
            approved_digest=approved_digest,
            body=body,
            services=self.services,
            session=self.session,
            caller=self.caller,
            granted=self.granted,
        )


def _by_engineer(services: ServicesDep, session: SessionDep, user: EngineerUser) -> Applying:
    return Applying(services, session, user)


def _by_admin(services: ServicesDep, session: SessionDep, user: AdminUser) -> Applying:
    return Applying(services, session, user)


# A route's apply, by the role it needs (the role is checked before anything is planned).
EngineerApplying = Annotated[Applying, Depends(_by_engineer)]
AdminApplying = Annotated[Applying, Depends(_by_admin)]
