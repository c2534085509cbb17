"""Feedback on the agent's answers (issue 39 §4): 👍 or 👎 on one answer of a conversation, with
an optional comment, one per person per answer (a second click replaces it); `sstools eval
--from-feedback` turns the 👎 turns into eval scenarios.
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"


def upgrade() -> None:
    op.create_table(
        "answer_feedback",
        sa.Column("message_id", sa.Integer(), primary_key=True),
        sa.Column("user_uid", sa.String(32), primary_key=True),
        sa.Column("conversation_id", sa.String(64), nullable=False),
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("rating", sa.String(8), nullable=False),
        sa.Column("comment", sa.String(1000), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_answer_feedback_conversation_id", "answer_feedback", ["conversation_id"])
    op.create_index("ix_answer_feedback_rating_at", "answer_feedback", ["rating", "at"])


def downgrade() -> None:
    op.drop_index("ix_answer_feedback_rating_at", "answer_feedback")
    op.drop_index("ix_answer_feedback_conversation_id", "answer_feedback")
    op.drop_table("answer_feedback")
