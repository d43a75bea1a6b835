"""The event endpoints of the JSON API (docs/api.md, its tournaments): set an event up, check
players in and out, draw and close rounds, read the standings and the prize list.

Thin: read the body, call :mod:`app.services.events`, answer JSON. Every write honours
``Idempotency-Key`` (``token_required``); errors are answered in ``errors.py``.
"""
from __future__ import annotations

import json
from decimal import Decimal
from typing import Annotated, Any, ClassVar

from flask import Response, jsonify, url_for
from pydantic import Field, SkipValidation, WithJsonSchema, with_config
from typing_extensions import TypedDict

from ..core.draw import LARGEST_TABLE, SMALLEST_TABLE
from ..core.messages import Message
from ..core.money import from_minor, money_data
from ..core.placings import TIE_BREAKS, tie_break_words
from ..db.models import Event, EventRound, EventTable, GameSession, User
from ..services import events as service
from ..services.events import MAX_HANDS, MAX_ROUNDS, MAX_SEED, SCORINGS, UNPAID
from .answers import AtEventJson, DeletedJson, ErrorJson
from .door import ABSENT, Body, api, needed
from .kinds import (
    AMOUNT_TEXT,
    DAY,
    DOCSTRINGS,
    Count,
    Currency,
    Flag,
    Id,
    Key,
    Money,
    Rules,
    Word,
    choice,
)
from .params import EVENT_ID, EVENT_PLAYER, ROUND, TABLE
from .routes import created

_AMOUNT = [AMOUNT_TEXT, {"type": "number"}]
_SHARES = {"type": "array", "minItems": 1, "maxItems": 50, "items": {"anyOf": _AMOUNT},
           "description": "Shares of the pool for places 1, 2, …; they add up to 1."}
_FIXED = {"type": "object", "required": ["fixed"], "additionalProperties": False,
          "properties": {"fixed": {**_SHARES, "description": "Fixed amounts for places 1, 2, "
                                   "…; what they leave of the pool goes to first."}}}
E, R = (EVENT_ID,), (EVENT_ID, ROUND)


_Count = SkipValidation[int]
_NullAmount = Annotated[Any, WithJsonSchema({"anyOf": [*_AMOUNT, {"type": "null"}]})]
_Prizes = Annotated[Any, WithJsonSchema({"anyOf": [_SHARES, _FIXED, {"type": "null"}]})]
_Scoring = Annotated[Any, WithJsonSchema(
    {"anyOf": [{"type": "string", "enum": list(SCORINGS)}, {"type": "null"}]})]
_TieBreaks = Annotated[Any, WithJsonSchema({"anyOf": [{
    "type": "array", "uniqueItems": True, "items": {"type": "string", "enum": list(TIE_BREAKS)}},
    {"type": "null"}]})]


class NewEvent(Body):
    """An event to set up."""

    what: ClassVar[str] = "an event"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"name": "Malone Open", "rules": "pagat", "currency": "USD", "table_size": 4,
         "rounds": 3, "hands_per_round": 8, "entry_fee": "20", "prizes": ["0.5", "0.3", "0.2"]},)
    name: Word = needed()
    rules: Rules = ABSENT
    currency: Currency = ABSENT
    table_size: _Count = needed(ge=SMALLEST_TABLE, le=LARGEST_TABLE)
    rounds: _Count = needed(ge=1, le=MAX_ROUNDS)
    hands_per_round: _Count = needed(ge=1, le=MAX_HANDS)
    entry_fee: _NullAmount = Field(
        ABSENT, description="Each player's fee, in the currency; default 0.")
    prizes: _Prizes = Field(ABSENT, description="Default: 0.5, 0.3, 0.2.")
    league: SkipValidation[Id | None] = Field(
        ABSENT, description="A league you run: its results count there.")
    scoring: _Scoring = Field(ABSENT, description=(
        "points (default): hands count in stake units, no money at the tables; money: paid "
        "at each table."))
    house_share: _NullAmount = Field(
        ABSENT, description="The house's share of the fees, 0 to under 1.")
    stake: _NullAmount = Field(ABSENT, description="The tables' stake; default 1.")
    held_on: Annotated[Any, WithJsonSchema({**DAY, "type": ["string", "null"]})] = ABSENT
    tie_breaks: _TieBreaks = Field(ABSENT, description=(
        "Applied in order when totals are equal; none: tied players share a place."))


