"""the language an account chose for its pages and API answers

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23 08:30:00

``users.locale`` ("en", "de", "ja") is the account's choice from the language switcher;
empty, the browser's Accept-Language decides, then English. Existing accounts keep none.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('locale', sa.String(length=8), nullable=True))


def downgrade():
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('locale')
