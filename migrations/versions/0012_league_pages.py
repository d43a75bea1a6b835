"""the league pages read two new indexes: a player's session records by league, player and
scoring, in time order (covering); a league's sessions newest first

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25 00:10:00

Standings, a player's page and the hands behind a number all pick a league's
player_session_stats rows by player and scoring; with only (league_id, played_at) to go by,
each read every record of the league (SQLite: row by row through the table). This index
holds them in the order the pages read them, with the numbers they add up. A league's page
lists its 20 newest sessions: without (league_id, created_at, id) every session of the
league was read and sorted for them.
"""
from alembic import op

# revision identifiers, used by Alembic.
revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None

COLUMNS = ['league_id', 'player_id', 'scoring', 'played_at', 'session_id', 'hands',
           'net_minor', 'hands_won', 'tonks_out', 'drops_won', 'times_caught']


def upgrade():
    with op.batch_alter_table('player_session_stats', schema=None) as batch_op:
        batch_op.create_index('ix_player_session_stats_record', COLUMNS, unique=False)
    with op.batch_alter_table('game_sessions', schema=None) as batch_op:
        batch_op.create_index('ix_game_sessions_league_created', ['league_id', 'created_at', 'id'],
                              unique=False)


def downgrade():
    with op.batch_alter_table('game_sessions', schema=None) as batch_op:
        batch_op.drop_index('ix_game_sessions_league_created')
    with op.batch_alter_table('player_session_stats', schema=None) as batch_op:
        batch_op.drop_index('ix_player_session_stats_record')
