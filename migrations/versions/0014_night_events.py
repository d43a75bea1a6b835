"""a night started on a phone is sent as its events, each stored once under the phone's id

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07 01:10:00

A phone with no signal keeps a night's events (app.core.night) and sends them in order when
the signal is back (issue 41): night_events holds each one under the id the phone made for
it and its place in the night, so that a send cut halfway, two tabs sending at once or a
retry store each event once. The night's session carries the phone's uid as its own.
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'night_events',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('session_id', sa.Integer(), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.String(length=64), nullable=False),
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('body', sa.Text(), nullable=False),
        sa.Column('made', sa.Integer(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['session_id'], ['game_sessions.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('session_id', 'event_id', name='uq_night_events_id'),
        sa.UniqueConstraint('session_id', 'seq', name='uq_night_events_seq'),
    )


def downgrade():
    op.drop_table('night_events')
