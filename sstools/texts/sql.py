"""Russian text of ``/api/sql``: what formatting needs, the operation a write needs a role for."""

from __future__ import annotations

ENV_WITH_DATABASE = "env_id нужен вместе с database_id"
WRITES_OPERATION = "SQL, который пишет ({reason})"
WRITE_OBJECT = "данные базы «{database}»"
