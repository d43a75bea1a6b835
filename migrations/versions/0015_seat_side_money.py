"""each seat keeps the side bets' part of its total: the night's state is kept, not summed
on every page

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07 04:20:00

The server keeps each session's night as the core's state (issue 40,
app/services/sessions/kept.py): a seat's money by part is read from its row. The side bets'
part was summed over the hands' side-bet money on every page; this keeps it on the seat,
filled from those same sums for the nights already stored.
"""
import json

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('session_players') as batch:
        batch.add_column(sa.Column('side_minor', sa.BigInteger(), server_default='0',
                                   nullable=False))
    bind = op.get_bind()
    sums = {}
    for session_id, side_nets_json in bind.execute(sa.text(
            "SELECT session_id, side_nets_json FROM hands WHERE NOT voided "
            "AND side_nets_json IS NOT NULL AND side_nets_json != '[]'")).all():
        for seat, minor in enumerate(json.loads(side_nets_json)):
            if minor:
                sums[(session_id, seat)] = sums.get((session_id, seat), 0) + minor
    for (session_id, seat), minor in sums.items():
        bind.execute(sa.text('UPDATE session_players SET side_minor = :m '
                             'WHERE session_id = :s AND seat = :t'),
                     {'m': minor, 's': session_id, 't': seat})


def downgrade():
    with op.batch_alter_table('session_players') as batch:
        batch.drop_column('side_minor')
