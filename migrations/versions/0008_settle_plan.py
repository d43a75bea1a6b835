"""a settle-up plan that holds, payments undone with a reason, debts carried over, void
hands counted, sessions archived

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 08:30:00

``planned_transfers`` keeps each session's settle-up plan (the fewest transfers), made when
the totals change and not when money moves; ``game_sessions.plan_no`` names the plan in
force. A payment names the planned transfer it went along (``transfer_id``; none: outside
the plan), and an undone payment stays, with who, when and why; a payment keeps who marked
it by name (``by_name``, as a hand's versions do), so that an import keeps it too. ``carried_debts`` are the
transfers still open when a session was closed with its debts carried over.
``game_sessions.voided_hands`` counts the void hands, so every page reads one hand count;
``archived_at`` puts a session away off the home page.

The upgrade makes the plan of every open session from what is still open then.
"""
import json
from decimal import Decimal

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('planned_transfers',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('session_id', sa.Integer(), nullable=False),
    sa.Column('plan', sa.Integer(), nullable=False),
    sa.Column('payer_id', sa.Integer(), nullable=False),
    sa.Column('payee_id', sa.Integer(), nullable=False),
    sa.Column('amount_minor', sa.BigInteger(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['payee_id'], ['players.id'], ),
    sa.ForeignKeyConstraint(['payer_id'], ['players.id'], ),
    sa.ForeignKeyConstraint(['session_id'], ['game_sessions.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('planned_transfers', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_planned_transfers_session_id'), ['session_id'],
                              unique=False)

    op.create_table('carried_debts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('session_id', sa.Integer(), nullable=False),
    sa.Column('payer_id', sa.Integer(), nullable=False),
    sa.Column('payee_id', sa.Integer(), nullable=False),
    sa.Column('amount_minor', sa.BigInteger(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('paid_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('paid_by_name', sa.String(length=80), nullable=True),
    sa.ForeignKeyConstraint(['payee_id'], ['players.id'], ),
    sa.ForeignKeyConstraint(['payer_id'], ['players.id'], ),
    sa.ForeignKeyConstraint(['session_id'], ['game_sessions.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('carried_debts', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_carried_debts_payee_id'), ['payee_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_carried_debts_payer_id'), ['payer_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_carried_debts_session_id'), ['session_id'],
                              unique=False)

    with op.batch_alter_table('game_sessions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('voided_hands', sa.Integer(), server_default='0',
                                      nullable=False))
        batch_op.add_column(sa.Column('plan_no', sa.Integer(), server_default='0',
                                      nullable=False))
        batch_op.add_column(sa.Column('archived_at', sa.DateTime(timezone=True), nullable=True))

    with op.batch_alter_table('settle_payments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('transfer_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('undone_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('undone_by_name', sa.String(length=80), nullable=True))
        batch_op.add_column(sa.Column('undo_reason', sa.Text(), nullable=True))
        batch_op.add_column(sa.Column('by_name', sa.String(length=80), nullable=True))
        batch_op.create_foreign_key('fk_settle_payments_transfer_id', 'planned_transfers',
                                    ['transfer_id'], ['id'])

    bind = op.get_bind()
    bind.execute(sa.text('UPDATE settle_payments SET by_name = (SELECT name FROM users '
                         'WHERE users.id = settle_payments.created_by_id)'))
    bind.execute(sa.text(
        'UPDATE game_sessions SET voided_hands = (SELECT count(*) FROM hands WHERE '
        'hands.session_id = game_sessions.id AND hands.voided = :yes)'), {"yes": True})
    _plan_open_sessions(bind)


def _plan_open_sessions(bind):
    """Plan 1 of every open session (not push-ups) that still has something open."""
    from app.core.rules import resolve_rules  # the pure core: the one reading of rules
    from app.core.transfers import fewest_transfers  # … and the one planner

    sessions = bind.execute(sa.text(
        'SELECT id, rules_json FROM game_sessions WHERE closed_at IS NULL')).all()
    for session_id, rules_json in sessions:
        if resolve_rules(json.loads(rules_json)).scoring == 'push_ups':
            continue
        seats = bind.execute(sa.text(
            'SELECT seat, player_id, total_minor FROM session_players WHERE session_id = :s'),
            {"s": session_id}).all()
        by_seat = {seat: player for seat, player, _total in seats}
        remaining = {player: total for _seat, player, total in seats}
        for payer, payee, amount in bind.execute(sa.text(
                'SELECT payer_seat, payee_seat, amount_minor FROM settle_payments '
                'WHERE session_id = :s'), {"s": session_id}).all():
            remaining[by_seat[payer]] += amount
            remaining[by_seat[payee]] -= amount
        if not any(remaining.values()):
            continue
        plan = fewest_transfers({str(p): Decimal(v) for p, v in remaining.items()})
        for t in plan:
            bind.execute(sa.text(
                'INSERT INTO planned_transfers (session_id, plan, payer_id, payee_id, '
                'amount_minor, created_at) VALUES (:s, 1, :payer, :payee, :amount, '
                'CURRENT_TIMESTAMP)'),
                {"s": session_id, "payer": int(t.payer), "payee": int(t.payee),
                 "amount": int(t.amount)})
        bind.execute(sa.text('UPDATE game_sessions SET plan_no = 1 WHERE id = :s'),
                     {"s": session_id})


def downgrade():
    # Going back would count undone payments again and forget carried debts: refuse while
    # there is one of either.
    bind = op.get_bind()
    undone = bind.execute(sa.text(
        'SELECT count(*) FROM settle_payments WHERE undone_at IS NOT NULL')).scalar()
    debts = bind.execute(sa.text('SELECT count(*) FROM carried_debts')).scalar()
    if undone or debts:
        raise RuntimeError(
            f'this database holds {undone} undone payment(s) and {debts} carried debt(s): '
            'going back before them would count the undone payments again and forget the '
            'debts. Keep this version.')
    with op.batch_alter_table('settle_payments', schema=None) as batch_op:
        batch_op.drop_constraint('fk_settle_payments_transfer_id', type_='foreignkey')
        batch_op.drop_column('by_name')
        batch_op.drop_column('undo_reason')
        batch_op.drop_column('undone_by_name')
        batch_op.drop_column('undone_at')
        batch_op.drop_column('transfer_id')

    with op.batch_alter_table('game_sessions', schema=None) as batch_op:
        batch_op.drop_column('archived_at')
        batch_op.drop_column('plan_no')
        batch_op.drop_column('voided_hands')

    with op.batch_alter_table('carried_debts', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_carried_debts_session_id'))
        batch_op.drop_index(batch_op.f('ix_carried_debts_payer_id'))
        batch_op.drop_index(batch_op.f('ix_carried_debts_payee_id'))
    op.drop_table('carried_debts')

    with op.batch_alter_table('planned_transfers', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_planned_transfers_session_id'))
    op.drop_table('planned_transfers')
