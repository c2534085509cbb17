"""A token budget per person (issue 39 §3): the model tokens each person spent in the chat per
UTC day — as the provider reported them, or as the tokenizer estimated them when it reported
none — with the number of model calls.
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"


def upgrade() -> None:
    op.create_table(
        "llm_usage",
        sa.Column("user_uid", sa.String(32), primary_key=True),
        sa.Column("day", sa.Date(), primary_key=True),
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("tokens", sa.BigInteger(), nullable=False),
        sa.Column("estimated_tokens", sa.BigInteger(), nullable=False),
        sa.Column("calls", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_llm_usage_day", "llm_usage", ["day"])


def downgrade() -> None:
    op.drop_index("ix_llm_usage_day", "llm_usage")
    op.drop_table("llm_usage")
