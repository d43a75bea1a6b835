"""Leagues: tables that meet again and again. The league service keeps a league's name,
default house rules and stake, its members, admins and seasons; and answers what the
league pages and API show: standings, the hands behind each number, a player's record,
head-to-head, and openskill ratings.

Standings and records add up :class:`~app.models.PlayerSessionStat` rows (one per player,
session and scoring, kept by the ledger with every change of a hand), never every hand:
standings are one SQL aggregate over them. Only the hands behind a number read hand
entries, one page at a time. Standings and records are remembered in the process under a
mark that moves with every change of a hand (see :func:`counted_mark`), so a page viewed
again reads almost nothing.

Seasons are ranges of days, both included, read as UTC days (a session counts on the day
it was started, in UTC). Money and points are integer hundredths here; the pages and the
API turn them into decimals. Errors are :class:`~app.core.errors.TonkError` subclasses with
messages for a person; :class:`LeagueNotFoundError` is a :class:`~app.ledger.NotFoundError`
(404 for pages and API: another account's league is simply not there).
"""
from __future__ import annotations

import itertools
import json
import secrets
import threading
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from datetime import time as day_start
from decimal import Decimal
from fractions import Fraction
from typing import Any, TypeVar

from openskill.models import PlackettLuce
from sqlalchemy import (
    DateTime,
    Integer,
    Select,
    and_,
    case,
    delete,
    func,
    literal,
    select,
    union_all,
)
from sqlalchemy.orm import aliased

from .accounts import normal_email
from .core import Rules, TonkError, resolve_rules
from .core.dates import parse_day
from .core.hand import parse_stake
from .core.names import MAX_NAME, clean_text, name_key
from .extensions import db
from .ledger import MAX_ID, NotFoundError, from_minor, parse_currency, rules_of, to_minor
from .models import (
    GameSession,
    Hand,
    HandEntry,
    HandVersion,
    League,
    LeagueAdmin,
    Player,
    PlayerSessionStat,
    Rating,
    Season,
    User,
    utcnow,
)
from .storage import begin_write

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


# -- finding ---------------------------------------------------------------------------------

def _id(value: Any) -> int | None:
    """A database id from a path, a query or a body; None for anything that is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    return value if isinstance(value, int) and 0 < value <= MAX_ID else None


def my_leagues(user: User) -> list[League]:
    """The leagues ``user`` runs (owns or is an admin of), by name."""
    return list(db.session.scalars(
        select(League).join(LeagueAdmin, LeagueAdmin.league_id == League.id)
        .where(LeagueAdmin.user_id == user.id).order_by(func.lower(League.name), League.id)))


def admin_league(user: User, league_id: Any) -> League:
    """The league ``league_id`` if ``user`` is one of its admins, else
    :class:`LeagueNotFoundError`."""
    found = _id(league_id)
    league = db.session.get(League, found) if found is not None else None
    if league is None or db.session.get(LeagueAdmin, (league.id, user.id)) is None:
        raise LeagueNotFoundError(f"there is no league {league_id} that you run", "league")
    return league


def get_member(league: League, player_id: Any) -> Player:
    found = _id(player_id)
    player = db.session.get(Player, found) if found is not None else None
    if player is None or player.league_id != league.id:
        raise LeagueNotFoundError(f"there is no member {player_id} in this league", "player")
    return player


def get_season(league: League, season_id: Any) -> Season:
    found = _id(season_id)
    season = db.session.get(Season, found) if found is not None else None
    if season is None or season.league_id != league.id:
        raise LeagueNotFoundError(f"there is no season {season_id} in this league", "season")
    return season


def league_rules(league: League) -> Rules:
    return rules_of(league.rules_json)


def league_stake(league: League) -> Decimal:
    """The default stake, as the league's scoring writes it (whole under points)."""
    stake = from_minor(league.stake_minor)
    return stake if league_rules(league).scoring == "money" else stake.quantize(Decimal(1))


