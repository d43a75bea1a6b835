"""request keys: retried writes and double-submitted forms are stored once

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 05:40:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'request_keys',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('key', sa.String(length=255), nullable=False),
        sa.Column('fingerprint', sa.String(length=64), nullable=False),
        sa.Column('state', sa.String(length=8), nullable=False),
        sa.Column('status', sa.Integer(), nullable=True),
        sa.Column('body', sa.Text(), nullable=True),
        sa.Column('location', sa.String(length=2000), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('user_id', 'key', name='uq_request_keys_user_key'),
    )
    with op.batch_alter_table('request_keys', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_request_keys_created_at'), ['created_at'],
                              unique=False)


def downgrade():
    # Only remembered answers to retried requests: nothing of the game is lost.
    with op.batch_alter_table('request_keys', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_request_keys_created_at'))
    op.drop_table('request_keys')
