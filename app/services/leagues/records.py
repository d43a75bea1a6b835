"""A player's record: by season, the running total across sessions, biggest wins and
losses, and head-to-head against every other member."""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    DateTime,
    Integer,
    and_,
    case,
    func,
    literal,
    select,
    union_all,
)
from sqlalchemy.orm import aliased

from ...core.money import from_minor
from ...core.series import downsample
from ...db.models import GameSession, League, Player, Season
from ...extensions import db
from .common import CHART_POINTS, COUNTS, PSS, SCORINGS, remembered
from .standings import Standing, Window, best_first, check_scoring, league_scoring, member_names

# -- a player's record -----------------------------------------------------------------------

@dataclass(frozen=True)
class SessionResult:
    """A player's result in one session."""

    session_id: int
    name: str
    played_at: datetime
    net_minor: int
    hands: int

    @property
    def net(self) -> Decimal:
        return from_minor(self.net_minor)


@dataclass(frozen=True)
class HeadToHead:
    """A player against another member, in the sessions both played: how often each
    finished ahead, and what each won (or was pushed up) in those sessions."""

    opponent_id: int
    name: str
    sessions: int
    ahead: int
    behind: int
    net_minor: int
    their_net_minor: int

    @property
    def even(self) -> int:
        return self.sessions - self.ahead - self.behind

    @property
    def net(self) -> Decimal:
        return from_minor(self.net_minor)

    @property
    def their_net(self) -> Decimal:
        return from_minor(self.their_net_minor)


@dataclass(frozen=True)
class PlayerRecord:
    """A member's record in a league under one scoring: by season and all time, their
    running total across sessions (thinned for the chart), best and worst sessions, and
    head-to-head against every other member they played."""

    player: Player
    scoring: str
    scorings: tuple[str, ...]
    seasons: tuple[tuple[Season, Standing | None], ...]
    all_time: Standing | None
    running: tuple[tuple[int, int], ...]
    sessions: int
    best: tuple[SessionResult, ...]
    worst: tuple[SessionResult, ...]
    head_to_head: tuple[HeadToHead, ...]


_SUMS = (func.sum(PSS.net_minor), func.count(), *(func.sum(getattr(PSS, c)) for c in COUNTS))


def _totals_by_window(mine: Sequence[Any], seasons: Sequence[Season]
                      ) -> dict[int, tuple[int, ...]]:
    """The totals of the PlayerSessionStat rows ``mine`` picks in each season (by its id)
    and all time (0): one aggregate over the rows joined to the seasons' windows, and one
    without. A total is (net, sessions, hands, hands won, tonks out, drops won, caught)."""
    rows = [(0, *db.session.execute(select(*_SUMS).where(*mine)).one())]
    if seasons:
        moment = DateTime(timezone=True)
        windows = union_all(*(
            select(literal(s.id, Integer).label("id"),
                   literal(Window.of(s).start, moment).label("starts"),
                   literal(Window.of(s).end, moment).label("ends")) for s in seasons)
        ).subquery("windows")
        rows += db.session.execute(
            select(windows.c.id, *_SUMS)
            .join(windows, and_(PSS.played_at >= windows.c.starts,
                                PSS.played_at < windows.c.ends))
            .where(*mine).group_by(windows.c.id)).all()
    return {key: (int(net), int(count), *(int(n) for n in counts))
            for key, net, count, *counts in rows if count}


@dataclass(frozen=True)
class _RecordNumbers:
    """What a player's record reads from the database (plain values, to remember)."""

    scoring: str
    scorings: tuple[str, ...]
    totals: dict[int, tuple[int, ...]]
    running: tuple[tuple[int, int], ...]
    sessions: int
    best: tuple[SessionResult, ...]
    worst: tuple[SessionResult, ...]
    head_to_head: tuple[tuple[int, ...], ...]


