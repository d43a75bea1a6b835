"""Standings: one SQL aggregate over the players' session records, sorted as asked; and
the hands behind each number, a page at a time."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from datetime import time as day_start
from decimal import Decimal
from fractions import Fraction
from typing import Any

from sqlalchemy import (
    Select,
    func,
    select,
)

from ...core.messages import Message, as_sent
from ...core.money import from_minor
from ...db.models import GameSession, Hand, HandEntry, League, Player, Season
from ...extensions import db
from .admin import league_rules
from .common import (
    COUNTS,
    FLAG_COUNTS,
    HANDS_PER_PAGE,
    PSS,
    SCORINGS,
    SORTS,
    STATS,
    LeagueError,
    remembered,
)

# -- standings -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Window:
    """The moments a season covers, as UTC: from its first day's start to the end of its
    last day (excluded). None on both sides: all time."""

    start: datetime | None = None
    end: datetime | None = None

    @classmethod
    def of(cls, season: Season | None) -> Window:
        if season is None:
            return cls()
        # A season stored before days were limited to 2000-2100 may end on 9999-12-31.
        last = min(season.ends_on, date.max - timedelta(days=1))
        return cls(datetime.combine(season.starts_on, day_start(), UTC),
                   datetime.combine(last + timedelta(days=1), day_start(), UTC))

    def where(self, column: Any) -> list[Any]:
        """The conditions that keep ``column`` (a played-at moment) in the window."""
        if self.start is None or self.end is None:
            return []
        return [column >= self.start, column < self.end]


@dataclass(frozen=True)
class Standing:
    """A player's record over a season or all time under one scoring. ``net_minor`` is money
    or points won (or, under push-ups, points pushed up: lower is better)."""

    player_id: int
    name: str
    net_minor: int
    sessions: int
    hands: int
    hands_won: int
    tonks_out: int
    drops_won: int
    times_caught: int
    place: int = 0

    @property
    def net(self) -> Decimal:
        return from_minor(self.net_minor)

    @property
    def win_rate(self) -> Fraction:
        """Hands won of hands played, exactly."""
        return Fraction(self.hands_won, self.hands) if self.hands else Fraction(0)

    @property
    def average_minor(self) -> Fraction:
        """Net (or points pushed) per hand, in hundredths, exactly."""
        return Fraction(self.net_minor, self.hands) if self.hands else Fraction(0)

    def sort_key(self, column: str) -> Any:
        if column == "player":
            return self.name.casefold()
        if column == "win_rate":
            return self.win_rate
        if column == "average":
            return self.average_minor
        return getattr(self, "net_minor" if column == "net" else column)


@dataclass(frozen=True)
class Standings:
    """A league's standings for a season (None: all time) under one of its scorings."""

    scoring: str
    scorings: tuple[str, ...]
    season: Season | None
    sort: str
    direction: str
    rows: tuple[Standing, ...]


def best_first(scoring: str) -> bool:
    """Whether a higher net is better: yes for money and points, no for push-ups."""
    return scoring != "push_ups"


def default_direction(column: str, scoring: str) -> str:
    """How a column sorts first: names A to Z, numbers highest first, push-ups' totals
    lowest (best) first."""
    if column == "player" or (column in ("net", "average") and not best_first(scoring)):
        return "asc"
    return "desc"


def _aggregate(league: League, window: Window) -> Select[Any]:
    """The one aggregate behind standings: each player's PlayerSessionStat rows in the
    window, summed, per scoring. Rows of sessions whose hands were all voided count
    nothing (no session played)."""
    return (select(PSS.player_id, PSS.scoring, func.sum(PSS.net_minor), func.count(),
                   *(func.sum(getattr(PSS, c)) for c in COUNTS))
            .where(PSS.league_id == league.id, PSS.hands > 0, *window.where(PSS.played_at))
            .group_by(PSS.player_id, PSS.scoring))


