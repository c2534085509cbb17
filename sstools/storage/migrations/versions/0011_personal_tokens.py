"""Personal access tokens (issue 35): a person's token for a client that is not a browser, kept
as its SHA-256 with its name, expiry, last use and revocation.
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"


def upgrade() -> None:
    op.create_table(
        "personal_tokens",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_uid", sa.String(32), nullable=False, index=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("personal_tokens")