def members(league: League) -> list[Player]:
    return list(db.session.scalars(select(Player).where(Player.league_id == league.id)
                                   .order_by(func.lower(Player.name), Player.id)))


def admins(league: League) -> list[User]:
    """The league's admins, its owner first."""
    users = db.session.scalars(select(User).join(LeagueAdmin, LeagueAdmin.user_id == User.id)
                               .where(LeagueAdmin.league_id == league.id)
                               .order_by(func.lower(User.email)))
    return sorted(users, key=lambda u: u.id != league.owner_id)


def current_season(league: League, today: date | None = None) -> Season | None:
    """The season under way today (the latest-starting one, if several are)."""
    today = today or utcnow().date()
    running = [s for s in league.seasons if s.starts_on <= today <= s.ends_on]
    return max(running, key=lambda s: (s.starts_on, s.id)) if running else None


# -- changing a league -----------------------------------------------------------------------

@dataclass(frozen=True)
class _Table:
    """A league's validated defaults: rules (JSON text), stake and currency."""

    rules_json: str
    stake_minor: int
    currency: str


def _defaults(rules: Any, stake: Any, currency: Any) -> _Table:
    resolved = resolve_rules(rules)
    amount = parse_stake(stake, resolved)
    return _Table(json.dumps(resolved.to_json()), to_minor(amount), parse_currency(currency))


def _name(value: Any) -> str:
    return clean_text(value, LeagueError, "name", "the league's name", MAX_LEAGUE_NAME)


def create_league(user: User, *, name: Any, rules: Any = "pagat", stake: Any = None,
                  currency: Any = None) -> League:
    """A new league run by ``user``: its owner and first admin."""
    name = _name(name)
    table = _defaults(rules, stake, currency)
    league = League(name=name, owner_id=user.id, rules_json=table.rules_json,
                    stake_minor=table.stake_minor, currency=table.currency,
                    share_token=secrets.token_urlsafe(16), created_at=utcnow())
    db.session.add(league)
    db.session.flush()
    db.session.add(LeagueAdmin(league_id=league.id, user_id=user.id))
    db.session.commit()
    return league


def edit_league(league: League, *, name: Any, rules: Any, stake: Any = None,
                currency: Any = None) -> None:
    """A new name, and new defaults for the sessions started from now on."""
    name = _name(name)
    table = _defaults(rules, stake, currency)
    league.name, league.rules_json = name, table.rules_json
    league.stake_minor, league.currency = table.stake_minor, table.currency
    db.session.commit()


def add_admin(league: League, email: Any) -> User:
    """Let the account with this email run the league too."""
    try:
        address = normal_email(email)
    except TonkError as exc:
        raise LeagueError(exc.message, "email") from None
    user: User | None = db.session.scalar(
        select(User).where(func.lower(User.email) == address))
    if user is None:
        raise LeagueError(f"there is no account with the email {address}: they sign up "
                          f"first", "email")
    if db.session.get(LeagueAdmin, (league.id, user.id)) is not None:
        raise LeagueError(f"{address} already runs this league", "email")
    db.session.add(LeagueAdmin(league_id=league.id, user_id=user.id))
    db.session.commit()
    return user


def remove_admin(league: League, user_id: Any) -> None:
    found = _id(user_id)
    admin = db.session.get(LeagueAdmin, (league.id, found)) if found is not None else None
    if admin is None:
        raise LeagueNotFoundError(f"there is no admin {user_id} in this league", "admin")
    if admin.user_id == league.owner_id:
        raise LeagueError("the league's owner always runs it", "admin")
    db.session.delete(admin)
    db.session.commit()


def _member_name(league: League, value: Any, keep: Player | None = None) -> str:
    name = clean_text(value, LeagueError, "name", "the member's name", MAX_NAME)
    taken = db.session.scalar(select(Player).where(
        Player.league_id == league.id, Player.name_key == name_key(name)))
    if taken is not None and taken is not keep:
        raise LeagueError(f"{taken.name} is already a member of this league", "name")
    return name


