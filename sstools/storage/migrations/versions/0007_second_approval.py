"""A second approver for a confirmation: who approved first and when, the role the second
person needs, who decided second and when, and their reason (a denial's, or why it could not be
approved: the target moved), and the requester's token version then (a sign-out or new password
since closes the request).
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"

_COLUMNS = (
    ("first_approved_by", sa.String(64)),
    ("first_approved_at", sa.DateTime(timezone=True)),
    ("approver_role", sa.String(16)),
    ("second_by", sa.String(64)),
    ("second_at", sa.DateTime(timezone=True)),
    ("reason", sa.String(500)),
    ("requester_token_version", sa.Integer()),
)


def upgrade() -> None:
    with op.batch_alter_table("confirmations") as batch:
        for name, kind in _COLUMNS:
            batch.add_column(sa.Column(name, kind, nullable=True))
    op.create_index("ix_confirmations_status", "confirmations", ["status"])


def downgrade() -> None:
    op.drop_index("ix_confirmations_status", "confirmations")
    with op.batch_alter_table("confirmations") as batch:
        for name, _ in reversed(_COLUMNS):
            batch.drop_column(name)