def member_names(league: League) -> dict[int, str]:
    """The members' names, by id (read fresh: a rename shows at once)."""
    return {player_id: name for player_id, name in db.session.execute(
        select(Player.id, Player.name).where(Player.league_id == league.id))}


def _standings_by_scoring(league: League, window: Window) -> dict[str, list[Standing]]:
    def numbers() -> dict[str, list[tuple[int, ...]]]:
        found: dict[str, list[tuple[int, ...]]] = defaultdict(list)
        for player_id, scoring, *sums in db.session.execute(_aggregate(league, window)):
            found[scoring].append((player_id, *(int(n) for n in sums)))
        return dict(found)

    names = member_names(league)
    return {scoring: [Standing(p, names.get(p, "?"), *sums) for p, *sums in rows]
            for scoring, rows in remembered(
                league, ("standings", window.start, window.end), numbers).items()}


def _placed(rows: Iterable[Standing], scoring: str) -> list[Standing]:
    """Places by net, best first; equal nets share a place (1, 2, 2, 4)."""
    ordered = sorted(rows, key=lambda r: (-r.net_minor if best_first(scoring)
                                          else r.net_minor, r.name.casefold()))
    placed: list[Standing] = []
    for i, row in enumerate(ordered):
        same = placed and placed[-1].net_minor == row.net_minor
        placed.append(replace(row, place=placed[-1].place if same else i + 1))
    return placed


def check_sort(column: str, direction: str | None, columns: Sequence[str]) -> None:
    if column not in columns:
        raise LeagueError(Message("standings.sort", choices=", ".join(columns),
                                  value=as_sent(column)), "sort")
    if direction not in (None, "asc", "desc"):
        raise LeagueError(Message("standings.direction", value=as_sent(direction)), "dir")


def check_scoring(scoring: str | None) -> None:
    if scoring is not None and scoring not in SCORINGS:
        raise LeagueError(Message("standings.scoring", choices=", ".join(SCORINGS),
                                  value=as_sent(scoring)), "scoring")


def sort_rows(rows: Sequence[Standing], column: str, direction: str) -> list[Standing]:
    """``rows`` sorted by ``column``; equal values keep the order of places, then names."""
    check_sort(column, direction, SORTS)
    by_place = sorted(rows, key=lambda r: (r.place, r.name.casefold()))
    return sorted(by_place, key=lambda r: r.sort_key(column), reverse=direction == "desc")


def league_scoring(league: League) -> str:
    return league_rules(league).scoring


def standings(league: League, season: Season | None = None, scoring: str | None = None,
              *, sort: str = "net", direction: str | None = None) -> Standings:
    """The standings of a season (None: all time) under ``scoring`` (default: the league's
    own when it was played, else the first one played), sorted by ``sort``: net won,
    sessions and hands played, hands won, tonks out, drops won, times caught, win rate and
    average per hand. One SQL aggregate over PlayerSessionStat, grouped by player."""
    check_scoring(scoring)
    check_sort(sort, direction, SORTS)
    by_scoring = _standings_by_scoring(league, Window.of(season))
    scorings = tuple(s for s in SCORINGS if s in by_scoring) or (league_scoring(league),)
    if scoring is None:
        scoring = league_scoring(league) if league_scoring(league) in scorings else scorings[0]
    direction = direction or default_direction(sort, scoring)
    rows = sort_rows(_placed(by_scoring.get(scoring, []), scoring), sort, direction)
    return Standings(scoring, scorings, season, sort, direction, tuple(rows))


# -- the hands behind a number ---------------------------------------------------------------

@dataclass(frozen=True)
class HandLine:
    """One of a player's hands: the session, the hand's number, how it ended, and what it
    did to the player (net, or points pushed)."""

    session_id: int
    session_name: str
    played_at: datetime
    number: int
    outcome: str
    amount_minor: int
    won: bool
    tonked_out: bool
    drop_won: bool
    caught: bool

    @property
    def amount(self) -> Decimal:
        return from_minor(self.amount_minor)


