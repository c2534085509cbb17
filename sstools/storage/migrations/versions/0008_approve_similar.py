"""A dev approval that also covers similar calls: the same tool, target environment and kind,
for the rest of the conversation (the person ticked «одобрять похожие до конца сеанса»).
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    with op.batch_alter_table("confirmations") as batch:
        batch.add_column(sa.Column("similar", sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("confirmations") as batch:
        batch.drop_column("similar")
