"""Two people for a stage that needs them, by every route (issue 32 §2): a write asked through the
domain API into such a stage is held as a ``write_requests`` row until a second person decides;
an agent card's second approval is spent once by the write it approved (``grant_used_at``, and
the task that write started, ``task_id``); a
task names who approved it beside who started it (``approved_by``).
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"


def upgrade() -> None:
    op.create_table(
        "write_requests",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("env_id", sa.String(64), nullable=False),
        sa.Column("digest", sa.String(128), nullable=False),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("objects", sa.JSON(), nullable=False),
        sa.Column("requested_by", sa.String(64), nullable=False),
        sa.Column("requester_id", sa.String(32), nullable=False),
        sa.Column("requester_token_version", sa.Integer(), nullable=False),
        sa.Column("approver_role", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_by", sa.String(64), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reason", sa.String(500), nullable=True),
        sa.Column("task_id", sa.String(64), nullable=True),
    )
    op.create_index("ix_write_requests_status", "write_requests", ["status"])
    with op.batch_alter_table("confirmations") as batch:
        batch.add_column(sa.Column("grant_used_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("task_id", sa.String(64), nullable=True))
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(sa.Column("approved_by", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("approved_by")
    with op.batch_alter_table("confirmations") as batch:
        batch.drop_column("task_id")
        batch.drop_column("grant_used_at")
    op.drop_index("ix_write_requests_status", "write_requests")
    op.drop_table("write_requests")