def _record_numbers(league: League, player_id: int, scoring: str | None,
                    seasons: Sequence[Season], top: int, points: int) -> _RecordNumbers:
    mine = [PSS.player_id == player_id, PSS.league_id == league.id, PSS.hands > 0]
    present = set(db.session.scalars(select(PSS.scoring).distinct().where(*mine)))
    scorings = tuple(s for s in SCORINGS if s in present)
    if scoring is None:
        own = league_scoring(league)
        scoring = own if own in scorings or not scorings else scorings[0]
    mine.append(PSS.scoring == scoring)
    nets = db.session.scalars(select(PSS.net_minor).where(*mine)
                              .order_by(PSS.played_at, PSS.session_id)).all()

    def sessions(highest: bool, only: Any = None) -> tuple[SessionResult, ...]:
        """The ``top`` sessions by net, highest or lowest first; the earlier first on a
        tie. Sorted and cut in the database; only those sessions' names are read."""
        def by_net(net: Any) -> Any:
            return net.desc() if highest else net.asc()

        cut = (select(PSS.session_id, PSS.net_minor, PSS.hands, PSS.played_at)
               .where(*mine, *([] if only is None else [only]))
               .order_by(by_net(PSS.net_minor), PSS.played_at, PSS.session_id)
               .limit(top).subquery())
        rows = db.session.execute(
            select(cut.c.session_id, GameSession.name, GameSession.created_at,
                   cut.c.net_minor, cut.c.hands)
            .join(GameSession, GameSession.id == cut.c.session_id)
            .order_by(by_net(cut.c.net_minor), cut.c.played_at, cut.c.session_id)).all()
        return tuple(SessionResult(*row) for row in rows)

    if best_first(scoring):  # biggest wins and losses
        best = sessions(True, only=PSS.net_minor > 0)
        worst = sessions(False, only=PSS.net_minor < 0)
    else:  # push-ups: the fewest and the most pushed up
        best, worst = sessions(False), sessions(True)

    running = downsample(list(enumerate(itertools.accumulate(nets, initial=0))), points)
    return _RecordNumbers(scoring, scorings, _totals_by_window(mine, seasons), tuple(running),
                          len(nets), best, worst,
                          tuple(_head_to_head_numbers(league, player_id, scoring)))


def player_record(league: League, player: Player, scoring: str | None = None,
                  top: int = 5, points: int = CHART_POINTS) -> PlayerRecord:
    """``player``'s record under ``scoring`` (default: the league's own if they played it),
    all from PlayerSessionStat rows, and only small answers read: the scorings they played;
    their totals by season and all time (one aggregate each); their net in each session
    in the order played, for the running total (thinned for the chart); their best and
    worst sessions (sorted and cut in the database); and head-to-head (one self-join)."""
    check_scoring(scoring)
    seasons = list(league.seasons)
    key = ("record", player.id, scoring, league_scoring(league), top, points,
           tuple((s.id, s.starts_on, s.ends_on) for s in seasons))
    found = remembered(league, key, lambda: _record_numbers(league, player.id, scoring, seasons,
                                                     top, points))
    names = member_names(league)

    def standing(numbers: tuple[int, ...] | None) -> Standing | None:
        return None if numbers is None else Standing(player.id, player.name, *numbers)

    return PlayerRecord(player, found.scoring, found.scorings,
                        tuple((s, standing(found.totals.get(s.id))) for s in seasons),
                        standing(found.totals.get(0)), found.running, found.sessions,
                        found.best, found.worst, tuple(_with_names(found.head_to_head, names)))


def _head_to_head_numbers(league: League, player_id: int, scoring: str,
                          season: Season | None = None) -> list[tuple[int, ...]]:
    """(opponent, sessions, ahead, behind, net, their net) for each member ``player_id``
    played with under ``scoring``: one self-join of PlayerSessionStat, grouped by
    opponent. Ahead means a higher net (under push-ups, a lower total)."""
    # Start from this player's sessions (a materialized CTE): left to itself, SQLite scans
    # every record of the league to get the GROUP BY order for free, 15 times slower.
    me = (select(PSS.session_id, PSS.net_minor)
          .where(PSS.player_id == player_id, PSS.league_id == league.id,
                 PSS.scoring == scoring, PSS.hands > 0, *Window.of(season).where(PSS.played_at))
          .cte("mine").prefix_with("MATERIALIZED"))
    them = aliased(PSS)
    ahead = me.c.net_minor > them.net_minor if best_first(scoring) \
        else me.c.net_minor < them.net_minor
    behind = me.c.net_minor < them.net_minor if best_first(scoring) \
        else me.c.net_minor > them.net_minor
    rows = db.session.execute(
        select(them.player_id, func.count(), func.sum(case((ahead, 1), else_=0)),
               func.sum(case((behind, 1), else_=0)), func.sum(me.c.net_minor),
               func.sum(them.net_minor))
        .select_from(me)
        .join(them, and_(them.session_id == me.c.session_id, them.scoring == scoring,
                         them.player_id != player_id))
        .where(them.hands > 0)
        .group_by(them.player_id))
    return [tuple(int(n) for n in row) for row in rows]


def _with_names(rows: Iterable[tuple[int, ...]], names: Mapping[int, str]
                ) -> list[HeadToHead]:
    found = [HeadToHead(opponent, names.get(opponent, "?"), *numbers)
             for opponent, *numbers in rows]
    return sorted(found, key=lambda h: (-h.sessions, h.name.casefold()))


def head_to_head(league: League, player: Player, scoring: str,
                 season: Season | None = None) -> list[HeadToHead]:
    """``player`` against each other member, over the sessions both played under
    ``scoring`` (in ``season``, or all time): most sessions together first."""
    return _with_names(_head_to_head_numbers(league, player.id, scoring, season),
                       member_names(league))
