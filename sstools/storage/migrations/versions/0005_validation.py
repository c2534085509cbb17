"""Dashboard validation runs and generated documentation."""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def _of_a_dashboard() -> list[sa.Column[object]]:
    """The leading columns of both tables: a row of one dashboard in one environment."""
    return [
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("env_id", sa.String(64), nullable=False, index=True),
        sa.Column("dashboard_id", sa.Integer(), nullable=False, index=True),
        sa.Column("dashboard_uuid", sa.String(64), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "dashboard_validations",
        *_of_a_dashboard(),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("task_id", sa.String(64), nullable=False, unique=True),
        sa.Column("review", sa.String(500), nullable=False),
        sa.Column("findings", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, index=True),
    )
    op.create_table(
        "dashboard_documents",
        *_of_a_dashboard(),
        sa.Column("task_id", sa.String(64), nullable=False, unique=True),
        sa.Column("author", sa.String(16), nullable=False),
        sa.Column("markdown", sa.String(), nullable=False),
        sa.Column("git_path", sa.String(255), nullable=False),
        sa.Column("git_commit", sa.String(64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, index=True),
    )


def downgrade() -> None:
    op.drop_table("dashboard_documents")
    op.drop_table("dashboard_validations")
