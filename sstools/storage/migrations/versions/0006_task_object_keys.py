"""The objects a task writes, by key (``dashboard:<uuid>``), kept after its claims are released:
a dashboard's deploy history matches by UUID across environments, whatever its title became.
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(sa.Column("object_keys", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("object_keys")
