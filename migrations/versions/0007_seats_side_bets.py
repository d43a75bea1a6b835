"""seats that change and side bets

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 08:20:00

A session's players may join and leave: ``session_players.seat`` stays each player's
identity (hands' nets and payments are kept by it), ``position`` says where they sit now
and ``left_at`` whether they are away. Existing seats sit where their seat number says.
Side bets (docs/rules.md §9): what a session or league plays (``side_bets_json``), the money
waiting in each pot (``game_sessions.pots_json``), and each hand's side-bet money and how
it was settled (``hands.side_nets_json``, ``side_result_json``).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('session_players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('position', sa.Integer(), server_default='0',
                                      nullable=False))
        batch_op.add_column(sa.Column('left_at', sa.DateTime(timezone=True), nullable=True))
    op.execute('UPDATE session_players SET position = seat')
    with op.batch_alter_table('game_sessions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('side_bets_json', sa.Text(), nullable=True))
        batch_op.add_column(sa.Column('pots_json', sa.Text(), server_default='{}',
                                      nullable=False))
    with op.batch_alter_table('leagues', schema=None) as batch_op:
        batch_op.add_column(sa.Column('side_bets_json', sa.Text(), nullable=True))
    with op.batch_alter_table('hands', schema=None) as batch_op:
        batch_op.add_column(sa.Column('side_nets_json', sa.Text(), server_default='[]',
                                      nullable=False))
        batch_op.add_column(sa.Column('side_result_json', sa.Text(), server_default='[]',
                                      nullable=False))


def downgrade():
    # Going back would lose side bets' money and who left the table: refuse while any
    # session plays side bets or has a player who left, and say how to keep them.
    bind = op.get_bind()
    used = bind.execute(sa.text(
        'SELECT count(*) FROM game_sessions WHERE side_bets_json IS NOT NULL')).scalar()
    left = bind.execute(sa.text(
        'SELECT count(*) FROM session_players WHERE left_at IS NOT NULL '
        'OR position <> seat')).scalar()
    if used or left:
        raise RuntimeError(
            f'this database holds {used} session(s) with side bets and {left} seat(s) that '
            'changed: going back before version 0007 would lose their money or seats. '
            'Export them (tonk export) and delete them first, or keep this version.')
    with op.batch_alter_table('hands', schema=None) as batch_op:
        batch_op.drop_column('side_result_json')
        batch_op.drop_column('side_nets_json')
    with op.batch_alter_table('leagues', schema=None) as batch_op:
        batch_op.drop_column('side_bets_json')
    with op.batch_alter_table('game_sessions', schema=None) as batch_op:
        batch_op.drop_column('pots_json')
        batch_op.drop_column('side_bets_json')
    with op.batch_alter_table('session_players', schema=None) as batch_op:
        batch_op.drop_column('left_at')
        batch_op.drop_column('position')
