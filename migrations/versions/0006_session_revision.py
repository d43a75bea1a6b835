"""a session's revision and when it last changed, for the live share view

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 07:00:00

``game_sessions.revision`` moves by one in the same transaction as every change of a
session's money (record, correct, void, payment, rules, close), and ``updated_at`` says
when. The share view's ETag is the revision: a phone polling ``/api/v1/share/{token}``
learns that nothing changed from one indexed row, on every app server alike. Sessions that
exist keep revision 0 and show their creation time until their next change.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('game_sessions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('revision', sa.Integer(), server_default='0',
                                      nullable=False))
        batch_op.add_column(sa.Column('updated_at', sa.DateTime(timezone=True),
                                      nullable=True))


def downgrade():
    with op.batch_alter_table('game_sessions', schema=None) as batch_op:
        batch_op.drop_column('updated_at')
        batch_op.drop_column('revision')