@dataclass(frozen=True)
class Page:
    """One page of rows that are not one model's (what the pager macro reads): the hands
    behind a standings number, the sessions a member played."""

    items: Sequence[Any]
    total: int
    page: int
    per_page: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def has_prev(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page < self.pages

    @property
    def prev_num(self) -> int:
        return self.page - 1

    @property
    def next_num(self) -> int:
        return self.page + 1


def net_parts(league: League, player: Player, season: Season | None = None,
              scoring: str = "money") -> tuple[Decimal, Decimal]:
    """``player``'s net in the standings (``season``: its days; None: all time) and what
    their hands made of it: the rest is their side bets and what the pots gave back, which
    no hand holds (the hands behind the net, listed, sum to the second)."""
    check_scoring(scoring)
    mine = (PSS.league_id == league.id, PSS.player_id == player.id, PSS.scoring == scoring,
            *Window.of(season).where(PSS.played_at))
    net = db.session.scalar(select(func.coalesce(func.sum(PSS.net_minor), 0)).where(*mine))
    hands = db.session.scalar(select(func.coalesce(func.sum(HandEntry.amount_minor), 0)).where(
        HandEntry.player_id == player.id, HandEntry.scoring == scoring,
        HandEntry.session_id.in_(select(PSS.session_id).where(*mine))))
    return from_minor(net or 0), from_minor(hands or 0)


def hands_behind(league: League, player: Player, stat: str, season: Season | None = None,
                 scoring: str = "money", page: int = 1,
                 per_page: int = HANDS_PER_PAGE) -> Page:
    """The hands behind one of ``player``'s numbers in the standings (``stat`` as in
    :data:`STATS`: ``tonks_out`` → the hands they tonked out), newest first, one page.

    The sessions of the page are found from each session's count in PlayerSessionStat (the
    same numbers the standings add up); only those sessions' hand entries are read."""
    if stat not in STATS:
        raise LeagueError(Message("standings.stat", choices=", ".join(STATS), value=as_sent(stat)),
                          "stat")
    check_scoring(scoring)
    flag = STATS[stat]
    counted = getattr(PSS, FLAG_COUNTS[flag])
    per_session = db.session.execute(
        select(PSS.session_id, counted)
        .where(PSS.league_id == league.id, PSS.player_id == player.id, PSS.scoring == scoring,
               counted > 0, *Window.of(season).where(PSS.played_at))
        .order_by(PSS.played_at.desc(), PSS.session_id.desc())).all()
    total = sum(n for _, n in per_session)
    page = max(1, page)
    first, last = (page - 1) * per_page, page * per_page
    wanted: list[tuple[int, int, int]] = []  # (session, first and last of its hands wanted)
    seen = 0
    for session_id, n in per_session:
        if seen + n > first and seen < last:
            wanted.append((session_id, max(0, first - seen), min(n, last - seen)))
        seen += n
        if seen >= last:
            break
    if not wanted:
        return Page((), total, page, per_page)
    conditions = [HandEntry.session_id.in_([s for s, _, _ in wanted]),
                  HandEntry.player_id == player.id, HandEntry.scoring == scoring]
    if flag is not None:
        conditions.append(getattr(HandEntry, flag).is_(True))
    rows = db.session.execute(
        select(HandEntry, Hand.number, Hand.outcome, GameSession.name, GameSession.created_at)
        .join(Hand, Hand.id == HandEntry.hand_id)
        .join(GameSession, GameSession.id == HandEntry.session_id)
        .where(*conditions).order_by(Hand.number.desc())).all()
    by_session: dict[int, list[HandLine]] = defaultdict(list)
    for entry, number, outcome, name, played_at in rows:
        by_session[entry.session_id].append(HandLine(
            entry.session_id, name, played_at, number, outcome, entry.amount_minor,
            entry.won, entry.tonked_out, entry.drop_won, entry.caught))
    items = [line for session_id, start, stop in wanted
             for line in by_session[session_id][start:stop]]
    return Page(tuple(items), total, page, per_page)