def add_member(league: League, user: User, name: Any) -> Player:
    """A new member (names are unique in a league, whatever their case or Unicode form)."""
    player = Player(owner_id=user.id, league_id=league.id, name=_member_name(league, name))
    db.session.add(player)
    db.session.commit()
    return player


def rename_member(league: League, player_id: Any, name: Any) -> Player:
    """A member's new name, for the league's pages and the sessions to come; the sessions
    already played keep the name they were played under."""
    player = get_member(league, player_id)
    player.name = _member_name(league, name, keep=player)
    db.session.commit()
    return player


def _day(value: Any, field: str, what: str) -> date:
    return parse_day(value, LeagueError, field, what)


def add_season(league: League, *, name: Any, starts_on: Any, ends_on: Any) -> Season:
    """A season: a name and its first and last day (both included). Seasons may overlap."""
    name = clean_text(name, LeagueError, "name", "the season's name", MAX_SEASON_NAME)
    first = _day(starts_on, "starts_on", "the first day")
    last = _day(ends_on, "ends_on", "the last day")
    if last < first:
        raise LeagueError(f"the season cannot end ({last}) before it starts ({first})",
                          "ends_on")
    season = Season(league_id=league.id, name=name, starts_on=first, ends_on=last)
    db.session.add(season)
    db.session.commit()
    db.session.refresh(league)
    return season


def remove_season(league: League, season_id: Any) -> None:
    """Drop a season (a date range only: no session or hand changes)."""
    db.session.delete(get_season(league, season_id))
    db.session.commit()
    db.session.refresh(league)


def session_table(user: User, data: Mapping[str, Any]) -> dict[str, Any]:
    """For a new session that may name a league: the checked league id, and the rules,
    stake and currency sent, the league's defaults filling in what is not."""
    table = {k: data.get(k) for k in ("rules", "stake", "currency")}
    if data.get("league") is None:
        return {"league_id": None, **table}
    league = admin_league(user, data["league"])
    defaults = {"rules": json.loads(league.rules_json), "stake": str(league_stake(league)),
                "currency": league.currency}
    return {"league_id": league.id,
            **{k: defaults[k] if v is None else v for k, v in table.items()}}


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


def _names(league: League) -> dict[int, str]:
    """The members' names, by id (read fresh: a rename shows at once)."""
    return {player_id: name for player_id, name in db.session.execute(
        select(Player.id, Player.name).where(Player.league_id == league.id))}


def _standings_by_scoring(league: League, window: Window) -> dict[str, list[Standing]]:
    def numbers() -> dict[str, list[tuple[int, ...]]]:
        found: dict[str, list[tuple[int, ...]]] = defaultdict(list)
        for player_id, scoring, *sums in db.session.execute(_aggregate(league, window)):
            found[scoring].append((player_id, *(int(n) for n in sums)))
        return dict(found)

    names = _names(league)
    return {scoring: [Standing(p, names.get(p, "?"), *sums) for p, *sums in rows]
            for scoring, rows in _remembered(
                ("standings", league.uid, window.start, window.end), numbers).items()}


def _placed(rows: Iterable[Standing], scoring: str) -> list[Standing]:
    """Places by net, best first; equal nets share a place (1, 2, 2, 4)."""
    ordered = sorted(rows, key=lambda r: (-r.net_minor if best_first(scoring)
                                          else r.net_minor, r.name.casefold()))
    placed: list[Standing] = []
    for i, row in enumerate(ordered):
        same = placed and placed[-1].net_minor == row.net_minor
        placed.append(replace(row, place=placed[-1].place if same else i + 1))
    return placed


def _check_sort(column: str, direction: str | None, columns: Sequence[str]) -> None:
    if column not in columns:
        raise LeagueError(f"sort by one of {', '.join(columns)}, not {column!r}", "sort")
    if direction not in (None, "asc", "desc"):
        raise LeagueError(f"the direction is asc or desc, not {direction!r}", "dir")