class EventChange(NewEvent):
    """An event's settings to change: any of a new event's; those not sent stay as they are."""

    what: ClassVar[str] = "an event's settings"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"entry_fee": "25", "rounds": 4},)
    optional: ClassVar[bool] = True
    name: Word = ABSENT
    table_size: _Count = Field(ABSENT, ge=SMALLEST_TABLE, le=LARGEST_TABLE)
    rounds: _Count = Field(ABSENT, ge=1, le=MAX_ROUNDS)
    hands_per_round: _Count = Field(ABSENT, ge=1, le=MAX_HANDS)


class CheckIn(Body):
    """A player checked in."""

    what: ClassVar[str] = "a check-in"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"name": "Ann", "paid": True},)
    name: Word = needed()
    paid: SkipValidation[bool | None] = False


class Fee(Body):
    """A player's fee, paid or not."""

    what: ClassVar[str] = "a player's fee"
    paid: Flag = needed()


class DrawBody(Body):
    """The next round to draw; the body may be empty."""

    what: ClassVar[str] = "a draw"
    optional: ClassVar[bool] = True
    seed: SkipValidation[Annotated[int, Field(ge=0, le=MAX_SEED)] | None] = Field(
        ABSENT, description="Draw from this seed (repeatable); default: a random one, "
                            "answered.")
    unpaid: Annotated[Any, WithJsonSchema(
        {"type": ["string", "null"], "enum": [*UNPAID, None]})] = Field(
        ABSENT, description="With an entry fee not marked paid for some players: seat them "
                            "anyway (draw) or leave them out of this round (leave_out); "
                            "without it such a draw is refused (409, field unpaid, naming "
                            "them).")


class CloseRound(Body):
    """A round to close; the body may be empty."""

    what: ClassVar[str] = "closing a round"
    optional: ClassVar[bool] = True
    force: SkipValidation[bool | None] = Field(
        False, description="Close although tables played fewer hands.")

# -- answers ---------------------------------------------------------------------------------

@with_config(DOCSTRINGS)
class EventPlayerJson(TypedDict):
    """A player checked in."""

    name: str
    paid: bool
    """The entry fee is paid (or there is none)."""
    withdrawn: bool


@with_config(DOCSTRINGS)
class EventTableJson(TypedDict):
    """A table of a round."""

    table: Key
    session: Key
    """The table's session."""
    players: list[str]
    dealer: str
    link: str
    """The table's scorekeeping link: it records, corrects and voids hands at this table
    while the round is open, with no account."""
    hands: Count
    done: bool
    """It has played the round's hands."""
    closed: bool


@with_config(DOCSTRINGS)
class EventRoundJson(TypedDict):
    """A round: its seat draw's seed and its tables."""

    round: Key
    seed: int
    closed: bool
    forced: bool
    """Closed although tables played fewer hands."""
    tables: list[EventTableJson]


@with_config(DOCSTRINGS)
class FixedPrizesJson(TypedDict):
    """Prizes of fixed amounts, first place first."""

    fixed: list[Money]


@with_config(DOCSTRINGS)
class EventJson(TypedDict):
    """An event: its settings, players, rounds and state."""

    id: Key
    name: str
    held_on: Annotated[str, WithJsonSchema(DAY)]
    rules: Rules
    scoring: Annotated[str, choice(SCORINGS)]
    currency: str
    stake: Money
    """The stake the tables play at."""
    table_size: int
    rounds: int
    hands_per_round: int
    entry_fee: Money
    house_share: str
    """The house's share of the fees, a decimal fraction (0.1: a tenth)."""
    prizes: list[str] | FixedPrizesJson
    """Each place's share of the pool, or fixed amounts."""
    tie_breaks: list[str]
    league: Key | None
    state: Annotated[str, choice(["checking_in", "playing", "between_rounds", "finished"])]
    players: list[EventPlayerJson]
    rounds_played: list[EventRoundJson]
    board: str
    """The TV leaderboard's link."""


@with_config(DOCSTRINGS)
class PlacingJson(TypedDict):
    """A player's place in the standings."""

    place: Key
    player: str
    total: str
    hands: Count
    rounds: list[str]
    """The total of each round (0 for a round they did not sit in: see ``sat_in``)."""
    sat_in: list[bool]
    """Whether they sat in each round (a late arrival, a withdrawal)."""
    won: Count
    """Hands won."""
    caught: Count
    """Times caught."""


@with_config(DOCSTRINGS)
class EventStandingsJson(TypedDict):
    """The standings, best first, and the tie-breaks in the order they apply."""

    standings: list[PlacingJson]
    tie_breaks: list[str]


@with_config(DOCSTRINGS)
class PrizeJson(TypedDict):
    """A place's prize."""

    place: Key
    players: list[str]
    """Who share the place."""
    amount: Money
    """What each of the players receives."""


