"""where each player takes payment: PayPal.me, Venmo, Cash App, Revolut, IBAN

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24 21:15:00

``players.pay_json`` holds a player's payment handles as ``app.services.pay`` checked them
(JSON), or nothing. Players made before have none.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('pay_json', sa.Text(), nullable=True))


def downgrade():
    # Going back would forget where the players take payment: refuse while one is kept.
    kept = op.get_bind().execute(sa.text(
        'SELECT count(*) FROM players WHERE pay_json IS NOT NULL')).scalar()
    if kept:
        raise RuntimeError(
            f'this database keeps payment handles for {kept} player(s): going back before '
            'them would forget them. Keep this version.')
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('pay_json')
