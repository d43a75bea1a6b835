"""players found by a name key computed in Python (NFC, case-folded); sign-ins kept on
the server

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 05:20:00

SQLite's lower() folds ASCII only, so "Élise" was not found again and "Ágata"/"ágata"
became two league members. Each player now has ``name_key`` (app.core.names.name_key),
and the unique indexes are on it. Names that already collide under the new key (two
players made before this) keep their own rows: the later one's key gets "#<id>" so that
nothing is merged behind anyone's back; new sessions find the first.

``sign_ins``: each signed-in browser, so that signing out (here or everywhere) ends its
cookies for good. Cookies from before this revision name no sign-in: everyone signs in
once more.
"""
import unicodedata

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def _key(name):
    # app.core.names.name_key as of this revision (a migration must not change later).
    visible = "".join(c for c in name if c not in "\u200c\u200d")
    folded = unicodedata.normalize("NFC", " ".join(visible.split())).casefold()
    return unicodedata.normalize("NFC", folded)


def upgrade():
    op.create_table('sign_ins',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('key_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('key_hash')
    )
    with op.batch_alter_table('sign_ins', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sign_ins_user_id'), ['user_id'], unique=False)

    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('name_key', sa.String(length=160), nullable=True))
        batch_op.drop_index('uq_players_league')
        batch_op.drop_index('uq_players_personal')
    conn = op.get_bind()
    players = sa.table('players', sa.column('id', sa.Integer), sa.column('name', sa.String),
                       sa.column('owner_id', sa.Integer), sa.column('league_id', sa.Integer),
                       sa.column('name_key', sa.String))
    taken = set()
    rows = conn.execute(sa.select(players.c.id, players.c.name, players.c.owner_id,
                                  players.c.league_id).order_by(players.c.id)).all()
    for pid, name, owner_id, league_id in rows:
        key = _key(name)
        scope = ('league', league_id) if league_id is not None else ('owner', owner_id)
        if (scope, key) in taken:
            key = f"{key}#{pid}"
        taken.add((scope, key))
        conn.execute(players.update().where(players.c.id == pid).values(name_key=key))
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.alter_column('name_key', existing_type=sa.String(length=160), nullable=False)
        batch_op.create_index('uq_players_league', ['league_id', 'name_key'], unique=True,
                              sqlite_where=sa.text('league_id IS NOT NULL'),
                              postgresql_where=sa.text('league_id IS NOT NULL'))
        batch_op.create_index('uq_players_personal', ['owner_id', 'name_key'], unique=True,
                              sqlite_where=sa.text('league_id IS NULL'),
                              postgresql_where=sa.text('league_id IS NULL'))


def downgrade():
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_index('uq_players_personal')
        batch_op.drop_index('uq_players_league')
        batch_op.create_index('uq_players_personal', ['owner_id', 'name'], unique=True,
                              sqlite_where=sa.text('league_id IS NULL'),
                              postgresql_where=sa.text('league_id IS NULL'))
        batch_op.create_index('uq_players_league', ['league_id', 'name'], unique=True,
                              sqlite_where=sa.text('league_id IS NOT NULL'),
                              postgresql_where=sa.text('league_id IS NOT NULL'))
        batch_op.drop_column('name_key')

    with op.batch_alter_table('sign_ins', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sign_ins_user_id'))
    op.drop_table('sign_ins')