def _check_scoring(scoring: str | None) -> None:
    if scoring is not None and scoring not in SCORINGS:
        raise LeagueError(f"the scoring is one of {', '.join(SCORINGS)}, not {scoring!r}",
                          "scoring")


def sort_rows(rows: Sequence[Standing], column: str, direction: str) -> list[Standing]:
    """``rows`` sorted by ``column``; equal values keep the order of places, then names."""
    _check_sort(column, direction, SORTS)
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
    _check_scoring(scoring)
    _check_sort(sort, direction, SORTS)
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
class HandsPage:
    """One page of the hands behind a standings number, newest first."""

    items: tuple[HandLine, ...]
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


def hands_behind(league: League, player: Player, stat: str, season: Season | None = None,
                 scoring: str = "money", page: int = 1,
                 per_page: int = HANDS_PER_PAGE) -> HandsPage:
    """The hands behind one of ``player``'s numbers in the standings (``stat`` as in
    :data:`STATS`: ``tonks_out`` → the hands they tonked out), newest first, one page.

    The sessions of the page are found from each session's count in PlayerSessionStat (the
    same numbers the standings add up); only those sessions' hand entries are read."""
    if stat not in STATS:
        raise LeagueError(f"the number is one of {', '.join(STATS)}, not {stat!r}", "stat")
    _check_scoring(scoring)
    flag = STATS[stat]
    counted = getattr(PSS, _FLAG_COUNTS[flag])
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
        return HandsPage((), total, page, per_page)
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
    return HandsPage(tuple(items), total, page, per_page)


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
    from .web.chart import downsample  # the chart's own thinning (a pure function)

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
    _check_scoring(scoring)
    seasons = list(league.seasons)
    key = ("record", league.uid, player.id, scoring, league_scoring(league), top, points,
           tuple((s.id, s.starts_on, s.ends_on) for s in seasons))
    found = _remembered(key, lambda: _record_numbers(league, player.id, scoring, seasons,
                                                     top, points))
    names = _names(league)

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
                       _names(league))


# -- ratings ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class RatingRow:
    """A member's skill: openskill's mu and its uncertainty sigma; ``ordinal`` (mu − 3σ) is
    the cautious figure the table sorts by."""

    player_id: int
    name: str
    mu: float
    sigma: float
    sessions: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


def _ranks(results: Sequence[tuple[int, int]], scoring: str) -> list[int]:
    """Each player's place (1 best; equal results share a place) from (player, net)."""
    sign = -1 if best_first(scoring) else 1
    return [1 + sum(sign * other < sign * net for _, other in results)
            for _, net in results]


def _session_results(rows: Iterable[Any]) -> tuple[str, list[tuple[int, int]]] | None:
    """A session's PlayerSessionStat rows → (scoring, [(player, net)]) under the scoring
    most of its hands were played under; None if fewer than two players counted."""
    by_scoring: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        by_scoring[row.scoring].append(row)
    if not by_scoring:
        return None
    scoring = max(by_scoring, key=lambda s: (max(r.hands for r in by_scoring[s]),
                                             -SCORINGS.index(s)))
    results = sorted((r.player_id, r.net_minor) for r in by_scoring[scoring])
    return (scoring, results) if len(results) >= 2 else None


def _rate(ratings: dict[int, tuple[float, float, int]], scoring: str,
          results: Sequence[tuple[int, int]]) -> None:
    """One match: every player of the session a team of one, ranked by their result."""
    teams = [[_MODEL.rating(*ratings[p][:2]) if p in ratings else _MODEL.rating()]
             for p, _ in results]
    rated = _MODEL.rate(teams, ranks=[float(r) for r in _ranks(results, scoring)])
    for (player_id, _), [after] in zip(results, rated, strict=True):
        sessions = ratings[player_id][2] if player_id in ratings else 0
        ratings[player_id] = (after.mu, after.sigma, sessions + 1)