@with_config(DOCSTRINGS)
class PrizesJson(TypedDict):
    """The prize list: the fees, the house's part, the pool and each place's prize."""

    fees: Money
    house: Money
    pool: Money
    currency: str
    prizes: list[PrizeJson]
    rule: str
    """How ties share a prize."""


KEEPER_PATH = "/t/{token}"  # the table's scorekeeping page (web.keeper), for the phone
BOARD_PATH = "/board/{token}"  # the TV leaderboard (web.board)


def _money(event: Event) -> Any:
    return lambda amount: money_data(Decimal(amount), event.currency)


def _points(event: Event) -> Any:
    return (lambda amount: str(amount)) if service.event_rules(
        event).scoring != "money" else _money(event)


def keeper_link(table: EventTable) -> str:
    return KEEPER_PATH.format(token=table.keeper_token)


def table_json(event: Event, table: EventTable) -> EventTableJson:
    gs = table.session
    return {"table": table.number, "session": gs.id,
            "players": [s.name for s in gs.seats], "dealer": gs.dealer,
            "link": keeper_link(table), "hands": gs.hand_count - gs.voided_hands,
            "done": service.table_done(event, table), "closed": gs.is_closed}


def round_json(event: Event, this: EventRound) -> EventRoundJson:
    return {"round": this.number, "seed": this.seed, "closed": this.closed_at is not None,
            "forced": this.forced, "tables": [table_json(event, t) for t in this.tables]}


def event_json(event: Event) -> EventJson:
    """The event: its settings, players, rounds and state."""
    money = _money(event)
    payout = service.payout_of(event)
    playing = service.open_round(event)
    drawn = len(event.round_rows)
    if playing is not None:
        state = "playing"
    elif service.is_final(event):
        state = "finished"
    else:
        state = "checking_in" if drawn == 0 else "between_rounds"
    return {
        "id": event.id, "name": event.name, "held_on": event.held_on.isoformat(),
        "rules": json.loads(event.rules_json), "scoring": service.event_rules(event).scoring,
        "currency": event.currency, "stake": money(from_minor(event.stake_minor)),
        "table_size": event.table_size, "rounds": event.rounds,
        "hands_per_round": event.hands_per_round, "entry_fee": money(from_minor(event.fee_minor)),
        "house_share": event.house_share,
        "prizes": [str(a) for a in payout.amounts] if payout.kind == "shares"
        else {"fixed": [money(a) for a in payout.amounts]},
        "tie_breaks": list(service.tie_breaks_of(event)),
        "league": event.league_id, "state": state,
        "players": [{"name": p.name, "paid": not service.owes_fee(event, p),
                     "withdrawn": p.withdrawn_after is not None} for p in event.players],
        "rounds_played": [round_json(event, r) for r in event.round_rows],
        "board": BOARD_PATH.format(token=event.board_token),
    }


def standings_json(event: Event) -> EventStandingsJson:
    fmt = _points(event)
    return {"standings": [
        {"place": s.place, "player": s.record.player, "total": fmt(s.record.total),
         "hands": s.record.hands,
         "rounds": [fmt(r) for r in s.record.round_totals], "sat_in": list(s.record.sat_in),
         "won": s.record.won, "caught": s.record.caught}
        for s in service.standings_of(event)],
        "tie_breaks": [str(w) for w in tie_break_words(service.tie_breaks_of(event))]}


def prizes_json(event: Event) -> PrizesJson:
    money = _money(event)
    prizes = service.prizes_of(event)
    return {"fees": money(prizes.fees), "house": money(prizes.house),
            "pool": money(prizes.pool), "currency": event.currency,
            "prizes": [{"place": p.place, "players": list(p.players),
                        "amount": money(p.amount)} for p in prizes.prizes],
            "rule": str(Message("prizes.rule"))}


def session_event(gs: GameSession) -> AtEventJson:
    """``{"event": id, "round": n}`` for a session that is an event's table, else nulls."""
    table = service.table_of_session(gs)
    if table is None:
        return {"event": None, "round": None}
    return {"event": table.round.event_id, "round": table.round.number,
            "table": table.number}


@api.post("/events", "Set up an event.", {"201": ("The event.", EventJson)})
def create_event(user: User, body: NewEvent) -> Response:
    event = service.create_event(user, **body.sent())
    return created(event_json(event), url_for("api.get_event", event_id=event.id))


@api.get("/events", "The events you run.", {"200": ("Summaries.", {
    "type": "array", "items": {"type": "object"}})})
