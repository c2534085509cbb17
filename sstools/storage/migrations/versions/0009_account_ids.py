"""People are keyed by an id that is never reused (issue 32 §3): ``users.uid``, a random UUID
(hex). A removed and re-added username is another account, owning nothing of the old one's, so
beside each owner's name the owner's uid is kept: a conversation's, a confirmation's requester's,
a task's starter's. Rows written before get the uid of the account that has their name now (no
such account: owned by nobody).
"""

import uuid

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"

# table, the owner's name column, the owner's uid column beside it
_OWNED = (
    ("conversations", "owner", "owner_id"),
    ("confirmations", "username", "requester_id"),
    ("tasks", "started_by", "started_by_id"),
)
_USERS = sa.table("users", sa.column("id", sa.Integer), sa.column("username"), sa.column("uid"))


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("uid", sa.String(32), nullable=True))
    connection = op.get_bind()
    for (user_id,) in connection.execute(sa.select(_USERS.c.id)).all():
        connection.execute(
            sa.update(_USERS).where(_USERS.c.id == user_id).values(uid=uuid.uuid4().hex)
        )
    with op.batch_alter_table("users") as batch:
        batch.alter_column("uid", existing_type=sa.String(32), nullable=False)
    op.create_index("ix_users_uid", "users", ["uid"], unique=True)
    for table, owner, column in _OWNED:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column(column, sa.String(32), nullable=True))
        owned = sa.table(table, sa.column(owner), sa.column(column))
        uid = sa.select(_USERS.c.uid).where(_USERS.c.username == owned.c[owner])
        op.execute(owned.update().values({column: uid.scalar_subquery()}))
    op.create_index("ix_conversations_owner_id", "conversations", ["owner_id"])


def downgrade() -> None:
    op.drop_index("ix_conversations_owner_id", "conversations")
    for table, _, column in reversed(_OWNED):
        with op.batch_alter_table(table) as batch:
            batch.drop_column(column)
    op.drop_index("ix_users_uid", "users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("uid")
