"""a player's session record counts their whole money in the session: the side bets and
what the pots give back, not the hands alone

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06 23:05:00

The league's pages add up player_session_stats.net_minor; it counted the hands' money
only, so a league night with side bets stood in the standings apart from its session page
(issue 40). The ledger now moves a record by what the side bets and the pots' returns
change, under the scoring the night plays; this moves each record already kept by what it
lacks: its seat's total (hands and side bets) and its pots' return, less what its hands
made, under the session's scoring now (a record with no hands is made for it).
"""
import json

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def _moves(bind):
    """(session, player, scoring, league, played at, what the record lacks), for each seat
    of a session with side bets or pots whose records fall short of its money."""
    from app.core.rules import resolve_rules  # the pure core: the one reading of rules

    sessions = bind.execute(sa.text(
        "SELECT id, league_id, created_at, rules_json, pots_json FROM game_sessions "
        "WHERE side_bets_json IS NOT NULL OR (pots_json IS NOT NULL AND pots_json != '{}')"
    )).all()
    for gs in sessions:
        scoring = resolve_rules(json.loads(gs.rules_json)).scoring
        back = {}
        for paid in json.loads(gs.pots_json or '{}').values():
            for seat, minor in paid:
                back[seat] = back.get(seat, 0) + minor
        kept = dict(bind.execute(sa.text(
            'SELECT player_id, SUM(net_minor) FROM player_session_stats '
            'WHERE session_id = :s GROUP BY player_id'), {'s': gs.id}).all())
        for seat, player_id, total in bind.execute(sa.text(
                'SELECT seat, player_id, total_minor FROM session_players '
                'WHERE session_id = :s'), {'s': gs.id}).all():
            lacks = total + back.get(seat, 0) - int(kept.get(player_id) or 0)
            if lacks:
                yield gs.id, player_id, scoring, gs.league_id, gs.created_at, lacks


def upgrade():
    bind = op.get_bind()
    for session_id, player_id, scoring, league_id, played_at, lacks in list(_moves(bind)):
        key = {'s': session_id, 'p': player_id, 'c': scoring}
        moved = bind.execute(sa.text(
            'UPDATE player_session_stats SET net_minor = net_minor + :n '
            'WHERE session_id = :s AND player_id = :p AND scoring = :c'), {**key, 'n': lacks})
        if not moved.rowcount:
            bind.execute(sa.text(
                'INSERT INTO player_session_stats (session_id, player_id, scoring, league_id, '
                'played_at, net_minor, hands, hands_won, tonks_out, drops_won, times_caught) '
                'VALUES (:s, :p, :c, :l, :t, :n, 0, 0, 0, 0, 0)'),
                {**key, 'l': league_id, 't': played_at, 'n': lacks})


def downgrade():
    """Each record's net the hands' money alone, as its entries add up to (a record made
    for the money beyond the hands, with no hands, goes)."""
    op.execute('UPDATE player_session_stats SET net_minor = COALESCE((SELECT SUM(e.amount_minor) '
               'FROM hand_entries e WHERE e.session_id = player_session_stats.session_id '
               'AND e.player_id = player_session_stats.player_id '
               'AND e.scoring = player_session_stats.scoring), 0)')
    op.execute('DELETE FROM player_session_stats WHERE hands = 0')
