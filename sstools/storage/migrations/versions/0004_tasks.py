"""Durable tasks: the records users see and the claims that keep two writers apart."""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.create_table(
        "tasks",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("workflow", sa.String(255), nullable=False),
        sa.Column("objects", sa.JSON(), nullable=False),
        sa.Column("env_id", sa.String(64), nullable=False, index=True),
        sa.Column("source", sa.String(255), nullable=True),
        sa.Column("started_by", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("progress", sa.JSON(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.String(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "task_claims",
        sa.Column("env_id", sa.String(64), primary_key=True),
        sa.Column("object_key", sa.String(255), primary_key=True),
        sa.Column("task_id", sa.String(64), nullable=False, index=True),
    )


def downgrade() -> None:
    op.drop_table("task_claims")
    op.drop_table("tasks")
