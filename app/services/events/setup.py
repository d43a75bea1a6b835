"""Setting up an event and its players: the settings, check-in, the fee, withdrawal.

Every change takes the event's lock (:func:`locked`) and moves its ``revision`` on, so the
TV board and the director's page see every change, and two directors checking the same
name in at once get one player and a 409.
"""
from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ...core.dates import parse_day
from ...core.draw import check_table_size
from ...core.errors import TonkError
from ...core.messages import Message, as_sent
from ...core.money import currency_places, from_minor, parse_stake, to_minor
from ...core.names import MAX_NAME, clean_text, name_key
from ...core.placings import parse_tie_breaks
from ...core.prizes import Payout, parse_fee, parse_house_share, parse_payout
from ...core.rules import Rules, resolve_rules
from ...db.ids import MAX_ID
from ...db.models import Event, EventPlayer, Player, User, utcnow
from ...db.storage import begin_write
from ...extensions import db
from ..errors import EventConflictError, EventError, EventSettingsError, NotFoundError
from ..sessions import findable_token, is_league_admin, keeps_score_of, parse_currency

MAX_EVENT_NAME = 80
MAX_ROUNDS = 20
MAX_HANDS = 200
SCORINGS = ("points", "money")
DEFAULT_PRIZES = ["0.5", "0.3", "0.2"]
T = TypeVar("T")


class EventNotFoundError(NotFoundError):
    """No such event, player, round or link, or not one this account runs."""


