"""tournaments: events, their players, rounds and tables (each table a session)

Revision ID: 0010_24_events
Revises: 0009
Create Date: 2026-11-24 21:30:00

An event keeps its settings (rules with its scoring, table size, rounds, hands per round,
fee, house share, prizes, tie-breaks) and the TV board's token; its players their fee
paid and when they withdrew; each round its seed; each table its session and the token of
its scorekeeping link. Going back refuses while an event exists (it would lose them).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0010_24_events'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'events',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('owner_id', sa.Integer(), nullable=False),
        sa.Column('league_id', sa.Integer(), nullable=True),
        sa.Column('name', sa.String(length=80), nullable=False),
        sa.Column('held_on', sa.Date(), nullable=False),
        sa.Column('rules_json', sa.Text(), nullable=False),
        sa.Column('stake_minor', sa.BigInteger(), nullable=False),
        sa.Column('currency', sa.String(length=8), nullable=False),
        sa.Column('table_size', sa.Integer(), nullable=False),
        sa.Column('rounds', sa.Integer(), nullable=False),
        sa.Column('hands_per_round', sa.Integer(), nullable=False),
        sa.Column('fee_minor', sa.BigInteger(), nullable=False),
        sa.Column('house_share', sa.String(length=20), nullable=False),
        sa.Column('payout_json', sa.Text(), nullable=False),
        sa.Column('tie_breaks_json', sa.Text(), nullable=False),
        sa.Column('board_token', sa.String(length=43), nullable=False),
        sa.Column('revision', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['league_id'], ['leagues.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['owner_id'], ['users.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('board_token'),
    )
    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_events_league_id'), ['league_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_events_owner_id'), ['owner_id'], unique=False)
    op.create_table(
        'event_players',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=40), nullable=False),
        sa.Column('name_key', sa.String(length=160), nullable=False),
        sa.Column('paid_minor', sa.BigInteger(), nullable=False),
        sa.Column('checked_in_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('withdrawn_after', sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(['event_id'], ['events.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('event_id', 'name_key', name='uq_event_players_name'),
    )
    op.create_table(
        'event_rounds',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('seed', sa.BigInteger(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('closed_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('forced', sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(['event_id'], ['events.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('event_id', 'number', name='uq_event_rounds_number'),
    )
    op.create_table(
        'event_tables',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('round_id', sa.Integer(), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('session_id', sa.Integer(), nullable=False),
        sa.Column('keeper_token', sa.String(length=43), nullable=False),
        sa.ForeignKeyConstraint(['round_id'], ['event_rounds.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['session_id'], ['game_sessions.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('keeper_token'),
        sa.UniqueConstraint('round_id', 'number', name='uq_event_tables_number'),
        sa.UniqueConstraint('session_id'),
    )


def downgrade():
    # Going back before events would lose every event with its players, rounds and prize
    # list: refuse while there is one.
    events = op.get_bind().execute(sa.text('SELECT count(*) FROM events')).scalar()
    if events:
        raise RuntimeError(
            f'this database holds {events} event(s): going back before events would delete '
            'them with their players, rounds and prizes. Export each (tonk event export ID) '
            'and delete it first, or keep this version.')
    op.drop_table('event_tables')
    op.drop_table('event_rounds')
    op.drop_table('event_players')
    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_events_owner_id'))
        batch_op.drop_index(batch_op.f('ix_events_league_id'))
    op.drop_table('events')
