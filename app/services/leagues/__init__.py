"""Leagues: tables that meet again and again. The league service keeps a league's name,
default house rules and stake, its members, admins and seasons; and answers what the
league pages and API show: standings, the hands behind each number, a player's record,
head-to-head, and openskill ratings.

Standings and records add up :class:`~app.db.models.PlayerSessionStat` rows (one per player,
session and scoring, kept by the ledger with every change of a hand), never every hand:
standings are one SQL aggregate over them. Only the hands behind a number read hand
entries, one page at a time. Standings and records are remembered in the process under a
mark of the league that the database moves with every change (see :func:`counted_mark`),
so a page viewed again reads almost nothing, and never an answer another server made stale.

Seasons are ranges of days, both included, read as UTC days (a session counts on the day
it was started, in UTC). Money and points are integer hundredths here; the pages and the
API turn them into decimals. Errors are :class:`~app.core.errors.TonkError` subclasses with
messages for a person; :class:`LeagueNotFoundError` is a
:class:`~app.services.sessions.ledger.NotFoundError` (404 for pages and API: another account's
league is simply not there).

The package, module by job: :mod:`.admin` (a league's facts and their changes),
:mod:`.standings`, :mod:`.records` (a player's record, head-to-head), :mod:`.ratings`.
"""
from __future__ import annotations

from .admin import (
    add_admin,
    add_member,
    add_season,
    admin_league,
    admins,
    create_league,
    current_season,
    edit_league,
    get_member,
    get_season,
    league_rules,
    league_stake,
    members,
    my_leagues,
    remove_admin,
    remove_season,
    rename_member,
    session_table,
)
from .common import (
    CHART_POINTS,
    COUNTS,
    HANDS_PER_PAGE,
    MAX_LEAGUE_NAME,
    MAX_SEASON_NAME,
    MEMO_SIZE,
    PSS,
    SCORINGS,
    SORTS,
    STATS,
    LeagueError,
    LeagueNotFoundError,
    T,
    counted_mark,
    forget,
)
from .ratings import RATING_SORTS, RatingRow, rate_session, ratings, rerate_league, sessions_query
from .records import HeadToHead, PlayerRecord, SessionResult, head_to_head, player_record
from .standings import (
    HandLine,
    Page,
    Standing,
    Standings,
    Window,
    best_first,
    default_direction,
    hands_behind,
    league_scoring,
    net_parts,
    sort_rows,
    standings,
)

__all__ = [
    'CHART_POINTS', 'COUNTS', 'HANDS_PER_PAGE', 'HandLine', 'HeadToHead',
    'LeagueError', 'LeagueNotFoundError', 'MAX_LEAGUE_NAME', 'MAX_SEASON_NAME',
    'MEMO_SIZE', 'PSS', 'Page', 'PlayerRecord', 'RATING_SORTS', 'RatingRow',
    'SCORINGS', 'SORTS', 'STATS', 'SessionResult', 'Standing', 'Standings', 'T', 'Window',
    'add_admin', 'add_member', 'add_season', 'admin_league', 'admins', 'best_first',
    'counted_mark', 'create_league', 'current_season', 'default_direction', 'edit_league',
    'forget', 'get_member', 'get_season', 'hands_behind', 'head_to_head', 'league_rules',
    'league_scoring', 'league_stake', 'members', 'my_leagues', 'net_parts', 'player_record',
    'rate_session', 'ratings', 'remove_admin', 'remove_season', 'rename_member',
    'rerate_league', 'session_table', 'sessions_query', 'sort_rows', 'standings',
]
