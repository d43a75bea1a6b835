"""The rounds of an event: the draw, its tables (each a session under the event's rules),
the tables' scorekeeping links, and closing a round.

A round's draw seats every active player once (:func:`app.core.draw.draw_round`): round one
at random from its seed, later rounds by the standings with players who already met kept
apart where possible. Each table becomes an ordinary session of the director's, naming its
event and round; its scorekeeping link lets one phone record there while the round is open.
"""
from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.exc import IntegrityError

from ...core.draw import draw_round, pairs_of
from ...core.messages import Message, as_sent, join_and
from ...core.money import stake_of
from ...core.names import name_key
from ...core.placings import Record, standings
from ...db.ids import MAX_ID
from ...db.models import Event, EventPlayer, EventRound, EventTable, GameSession, User, utcnow
from ...extensions import db
from ..errors import EventConflictError, EventError
from ..sessions import (
    close_session,
    counted_hands,
    findable_token,
    hand_limits,
    money_of,
    new_share_token,
    start_session,
)
from .setup import EventNotFoundError, active_players, event_rules, locked
from .standings import seated_at, standings_of

MAX_SEED = 2**53 - 1  # exact in every JSON reader
MAX_SESSION_NAME = 80


def open_round(event: Event) -> EventRound | None:
    """The round being played, if one is."""
    return next((r for r in event.round_rows if r.closed_at is None), None)


def get_round(event: Event, number: Any) -> EventRound:
    if not isinstance(number, int) or isinstance(number, bool) or not 0 < number <= MAX_ID:
        raise EventNotFoundError(Message("event.no_round", number=number), "round")
    found = next((r for r in event.round_rows if r.number == number), None)
    if found is None:
        raise EventNotFoundError(Message("event.no_round", number=number), "round")
    return found


def _seed(value: Any) -> int:
    if value is None:
        return secrets.randbelow(2**31)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        raise EventError(Message("event.seed", most=MAX_SEED, value=as_sent(value)), "seed")
    return value


def _session_name(event: Event, number: int, table: int) -> str:
    tail = f" · R{number} T{table}"
    return event.name[:MAX_SESSION_NAME - len(tail)].rstrip() + tail


#: What a draw does with players whose entry fee is not marked paid: seat them anyway, or
#: leave them out of this round (they stay checked in; the next draw asks again).
UNPAID = ("draw", "leave_out")


def owes_fee(event: Event, player: EventPlayer) -> bool:
    """Whether ``player``'s entry fee is not marked paid (never, when the event has none)."""
    return bool(event.fee_minor) and player.paid_minor <= 0


def unpaid_players(event: Event) -> list[str]:
    """The players the next draw would seat whose entry fee is not marked paid (none when
    the event has no fee)."""
    return [p.name for p in active_players(event) if owes_fee(event, p)]


def _drawn_names(event: Event, unpaid: Any) -> list[str]:
    """The names the draw seats: every active player, but those whose fee is not paid when
    the director leaves them out; with such players and no choice made, the draw is refused
    naming them (409), so that nobody is seated unpaid without the director knowing."""
    owing = unpaid_players(event)
    if unpaid not in (None, *UNPAID):
        raise EventError(Message("event.unpaid_choice", value=as_sent(unpaid)), "unpaid")
    if owing and unpaid is None:
        raise EventConflictError(Message("event.unpaid", players=join_and(owing)), "unpaid")
    left_out = set(owing) if unpaid == "leave_out" else set()
    return [p.name for p in active_players(event) if p.name not in left_out]


def draw_next_round(event: Event, user: User, seed: Any = None,
                    unpaid: Any = None) -> EventRound:
    """Draw the next round and start its tables; 409 while a round is open, when every
    round is drawn, or when players whose fee is not paid would be seated and ``unpaid``
    does not say what to do with them (:data:`UNPAID`)."""
    chosen = _seed(seed)
    event = locked(event)
    playing = open_round(event)
    if playing is not None:
        raise EventConflictError(Message("event.round_open", number=playing.number), "round")
    if len(event.round_rows) >= event.rounds:
        raise EventConflictError(Message("event.all_drawn", rounds=event.rounds), "round")
    names = _drawn_names(event, unpaid)
    if event.round_rows:
        placed = [s.record.player for s in standings_of(event)]
        standing = [n for n in placed if n in names] + [n for n in names if n not in placed]
        met = pairs_of(seated_at(event))
        drawn = draw_round(names, event.table_size, chosen, standing=standing, met=met)
    else:
        drawn = draw_round(names, event.table_size, chosen)
    number = len(event.round_rows) + 1
    this = EventRound(number=number, seed=chosen, created_at=utcnow(), forced=False)
    try:
        with db.session.begin_nested():  # (a refusal takes back this round alone)
            event.round_rows.append(this)
    except IntegrityError:  # drawn at the same moment by another request
        raise EventConflictError(Message("event.round_open", number=number),
                                 "round") from None
    rules = json.loads(event.rules_json)
    stake = str(session_stake_of(event))
    round_id = this.id
    for table in drawn.tables:
        gs = start_session(user, name=_session_name(event, number, table.number),
                            players=list(table.players), rules=rules, stake=stake,
                            currency=event.currency, first_dealer=table.dealer,
                            league_id=event.league_id)
        db.session.add(EventTable(round_id=round_id, number=table.number, session_id=gs.id,
                                  keeper_token=new_share_token()))
    db.session.flush()  # the round and every table of it, or nothing
    return get_round(event, number)


def session_stake_of(event: Event) -> Decimal:
    """The stake every table of the event plays for (a point under points scoring)."""
    return stake_of(event.stake_minor, event_rules(event))


