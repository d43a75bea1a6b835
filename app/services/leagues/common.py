"""What the league modules share: limits, the columns standings count, the league's errors,
and answers remembered until the next change of a hand."""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from openskill.models import PlackettLuce
from sqlalchemy import (
    func,
    select,
)

from ...core import TonkError
from ...db.models import HandVersion, PlayerSessionStat
from ...extensions import db
from ..sessions.ledger import NotFoundError

MAX_LEAGUE_NAME = 80
MAX_SEASON_NAME = 80
HANDS_PER_PAGE = 25
CHART_POINTS = 150  # at most this many points of a running total (app.web.chart's own)
#: The scorings a league may keep, in the order the pages offer them.
SCORINGS = ("money", "points", "push_ups")
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
_FLAG_COUNTS = {None: "hands", "won": "hands_won", "tonked_out": "tonks_out",
                "drop_won": "drops_won", "caught": "times_caught"}

PSS = PlayerSessionStat
T = TypeVar("T")
_MODEL = PlackettLuce()


class LeagueError(TonkError):
    """A change a league cannot take."""


class LeagueNotFoundError(NotFoundError):
    """No such league, member or season, or not one this account runs."""


# -- remembering answers ---------------------------------------------------------------------

#: Standings and records depend only on counted hands (and members' names and seasons, which
#: are read fresh or are part of the key), so each answer is remembered under a mark that
#: moves with every change of a hand, in this process, for a short while at most.
MEMO_SIZE = 256
MEMO_SECONDS = 30.0
_memo: OrderedDict[tuple[Any, ...], tuple[float, Any]] = OrderedDict()
_memo_lock = threading.Lock()


def counted_mark() -> int:
    """A mark that moves whenever any hand's counted facts do: every record, correction
    and void writes a new :class:`HandVersion` (the ledger's invariant; the importer writes
    one for each version it imports), and PlayerSessionStat rows change only with them; so
    the newest version's id (one index lookup)."""
    return int(db.session.scalar(select(func.max(HandVersion.id))) or 0)


def _remembered(key: tuple[Any, ...], compute: Callable[[], T]) -> T:
    """``compute()``, remembered under ``key`` and :func:`counted_mark` for at most
    :data:`MEMO_SECONDS`: the time limit covers PostgreSQL writers that commit out of id
    order. ``key`` holds the league's uid, never only its id (a league id names another
    league in another database)."""
    key = (*key, counted_mark())
    now = time.monotonic()
    with _memo_lock:
        found = _memo.get(key)
        if found is not None and now - found[0] < MEMO_SECONDS:
            _memo.move_to_end(key)
            return found[1]  # type: ignore[no-any-return]
    value = compute()
    with _memo_lock:
        _memo[key] = (now, value)
        while len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)
    return value


def forget() -> None:
    """Forget every remembered answer (for tests and tools that write behind the ledger's
    back)."""
    with _memo_lock:
        _memo.clear()