def list_events(user: User) -> Response:
    return jsonify([{"id": e.id, "name": e.name, "held_on": e.held_on.isoformat()}
                    for e in service.events_of(user)])


@api.get("/events/<int:event_id>", "The event, its players, rounds and state.",
         {"200": ("The event.", EventJson)}, E)
def get_event(user: User, event_id: int) -> Response:
    return jsonify(event_json(service.owned_event(user, event_id)))


@api.put("/events/<int:event_id>/settings", "Change the event's settings (those not sent "
         "stay; 409 for what its tables play under once a round is drawn).",
         {"200": ("The event.", EventJson)}, E)
def change_event(user: User, event_id: int, body: EventChange) -> Response:
    event = service.owned_event(user, event_id)
    service.change_event(user, event, **body.sent())
    return jsonify(event_json(service.owned_event(user, event_id)))


@api.delete("/events/<int:event_id>", "Delete an event set up by mistake, with its check-in "
            "(409 once its first round is drawn).", {"200": ("Deleted.", DeletedJson)}, E)
def delete_event(user: User, event_id: int) -> Response:
    service.delete_event(service.owned_event(user, event_id))
    return jsonify(DeletedJson(deleted=event_id))


@api.post("/events/<int:event_id>/players", "Check a player in (409 if the name is checked "
          "in).", {"200": ("The event.", EventJson)}, E)
def check_in(user: User, event_id: int, body: CheckIn) -> Response:
    event = service.owned_event(user, event_id)
    service.check_in(event, body.name, body.sent().get("paid", False))
    return jsonify(event_json(service.owned_event(user, event_id)))


@api.put("/events/<int:event_id>/players/<name>", "Record the player's fee as paid, or not.",
         {"200": ("The event.", EventJson)}, (EVENT_ID, EVENT_PLAYER))
def set_paid(user: User, event_id: int, name: str, body: Fee) -> Response:
    event = service.owned_event(user, event_id)
    service.set_paid(event, name, body.paid)
    return jsonify(event_json(service.owned_event(user, event_id)))


@api.delete("/events/<int:event_id>/players/<name>", "Withdraw the player from the next round "
            "on; earlier hands stay.", {"200": ("The event.", EventJson)},
            (EVENT_ID, EVENT_PLAYER))
def withdraw(user: User, event_id: int, name: str) -> Response:
    event = service.owned_event(user, event_id)
    service.withdraw(event, name)
    return jsonify(event_json(service.owned_event(user, event_id)))


@api.post("/events/<int:event_id>/rounds", "Draw the next round and start its tables (409 "
          "while a round is open).", {"201": ("The round.", EventRoundJson)}, E)
def draw_round(user: User, event_id: int, body: DrawBody) -> Response:
    event = service.owned_event(user, event_id)
    this = service.draw_next_round(event, user, body.seed, body.unpaid)
    event = service.owned_event(user, event_id)
    return created(round_json(event, service.get_round(event, this.number)),
                    url_for("api.get_event", event_id=event_id))


@api.post("/events/<int:event_id>/rounds/<int:number>/close", "Close the round (409 naming "
          "short tables unless forced).", {"200": ("The round.", EventRoundJson)}, R)
def close_round(user: User, event_id: int, number: int, body: CloseRound) -> Response:
    event = service.owned_event(user, event_id)
    service.close_round(event, number, body.sent().get("force", False))
    event = service.owned_event(user, event_id)
    return jsonify(round_json(event, service.get_round(event, number)))


@api.post("/events/<int:event_id>/rounds/<int:number>/tables/<int:table>/link", "Replace the "
          "table's scorekeeping link.", {"200": ("The table.", EventTableJson)}, (*R, TABLE))
def replace_link(user: User, event_id: int, number: int, table: int) -> Response:
    """A new scorekeeping link for the table; the old one stops working at once."""
    event = service.owned_event(user, event_id)
    found = service.replace_keeper_link(event, number, table)
    return jsonify(table_json(service.owned_event(user, event_id), found))


@api.get("/events/<int:event_id>/standings", "Standings over every round, best first.",
         {"200": ("The standings.", EventStandingsJson)}, E)
def standings(user: User, event_id: int) -> Response:
    return jsonify(standings_json(service.owned_event(user, event_id)))


@api.get("/events/<int:event_id>/prizes", "The prize list, exact to the cent: it sums to the "
         "pool.", {"200": ("The prizes.", PrizesJson),
                   "422": ("Fixed prizes more than the pool.", ErrorJson)}, E)
def prizes(user: User, event_id: int) -> Response:
    return jsonify(prizes_json(service.owned_event(user, event_id)))