def table_done(event: Event, table: EventTable) -> bool:
    """Whether the table has played the round's hands (and can record no more)."""
    return counted_hands(table.session) >= event.hands_per_round


#: A table's round's hands, by the table's session: a plain statement built once (asked
#: before every hand any session records; a session that is no table finds no row).
_EVENTS, _ROUNDS, _TABLES = Event.__table__, EventRound.__table__, EventTable.__table__
_ROUND_LIMIT = (select(_EVENTS.c.hands_per_round)
                .join(_ROUNDS, _ROUNDS.c.event_id == _EVENTS.c.id)
                .join(_TABLES, _TABLES.c.round_id == _ROUNDS.c.id)
                .where(_TABLES.c.session_id == bindparam("session_id")))


def round_limit(gs: GameSession) -> int | None:
    """The hands a tournament table's round allows it (None: ``gs`` is no table): asked by
    the ledger under the session's lock before a hand would count (its hook
    :data:`~app.services.sessions.ledger.hand_limits`), on every path that records."""
    most: int | None = db.session.connection().execute(
        _ROUND_LIMIT, {"session_id": gs.id}).scalar()
    return most


hand_limits.append(round_limit)


def close_round(event: Event, number: Any, force: Any = False) -> EventRound:
    """Close round ``number``: 409 naming the tables short of the hands per round unless
    ``force``. Its tables' sessions close too (under points their totals are settled by the
    event; under money what is still open is kept as debts)."""
    if force is None:
        force = False
    if not isinstance(force, bool):
        raise EventError(Message("event.force"), "force")
    this = get_round(event, number)
    if this.closed_at is not None:
        raise EventConflictError(Message("event.round_closed", number=this.number), "round")
    short = [t.number for t in this.tables if not table_done(event, t)]
    if short and not force:
        raise EventConflictError(
            Message("event.short_table", table=short[0], hands=event.hands_per_round)
            if len(short) == 1 else
            Message("event.short_tables", tables=join_and(short), hands=event.hands_per_round),
            "force")
    money = event_rules(event).scoring == "money"
    for table in this.tables:
        if not table.session.is_closed:
            close_session(table.session, carry_over=money, settled_elsewhere=not money)
    event = locked(event)
    this = get_round(event, this.number)
    if this.closed_at is None:
        this.closed_at = utcnow()
        this.forced = bool(short)
    db.session.flush()
    return this


# -- the tables' scorekeeping links ----------------------------------------------------------

def linked_table(token: str) -> EventTable:
    """The table a scorekeeping link is for, its round open or over."""
    table: EventTable | None = db.session.scalar(
        select(EventTable).where(EventTable.keeper_token == token)) \
        if findable_token(token) else None
    if table is None:
        raise EventNotFoundError(Message("event.link_unknown"))
    return table


def round_over(table: EventTable) -> bool:
    """Whether the table's round is over (its link records nothing more)."""
    return table.round.closed_at is not None or table.session.is_closed


def keeper_table(token: str) -> EventTable:
    """The table a scorekeeping link is for, while its round is open."""
    table = linked_table(token)
    if round_over(table):
        raise EventConflictError(Message("event.link_closed", number=table.round.number))
    return table


@dataclass(frozen=True)
class TableResult:
    """How a table's round ended, for its players: their places at the table (ties share
    one) with their totals, their places in the event so far, and the table each sits at
    in the next round once it is drawn (None before)."""

    places: list[tuple[int, str, Decimal]]
    event_places: list[tuple[int, str]]
    next_round: int | None
    next_tables: dict[str, int]


def table_result(table: EventTable) -> TableResult:
    """A table's round as it ended (:class:`TableResult`): the totals as the table's page
    shows them (:func:`app.services.sessions.money_of`), ranked as the standings rank."""
    event = table.round.event
    money = money_of(table.session, parts=False)
    ranked = standings([Record(name, (m.total,)) for name, m in money.items()])
    keys = {name_key(name) for name in money}
    event_places = [(p.place, p.record.player) for p in standings_of(event)
                    if name_key(p.record.player) in keys]
    after = next((r for r in event.round_rows if r.number == table.round.number + 1), None)
    next_tables = {} if after is None else {
        name: other.number for other in after.tables
        for name in (s.name for s in other.session.seats) if name_key(name) in keys}
    return TableResult([(p.place, p.record.player, p.record.total) for p in ranked],
                       event_places, None if after is None else after.number, next_tables)


@dataclass(frozen=True, slots=True)
class KeeperAuthor:
    """A table's scorekeeping link as the hands' history names it: on behalf of the
    director's account, named by its table and round."""

    id: int
    name: str


def keeper_author(table: EventTable) -> KeeperAuthor:
    return KeeperAuthor(table.round.event.owner_id,
                        f"Table {table.number}, round {table.round.number} (link)")


def get_table(event: Event, number: Any, table: Any) -> EventTable:
    this = get_round(event, number)
    found = next((t for t in this.tables if t.number == table), None)
    if found is None:
        raise EventNotFoundError(Message("event.no_table", table=table), "table")
    return found


def replace_keeper_link(event: Event, number: Any, table: Any) -> EventTable:
    """A new scorekeeping link for a table: the old one stops working at once."""
    event = locked(event)
    found = get_table(event, number, table)
    found.keeper_token = new_share_token()
    db.session.flush()
    return found


def table_of_session(gs: GameSession) -> EventTable | None:
    """The event table ``gs`` is, if it is one."""
    return db.session.scalar(select(EventTable).where(EventTable.session_id == gs.id))