def _stat_rows(*conditions: Any) -> Any:
    """Each counted player's result in the sessions the conditions pick."""
    return (select(PSS.session_id, PSS.player_id, PSS.scoring, PSS.net_minor, PSS.hands)
            .where(PSS.hands > 0, *conditions))


def rate_session(gs: GameSession) -> None:
    """Update the ratings of a league session's players from their results in it (called
    as it closes; the caller commits). A session with fewer than two players' hands
    counted changes nothing."""
    if gs.league_id is None:
        return
    match = _session_results(db.session.execute(_stat_rows(PSS.session_id == gs.id)))
    if match is None:
        return
    scoring, results = match
    stored = {r.player_id: r for r in db.session.scalars(select(Rating).where(
        Rating.league_id == gs.league_id, Rating.player_id.in_([p for p, _ in results]))
        .with_for_update())}
    ratings = {p: (r.mu, r.sigma, r.sessions) for p, r in stored.items()}
    _rate(ratings, scoring, results)
    now = utcnow()
    for player_id, (mu, sigma, sessions) in ratings.items():
        row = stored.get(player_id)
        if row is None:
            db.session.add(Rating(league_id=gs.league_id, player_id=player_id, mu=mu,
                                  sigma=sigma, sessions=sessions, updated_at=now))
        else:
            row.mu, row.sigma, row.sessions, row.updated_at = mu, sigma, sessions, now


def rerate_league(league: League) -> None:
    """Rate the league afresh: every closed session replayed in the order it was played
    (then by id), from the model's starting rating. Deterministic; commits. Under the
    league's lock, as a session closing is (no rating is lost between read and write)."""
    begin_write()
    db.session.get(League, league.id, with_for_update=True)
    rows = db.session.execute(
        _stat_rows(GameSession.league_id == league.id, GameSession.closed_at.is_not(None),
                   PSS.league_id == league.id)
        .join(GameSession, GameSession.id == PSS.session_id)
        .order_by(GameSession.created_at, GameSession.id, PSS.player_id, PSS.scoring)).all()
    ratings: dict[int, tuple[float, float, int]] = {}
    start = 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or rows[i].session_id != rows[start].session_id:
            match = _session_results(rows[start:i])
            if match is not None:
                _rate(ratings, *match)
            start = i
    db.session.execute(delete(Rating).where(Rating.league_id == league.id))
    now = utcnow()
    db.session.add_all(Rating(league_id=league.id, player_id=p, mu=mu, sigma=sigma,
                              sessions=n, updated_at=now)
                       for p, (mu, sigma, n) in ratings.items())
    db.session.commit()


RATING_SORTS = ("player", "ordinal", "mu", "sigma", "sessions")


def ratings(league: League, sort: str = "ordinal", direction: str = "desc") -> list[RatingRow]:
    """The league's ratings, best skill (ordinal) first unless sorted otherwise."""
    _check_sort(sort, direction, RATING_SORTS)
    rows = [RatingRow(r.player_id, name, r.mu, r.sigma, r.sessions)
            for r, name in db.session.execute(
                select(Rating, Player.name).join(Player, Player.id == Rating.player_id)
                .where(Rating.league_id == league.id))]

    def key(row: RatingRow) -> Any:
        return row.name.casefold() if sort == "player" else getattr(row, sort)

    by_skill = sorted(rows, key=lambda r: (-r.ordinal, r.name.casefold()))
    return sorted(by_skill, key=key, reverse=direction == "desc")


# -- the league's sessions -------------------------------------------------------------------

def sessions_query(league: League) -> Select[Any]:
    """The league's sessions, newest first (for a paged list)."""
    return (select(GameSession).where(GameSession.league_id == league.id)
            .order_by(GameSession.created_at.desc(), GameSession.id.desc()))
