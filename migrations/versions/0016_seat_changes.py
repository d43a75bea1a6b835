"""a session keeps its seat changes, so that the fold of its stored night seats its players
as the table did

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07 10:30:00

Each hand keeps the players it was played with, and a fold of the stored night guessed the
joins and leaves between two hands from them; a player who left while due to deal and sat
down again before the next hand left no trace there, though the deal had passed on, and
`tonk check` found the kept next dealer wrong. seat_changes holds each join (with the
player the joiner sits after) and leave, and the number of hands recorded before it. The
nights stored before keep the guess for the changes they made before this revision.
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'seat_changes',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('session_id', sa.Integer(), nullable=False),
        sa.Column('hands', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(length=8), nullable=False),
        sa.Column('player', sa.String(length=40), nullable=False),
        sa.Column('after', sa.String(length=40), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['session_id'], ['game_sessions.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_seat_changes_session_id', 'seat_changes', ['session_id'])


def downgrade():
    op.drop_index('ix_seat_changes_session_id', table_name='seat_changes')
    op.drop_table('seat_changes')