def _whole(value: Any, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EventError(Message(f"event.whole.{field}", low=low, high=high,
                                 value=as_sent(value)), field)
    return value


def _id(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_ID:
        raise EventNotFoundError(Message("event.not_yours", event_id=value), field)
    return value


def _settings(user: User, *, name: Any, rules: Any = None, currency: Any = None,
              table_size: Any = 4, rounds: Any = 3, hands_per_round: Any = 8,
              entry_fee: Any = None, prizes: Any = None, league: Any = None,
              scoring: Any = None, house_share: Any = None, stake: Any = None,
              held_on: Any = None, tie_breaks: Any = None) -> dict[str, Any]:
    """An event's settings as its columns, every one checked (:class:`EventSettingsError`:
    each one refused, by its field; a league not ``user``'s is not found)."""
    refused: dict[str, TonkError] = {}

    def checked(check: Callable[[], T], instead: T) -> T:
        try:
            return check()
        except TonkError as exc:
            refused.setdefault(exc.field or "form", exc)
            return instead

    title = checked(lambda: clean_text(name, EventError, "name", Message("event.what_name"),
                                       MAX_EVENT_NAME), "")
    league_id = None
    if league is not None:
        league_id = _id(league, "league")
        if not is_league_admin(user, league_id):
            raise EventNotFoundError(Message("league.not_yours", league_id=league_id),
                                     "league")
    scoring = "points" if scoring is None else scoring
    if scoring not in SCORINGS:
        refused["scoring"] = EventError(Message("event.scoring", value=as_sent(scoring)),
                                        "scoring")
        scoring = "points"
    resolved = checked(lambda: resolve_rules({**resolve_rules(rules).to_json(),
                                              "scoring": scoring}),
                       resolve_rules({"scoring": scoring}))
    code = checked(lambda: parse_currency(currency), "USD")
    places = currency_places(code)
    amount = checked(lambda: parse_stake(stake, resolved, code), Decimal(1))
    payout = checked(lambda: parse_payout(DEFAULT_PRIZES if prizes is None else prizes,
                                          places), None)
    day = checked(lambda: date.today() if held_on is None else parse_day(
        held_on, EventError, "held_on", Message("event.what_day")), None)
    size = checked(lambda: check_table_size(table_size), 0)
    how_many = checked(lambda: _whole(rounds, "rounds", 1, MAX_ROUNDS), 0)
    hands = checked(lambda: _whole(hands_per_round, "hands_per_round", 1, MAX_HANDS), 0)
    fee = checked(lambda: parse_fee(entry_fee, places), Decimal(0))
    share = checked(lambda: parse_house_share(house_share), Decimal(0))
    ties: list[str] = checked(lambda: list(parse_tie_breaks(tie_breaks)), [])
    if refused:
        raise EventSettingsError(refused)
    assert payout is not None and day is not None
    return {"league_id": league_id, "name": title, "held_on": day,
            "rules_json": json.dumps(resolved.to_json()), "stake_minor": to_minor(amount),
            "currency": code, "table_size": size, "rounds": how_many,
            "hands_per_round": hands, "fee_minor": to_minor(fee), "house_share": str(share),
            "payout_json": json.dumps({"kind": payout.kind,
                                       "amounts": [str(a) for a in payout.amounts]}),
            "tie_breaks_json": json.dumps(ties)}


def create_event(user: User, **settings: Any) -> Event:
    """A new event run by ``user`` (in ``league``, if they run it), with the settings
    :func:`_settings` takes: every one checked, nothing stored if one is wrong."""
    event = Event(owner_id=user.id, **_settings(user, **settings),
                  board_token=secrets.token_urlsafe(16), revision=0, created_at=utcnow())
    db.session.add(event)
    db.session.flush()
    return event


def settings_of(event: Event) -> dict[str, Any]:
    """The event's settings as :func:`create_event` and :func:`change_event` take them."""
    payout = payout_of(event)
    rules = json.loads(event.rules_json)
    amounts = [str(a) for a in payout.amounts]
    return {"name": event.name, "held_on": event.held_on.isoformat(), "rules": rules,
            "scoring": resolve_rules(rules).scoring, "currency": event.currency,
            "stake": str(from_minor(event.stake_minor)), "table_size": event.table_size,
            "rounds": event.rounds, "hands_per_round": event.hands_per_round,
            "entry_fee": str(from_minor(event.fee_minor)), "house_share": event.house_share,
            "prizes": {"fixed": amounts} if payout.kind == "fixed" else amounts,
            "tie_breaks": list(tie_breaks_of(event)), "league": event.league_id}


#: The settings the tables play under, named as :func:`create_event` takes them: once a round
#: is drawn they stay as they are, since its tables already play under them.
TABLE_SETTINGS = ("scoring", "rules", "stake", "currency", "table_size", "hands_per_round",
                  "league")


#: What the results (the standings and the prize list) are made from, column → setting: once
#: the last round is closed they are final, and only the name and the date still change.
RESULT_SETTINGS = {"rounds": "rounds", "fee_minor": "entry_fee", "house_share": "house_share",
                   "payout_json": "prizes", "tie_breaks_json": "tie_breaks"}


def is_final(event: Event) -> bool:
    """Every round drawn and closed: the director's page says the results are final."""
    return len(event.round_rows) >= event.rounds and all(
        r.closed_at is not None for r in event.round_rows)


def _as_value(column: str, stored: Any) -> Any:
    """A result setting as a value ("0.10" and "0.1" the same share)."""
    if column == "house_share":
        return Decimal(stored)
    if column == "payout_json":
        payout = json.loads(stored)
        return payout["kind"], [Decimal(a) for a in payout["amounts"]]
    return json.loads(stored) if column.endswith("_json") else stored


def _refuse_when_final(event: Event, field: str) -> None:
    if is_final(event):
        raise EventConflictError(Message("event.final"), field)


def _table_settings(columns: dict[str, Any]) -> dict[str, Any]:
    rules = json.loads(columns["rules_json"])
    return {"scoring": resolve_rules(rules).scoring, "rules": rules,
            "stake": columns["stake_minor"], "currency": columns["currency"],
            "table_size": columns["table_size"],
            "hands_per_round": columns["hands_per_round"], "league": columns["league_id"]}


def change_event(user: User, event: Event, **given: Any) -> Event:
    """The event with the settings ``given`` changed (the others as they are), checked as a
    new event's are. Once a round is drawn, what the tables play under (the house rules,
    scoring, stake, currency, table size, hands a round, league) stays: 409 naming it;
    the rounds may not be fewer than those drawn. The name, the date, the entry fee, the
    house share, the prizes and the tie-breaks may change until the last round is closed;
    then the results are final (:data:`RESULT_SETTINGS`: 409 naming it).
    A player marked paid is paid at the new fee (a fee typed wrong is put right for
    everyone)."""
    event = locked(event)
    columns = _settings(user, **{**settings_of(event), **given})
    drawn = len(event.round_rows)
    if drawn:
        now = _table_settings({column: getattr(event, column) for column in columns})
        wanted = _table_settings(columns)
        for field in TABLE_SETTINGS:
            if wanted[field] != now[field]:
                raise EventConflictError(Message("event.setting_drawn"), field)
        if columns["rounds"] < drawn:
            raise EventConflictError(Message("event.fewer_rounds", rounds=drawn), "rounds")
    for column, field in RESULT_SETTINGS.items():
        if _as_value(column, getattr(event, column)) != _as_value(column, columns[column]):
            _refuse_when_final(event, field)
    for column, value in columns.items():
        setattr(event, column, value)
    for player in event.players:
        if player.paid_minor > 0:
            player.paid_minor = event.fee_minor
    db.session.flush()
    return event


def delete_event(event: Event) -> None:
    """Delete an event set up by mistake, with its check-in: only until its first round is
    drawn (then its tables are sessions with hands of their own)."""
    event = locked(event)
    if event.round_rows:
        raise EventConflictError(Message("event.drawn_stays"), "event")
    db.session.delete(event)
    db.session.flush()


# -- reading ---------------------------------------------------------------------------------

def event_rules(event: Event) -> Rules:
    """The house rules every table of the event plays (with the event's scoring)."""
    return resolve_rules(json.loads(event.rules_json))


def payout_of(event: Event) -> Payout:
    data = json.loads(event.payout_json)
    return Payout(data["kind"], tuple(Decimal(a) for a in data["amounts"]))


def tie_breaks_of(event: Event) -> tuple[str, ...]:
    return tuple(json.loads(event.tie_breaks_json))


def runs(user: User, event: Event) -> bool:
    """Whether ``user`` directs ``event``: its owner, or an admin of its league."""
    return keeps_score_of(user, event.owner_id, event.league_id)


def owned_event(user: User, event_id: Any) -> Event:
    """The event ``event_id`` if ``user`` directs it, else :class:`EventNotFoundError`."""
    found = db.session.get(Event, _id(event_id, "event"))
    if found is None or not runs(user, found):
        raise EventNotFoundError(Message("event.not_yours", event_id=event_id))
    return found


def events_of(user: User) -> list[Event]:
    """The events ``user`` directs, newest first."""
    return [e for e in db.session.scalars(select(Event).order_by(Event.held_on.desc(),
                                                                  Event.id.desc()))
            if runs(user, e)]


def board_event(token: str) -> Event:
    """The event behind a TV board link."""
    found: Event | None = db.session.scalar(
        select(Event).where(Event.board_token == token)) if findable_token(token) else None
    if found is None:
        raise EventNotFoundError(Message("event.board_unknown"))
    return found


def locked(event: Event) -> Event:
    """The event again, read afresh under its lock, its revision moved on (see
    :func:`app.services.sessions.ledger.locked` for the same with sessions)."""
    event_id = event.id
    begin_write()
    db.session.expire_all()
    fresh: Event | None = db.session.get(Event, event_id, with_for_update=True,
                                         populate_existing=True)
    if fresh is None:
        raise EventNotFoundError(Message("event.not_yours", event_id=event_id))
    fresh.revision += 1
    return fresh


# -- players ---------------------------------------------------------------------------------

def find_player(event: Event, name: Any) -> EventPlayer:
    key = name_key(name) if isinstance(name, str) else None
    for player in event.players:
        if player.name_key == key:
            return player
    raise EventNotFoundError(Message("event.no_player", player=name), "name")


def active_players(event: Event) -> list[EventPlayer]:
    """The players the next draw seats: checked in and not withdrawn."""
    return [p for p in event.players if p.withdrawn_after is None]


def league_names(event: Event) -> list[str]:
    """The league's members not yet checked in (offered at check-in)."""
    if event.league_id is None:
        return []
    here = {p.name_key for p in event.players}
    return [p.name for p in db.session.scalars(
        select(Player).where(Player.league_id == event.league_id).order_by(Player.name))
        if p.name_key not in here]


def _paid(value: Any) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise EventError(Message("event.paid"), "paid")
    return value


def check_in(event: Event, name: Any, paid: Any = False) -> EventPlayer:
    """Check ``name`` in (a late arrival, or a player withdrawn and back, sits from the next
    draw on; a fee paid before stays paid); 409 if the name is already checked in, or once
    every round is drawn (there is no draw left to sit in: a player checked in then would
    play no hand and yet stand on 0 in the standings)."""
    clean = clean_text(name, EventError, "name", Message("event.what_player"), MAX_NAME)
    is_paid = _paid(paid)
    event = locked(event)
    if len(event.round_rows) >= event.rounds:
        raise EventConflictError(Message("event.no_draw_left", rounds=event.rounds), "name")
    if event.league_id is not None:  # a member is named as the league knows them
        member = db.session.scalar(select(Player.name).where(
            Player.league_id == event.league_id, Player.name_key == name_key(clean)))
        clean = member or clean
    here = next((p for p in event.players if p.name_key == name_key(clean)), None)
    if here is not None and here.withdrawn_after is not None:  # back: from the next draw
        here.withdrawn_after = None
        if is_paid:
            here.paid_minor = event.fee_minor
        db.session.flush()
        return here
    if here is not None:  # named as they were checked in
        raise EventConflictError(Message("event.checked_in", player=here.name), "name")
    player = EventPlayer(name=clean, paid_minor=event.fee_minor if is_paid else 0,
                         checked_in_at=utcnow())
    try:
        with db.session.begin_nested():  # (a refusal takes back this check-in alone)
            event.players.append(player)
    except IntegrityError:  # checked in at the same moment by another request
        raise EventConflictError(Message("event.checked_in", player=clean), "name") from None
    return player


def set_paid(event: Event, name: Any, paid: Any) -> EventPlayer:
    """Record the fee as paid (or not) for a checked-in player."""
    if not isinstance(paid, bool):
        raise EventError(Message("event.paid"), "paid")
    is_paid = paid
    event = locked(event)
    player = find_player(event, name)
    if is_paid != (player.paid_minor > 0):
        _refuse_when_final(event, "paid")
    player.paid_minor = event.fee_minor if is_paid else 0
    db.session.flush()
    return player


def withdraw(event: Event, name: Any) -> EventPlayer:
    """Withdraw a player from the next round on: the round being played keeps them, their
    hands stay and count."""
    event = locked(event)
    player = find_player(event, name)
    if player.withdrawn_after is not None:
        raise EventConflictError(Message("event.withdrawn", player=player.name), "name")
    _refuse_when_final(event, "name")
    player.withdrawn_after = len(event.round_rows)
    db.session.flush()
    return player
