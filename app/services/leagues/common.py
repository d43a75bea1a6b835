"""What the league modules share: limits, the columns standings count, the league's errors,
and answers remembered until the next change of a hand."""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from openskill.models import PlackettLuce
from sqlalchemy import (
    func,
    select,
)

from ...core import TonkError
from ...core.rules import SCORINGS as RULE_SCORINGS
from ...core.series import MAX_POINTS
from ...db.models import GameSession, HandVersion, League, PlayerSessionStat
from ...extensions import db
from ..errors import NotFoundError

MAX_LEAGUE_NAME = 80
MAX_SEASON_NAME = 80
HANDS_PER_PAGE = 25
CHART_POINTS = MAX_POINTS  # at most this many points of a running total (the chart's own)
#: The scorings a league may keep, in the order the pages offer them.
SCORINGS = tuple(RULE_SCORINGS)  # the house rules' scoring kinds, in their order
#: The counted numbers of a standing, as PlayerSessionStat columns (``sessions`` is a count).
COUNTS = ("hands", "hands_won", "tonks_out", "drops_won", "times_caught")
#: Every column standings can be sorted by.
SORTS = ("player", "net", "sessions", *COUNTS, "win_rate", "average")
#: Every number a standings row shows → the hand-entry flag behind it (None: every hand).
STATS: dict[str, str | None] = {
    "net": None, "sessions": None, "hands": None, "average": None,
    "hands_won": "won", "win_rate": "won", "tonks_out": "tonked_out",
    "drops_won": "drop_won", "times_caught": "caught",
}
#: The PlayerSessionStat column that counts each flag's hands in a session.
FLAG_COUNTS = {None: "hands", "won": "hands_won", "tonked_out": "tonks_out",
                "drop_won": "drops_won", "caught": "times_caught"}

PSS = PlayerSessionStat
T = TypeVar("T")
RATING_MODEL = PlackettLuce()


class LeagueError(TonkError):
    """A change a league cannot take."""


class LeagueNotFoundError(NotFoundError):
    """No such league, member or season, or not one this account runs."""


# -- remembering answers ---------------------------------------------------------------------

#: Standings and records depend only on the league's counted hands (and members' names and
#: seasons, which are read fresh or are part of the key), so each answer is remembered in
#: this process under the league's :func:`counted_mark`, which the database moves with every
#: change: the mark decides what is current, never this process (another server may have
#: written).
MEMO_SIZE = 256
_memo: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_memo_lock = threading.Lock()


def counted_mark(league: League) -> tuple[Any, ...]:
    """A mark that the database moves with every change of what ``league`` counts.

    SQLite writes one transaction at a time and numbers hand versions in that order, and
    every record, correction and void writes one (the importer too): the newest version's
    id, one index lookup. PostgreSQL's writers may commit a version numbered before the
    newest one after it, so there the mark is read from the league's sessions in one
    aggregate: how many, the sum of their revisions and the newest id. Every change of a
    session's hands moves its revision in the same transaction (``ledger.locked``),
    revisions only grow, new sessions take new ids (PostgreSQL never gives one twice) and
    only an empty session can be deleted: two views of the league that differ in what
    counts differ in the mark, however the commits interleave."""
    if db.session.get_bind().dialect.name == "sqlite":
        return (db.session.scalar(select(func.max(HandVersion.id))),)
    return tuple(db.session.execute(
        select(func.count(), func.coalesce(func.sum(GameSession.revision), 0),
               func.max(GameSession.id))
        .where(GameSession.league_id == league.id)).one())


def remembered(league: League, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
    """``compute()``, remembered under ``key`` and ``league``'s :func:`counted_mark`.
    The key holds the league's uid, never only its id (a league id names another league in
    another database)."""
    key = (league.uid, *key, counted_mark(league))
    with _memo_lock:
        if key in _memo:
            _memo.move_to_end(key)
            return _memo[key]  # type: ignore[no-any-return]
    value = compute()
    with _memo_lock:
        _memo[key] = value
        while len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)
    return value


def forget() -> None:
    """Forget every remembered answer (for tests, the benchmark's "cold", and tools that
    write behind the ledger's back)."""
    with _memo_lock:
        _memo.clear()
