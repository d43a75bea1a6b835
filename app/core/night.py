"""A night at the table as a value: its state, and the fold of its events into it.

Everything a night's money depends on is an event (JSON, the same on the server, on the
phone and in an export): the night ``started`` (rules, stake, currency, side bets, the
players in seat order, the first dealer); a ``hand`` recorded (the hand's facts, docs/rules.md
§1, with its side-bet plays, §9; "the Big One" is the hand's ``multiplier``), ``corrected``
or ``voided``; a player ``joined`` (at the dealer's right, or ``after`` a player) or ``left``;
the ``rules`` changed for the hands from now on; a payment ``paid`` or ``undone``; the night
``closed`` (``carry_over``: what is open is kept as debts). :func:`apply` gives the state
after one event, :func:`fold` after many; a refused event raises the core's
:class:`NightError` (or the hand's own :class:`~app.core.errors.TonkError`) naming its field,
and the state is as it was.

The rules of the night are written here once: who deals next (:func:`next_dealer`), where a
newcomer sits, a hand settled under the rules and players of its time, the side bets replayed
in order (a leaver takes their stake out of the pots as they go: :mod:`app.core.sidebets`),
what the pots give back at settle-up and a player's money by part (:func:`player_money`:
hands + side bets + pots back = total), and what a payment leaves open.

Pure (no Flask, no SQLAlchemy): it runs unchanged in the phone's Pyodide.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from .errors import TonkError
from .hand import MAX_PLAYERS, MIN_PLAYERS, parse_hand, parse_players
from .messages import Message, as_sent
from .money import amount_formatter, from_minor, parse_stake, said_amount, to_minor
from .names import name_key, seat_name
from .parts import seat_nets
from .rules import Rules, resolve_rules
from .settle import Result, settle
from .sidebets import (
    Outcome,
    Play,
    Pot,
    SideBet,
    outcome_json,
    parse_plays,
    parse_side_bets,
    play_json,
    replay_deals,
    return_pot,
    sent_plays,
    side_bets_json,
    stored_plays,
)
from .versions import made_from

_ZERO = Decimal(0)
_NONE = Decimal("0.00")  # no money, written as money is (a part of a total)


class NightError(TonkError):
    """An event the night refuses (a closed night, a hand that is not there, a seat change
    the table cannot take, a payment that cannot be): nothing changes."""


# -- a player's money --------------------------------------------------------------------------

@dataclass(frozen=True)
class Money:
    """A player's money in a night, by part: what the hands made, what the side bets made,
    what the pots give back at settle-up, and the total (their sum: what settle-up squares)."""

    hands: Decimal
    side_bets: Decimal
    pots_back: Decimal

    @property
    def total(self) -> Decimal:
        return self.hands + self.side_bets + self.pots_back

    def to_json(self, fmt: Callable[[Decimal], str] = str) -> dict[str, str]:
        """Each part and the total, each written by ``fmt``."""
        return {"hands": fmt(self.hands), "side_bets": fmt(self.side_bets),
                "pots_back": fmt(self.pots_back), "total": fmt(self.total)}


def player_money(totals: Mapping[str, Decimal], side: Mapping[str, Decimal],
                 back: Mapping[str, Decimal]) -> dict[str, Money]:
    """Each player's money by part from what a night keeps: ``totals`` (hands and side bets
    together, a seat's running total), ``side`` (the side bets' part of it) and ``back`` (what
    the pots give back): the one place a player's total is made."""
    return {name: Money(value - side.get(name, _NONE), side.get(name, _NONE),
                        back.get(name, _NONE))
            for name, value in totals.items()}


def pots_back(pots: Mapping[str, Pot]) -> dict[str, Decimal]:
    """At settle-up: what is still in the pots goes back to each who paid it in since they
    were last won, exactly (docs/rules.md §9)."""
    back: dict[str, Decimal] = {}
    for pot in pots.values():
        for player, amount in return_pot(pot).items():
            back[player] = back.get(player, _ZERO) + amount
    return back


def left_open(totals: Mapping[str, Decimal], paid: Iterable[tuple[str, str, Decimal]]
              ) -> dict[str, Decimal]:
    """What each still has to get (+) or give (−) at settle-up: their total moved by every
    payment made (payer, payee, amount; none undone): the one place a payment moves it."""
    left = dict(totals)
    for payer, payee, amount in paid:
        left[payer], left[payee] = left[payer] + amount, left[payee] - amount
    return left


# -- the dealer ----------------------------------------------------------------------------------

def next_dealer(seated: Sequence[str], dealer: str) -> str:
    """Who deals after ``dealer`` at a table seated ``seated`` (in table order): the next to
    their left (the first after the last)."""
    return seated[(seated.index(dealer) + 1) % len(seated)]


def newcomer_at(seated: Sequence[str], dealer: str | None, after: str | None) -> int:
    """Where a newcomer sits in ``seated``: just ``after`` a player, or else at the dealer's
    right (just before the dealer, so dealing last from them; a round table: before the first
    is after the last)."""
    if after is not None:
        return seated.index(after) + 1
    at = seated.index(dealer) if dealer in seated else 0
    return at or len(seated)


# -- the state -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Deal:
    """One hand as the night keeps it: its number, version, whether it is void, its facts as
    stored (with its rules, stake, players and side-bet plays), its money per seat (minor
    units; pushes under push-ups) and its side bets' money and outcomes (settled in order).
    ``result``: what its facts were settled to, kept for who reads the night next (the
    import's checker); not part of its value or its JSON form (None when read from JSON)."""

    number: int
    version: int
    voided: bool
    data: Mapping[str, Any]
    nets: Mapping[str, int]
    side: Mapping[str, Decimal] = field(default_factory=dict)
    outcomes: tuple[Mapping[str, Any], ...] = ()
    result: Result | None = field(default=None, compare=False, repr=False)

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(self.data["players"])

    @property
    def plays(self) -> tuple[Play, ...]:
        return stored_plays(self.data.get("side_bets"))


@dataclass(frozen=True)
class NightPayment:
    """A payment made at settle-up (``undone``: a mis-tap, open again)."""

    id: int
    payer: str
    payee: str
    amount: Decimal
    undone: bool = False


@dataclass(frozen=True)
class Night:
    """A night's state after its events: the table (rules, stake, currency, side bets), the
    seats (everyone who sat, in the order they sat down) and who sits now (table order), the
    next dealer, the hands, the pots, the payments and whether it is closed."""

    rules: Rules
    stake: Decimal
    currency: str | None
    bets: Mapping[str, SideBet]
    seats: tuple[str, ...]
    seated: tuple[str, ...]
    dealer: str
    hands: tuple[Deal, ...] = ()
    pots: Mapping[str, Pot] = field(default_factory=dict)
    payments: tuple[NightPayment, ...] = ()
    closed: bool = False
    carried: bool = False
    #: The money of the hands before those held (numbered up to ``numbered``), by player:
    #: a night counted on from a state kept elsewhere (the phone, from its page's last copy,
    #: holds none of the hands, only what they made).
    base: Mapping[str, Money] = field(default_factory=dict)
    numbered: int = 0

    @property
    def scoring(self) -> str:
        return self.rules.scoring

    @property
    def enabled(self) -> Mapping[str, SideBet]:
        """The side bets played now (none under push-ups)."""
        return {} if self.scoring == "push_ups" else self.bets

    @property
    def counted(self) -> int:
        """How many hands count (void ones do not)."""
        return sum(not d.voided for d in self.hands)

    @property
    def last_number(self) -> int:
        return self.hands[-1].number if self.hands else self.numbered

    def money(self) -> dict[str, Money]:
        """Each player's money by part (every seat, who left too)."""
        totals = {n: self.base[n].hands + self.base[n].side_bets if n in self.base else _ZERO
                  for n in self.seats}
        side = {n: self.base[n].side_bets if n in self.base else _ZERO for n in self.seats}
        hands: dict[str, int] = {}  # minor units: each player's summed once
        for deal in self.hands:
            if deal.voided:
                continue
            for name, minor in deal.nets.items():
                hands[name] = hands.get(name, 0) + minor
            for name, amount in deal.side.items():
                totals[name] += amount
                side[name] += amount
        for name, minor in hands.items():
            totals[name] += from_minor(minor)
        return player_money(totals, side if self.bets or any(side.values()) else {},
                            pots_back(self.pots))

    def open(self) -> dict[str, Decimal]:
        """What each still has to get (+) or give (−): their total moved by every payment not
        undone."""
        left = {name: m.total for name, m in self.money().items()}
        return dict.fromkeys(left, _ZERO) if self.scoring == "push_ups" else left_open(
            left, ((p.payer, p.payee, p.amount) for p in self.payments if not p.undone))

    def hand(self, number: int) -> Deal:
        if type(number) is int and self.numbered < number <= self.last_number:
            return self.hands[number - self.numbered - 1]
        raise NightError(Message("hand.not_found", number=number), "number")


# -- the events ----------------------------------------------------------------------------------

def start(event: Mapping[str, Any]) -> Night:
    """The night as it starts: ``{"kind": "started", "rules", "stake", "currency",
    "players", "dealer", "side_bets"}``."""
    rules = resolve_rules(event.get("rules", "pagat"))
    currency = event.get("currency")
    stake = parse_stake(event.get("stake"), rules, currency)
    players = parse_players(event.get("players"))
    bets = parse_side_bets(event.get("side_bets"), stake=stake, scoring=rules.scoring,
                           currency=currency)
    dealer = event.get("dealer")
    if dealer in (None, ""):
        dealer = players[0]
    elif dealer not in players:
        raise NightError(Message("session.first_dealer", first_dealer=dealer), "first_dealer")
    return Night(rules, stake, currency, bets, players, players, dealer)


def apply(night: Night, event: Mapping[str, Any]) -> Night:
    """The night after ``event`` (see the module); a refusal raises and changes nothing."""
    kind = event.get("kind")
    if kind == "started":
        return start(event)
    step = _STEPS.get(kind)  # type: ignore[arg-type]
    if step is None:
        raise NightError(Message("night.event", kind=as_sent(kind)), "kind")
    if night.closed:
        raise NightError(Message("session.closed"), "session")
    return step(night, event)


def fold(events: Iterable[Mapping[str, Any]], night: Night | None = None) -> Night:
    """The night after every event in turn (from ``night``, or from the first event, which
    starts it)."""
    for event in events:
        night = start(event) if night is None else apply(night, event)
    if night is None:
        raise NightError(Message("night.event", kind=as_sent(None)), "kind")
    return night


def money_by_hand(events: Iterable[Mapping[str, Any]]) -> list[tuple[Deal, dict[str, Money]]]:
    """The night the events tell, hand by hand: each hand that counts (a voided one does not)
    with each player's money by part just after it, what the pots would give back then
    included (the chart's points: each ends at the total the page shows)."""
    night: Night | None = None
    points: dict[int, tuple[Deal, dict[str, Money]]] = {}
    for event in events:
        night = start(event) if night is None else apply(night, event)
        if event.get("kind") == "hand":
            points[night.last_number] = (night.hands[-1], night.money())
        elif event.get("kind") == "voided":
            points.pop(event.get("number"), None)  # type: ignore[arg-type]
    return [points[number] for number in sorted(points)]


def settled_hand(night: Night, data: Any, table: Mapping[str, Any] | None = None
                 ) -> tuple[Result, dict[str, Any]]:
    """A hand's facts settled under the night's rules and the players seated now (or a stored
    hand's own ``table``: its rules, stake, players and dealer, and its side-bet plays when
    ``data`` does not name any: a correction of who won leaves who bet as it was): the
    result and the hand as stored (docs/rules.md §1, with its side-bet plays checked, §9)."""
    if not isinstance(data, Mapping):
        raise NightError(Message("hand.not_object"))
    given = dict(data)
    side = given.pop("side_bets", None) if "side_bets" in given or table is None else \
        sent_plays(table.get("side_bets"), side_bets_json(night.bets))  # (as sent: no fixed suit)
    dealer: Any
    if table is None:
        rules, stake, players, dealer = night.rules, night.stake, night.seated, night.dealer
    else:
        rules, stake = resolve_rules(table["rules"]), Decimal(str(table["stake"]))
        players, dealer = tuple(table["players"]), table.get("dealer")
    if given.get("dealer") in (None, ""):
        given["dealer"] = dealer
    hand = parse_hand(given, rules=rules, stake=stake, players=players)
    stored = hand.to_json()
    enabled = {} if rules.scoring == "push_ups" else night.bets
    plays = parse_plays(side, enabled, players) if side not in (None, []) else ()
    if plays:
        stored["side_bets"] = [play_json(p) for p in plays]
    return settle(hand), stored


def _nets(players: Sequence[str], result: Result) -> dict[str, int]:
    return dict(zip(players, seat_nets(players, result), strict=True))


def _hand(night: Night, event: Mapping[str, Any]) -> Night:
    result, stored = settled_hand(night, event.get("hand"))
    players = tuple(stored["players"])
    deal = Deal(night.last_number + 1, 1, False, stored, _nets(players, result),
                result=result)
    dealer = next_dealer(night.seated, stored["dealer"])
    if not night.enabled and not night.pots:  # no side bets, nothing in a pot: no side money
        return replace(night, hands=(*night.hands, deal), dealer=dealer)
    if not night.numbered and any(p not in night.seated for pot in night.pots.values()
                                  for p, _ in pot.paid):
        return _replayed(replace(night, hands=(*night.hands, deal), dealer=dealer))
    # settled after all the others: from the pots they left (the same as settling them again)
    fmt = amount_formatter(night.rules)
    settled, pots = replay_deals([deal.plays], night.enabled, fmt, night.pots,
                                 tables=[players], seated=night.seated)
    deal = _with_side(deal, *settled[0], fmt)
    return replace(night, hands=(*night.hands, deal), dealer=dealer, pots=_kept(pots))


def _kept(pots: Mapping[str, Pot]) -> dict[str, Pot]:  # (an empty pot is no pot)
    return {bet: pot for bet, pot in sorted(pots.items()) if pot.total}


def _with_side(deal: Deal, net: Mapping[str, Decimal], outcomes: Sequence[Outcome],
               fmt: Any) -> Deal:
    return replace(deal, side={n: a for n, a in net.items() if a},
                   outcomes=tuple(outcome_json(o, fmt) for o in outcomes))


def _replayed(night: Night) -> Night:
    """Every deal's side bets settled again in order, from empty pots (after a change of an
    old hand or of who sits: a leaver's stake comes out of the pots as they go)."""
    if (not night.bets and not night.pots) or night.numbered:
        return night  # (a night that holds only its last hands changes none of them)
    fmt = amount_formatter(night.rules)
    settled, pots = replay_deals(
        [() if d.voided else d.plays for d in night.hands], night.enabled, fmt,
        tables=[None if d.voided else d.players for d in night.hands], seated=night.seated)
    hands = tuple(_with_side(d, *s, fmt) for d, s in zip(night.hands, settled, strict=True))
    return replace(night, hands=hands, pots=_kept(pots))


def _changed(night: Night, deal: Deal) -> Night:
    hands = list(night.hands)
    hands[deal.number - night.numbered - 1] = deal
    return _replayed(replace(night, hands=tuple(hands)))


def _corrected(night: Night, event: Mapping[str, Any]) -> Night:
    old = night.hand(event.get("number"))  # type: ignore[arg-type]
    _check_version(old, event.get("version"))
    result, stored = settled_hand(night, event.get("hand"), old.data)
    return _changed(night, replace(old, version=old.version + 1, voided=False, data=stored,
                                   nets=_nets(tuple(stored["players"]), result),
                                   result=result))


def _voided(night: Night, event: Mapping[str, Any]) -> Night:
    old = night.hand(event.get("number"))  # type: ignore[arg-type]
    _check_version(old, event.get("version"))
    if old.voided:
        raise NightError(Message("change.of_hand", number=old.number,
                                 error=Message("version.void_twice")), "number")
    return _changed(night, replace(old, version=old.version + 1, voided=True))


def _check_version(deal: Deal, expected: Any) -> None:
    version = made_from(expected)
    if version is not None and version != deal.version:
        raise NightError(Message("night.version", number=deal.number, version=deal.version),
                         "version")


def _find(names: Sequence[str], name: Any) -> str | None:
    if not isinstance(name, str):
        return None
    key = name_key(name)
    return next((n for n in names if name_key(n) == key), None)


def _joined(night: Night, event: Mapping[str, Any]) -> Night:
    name, after = seat_name(event.get("player"), "join", NightError), event.get("after")
    if _find(night.seated, name) is not None:
        raise NightError(Message("seats.seated", player=name), "join")
    if len(night.seated) >= MAX_PLAYERS:
        raise NightError(Message("seats.full", max=MAX_PLAYERS), "join")
    if after is not None:
        after = _find(night.seated, after)
        if after is None:
            raise _not_seated(night, event.get("after"), "after")
    known = _find(night.seats, name)
    name = known or name
    seated = list(night.seated)
    seated.insert(newcomer_at(seated, night.dealer, after), name)
    seats = night.seats if known else (*night.seats, name)
    return _replayed(replace(night, seats=seats, seated=tuple(seated)))


def _left(night: Night, event: Mapping[str, Any]) -> Night:
    name = _find(night.seated, event.get("player"))
    if name is None:
        raise _not_seated(night, event.get("player"), "leave")
    if len(night.seated) <= MIN_PLAYERS:
        raise NightError(Message("seats.too_few", player=name, min=MIN_PLAYERS), "leave")
    dealer = next_dealer(night.seated, name) if night.dealer == name else night.dealer
    seated = tuple(n for n in night.seated if n != name)
    return _replayed(replace(night, seated=seated, dealer=dealer))


def _not_seated(night: Night, name: Any, field_: str) -> NightError:
    return NightError(Message("seats.not_seated", player=name,
                              players=", ".join(night.seated)), field_)


def _rules(night: Night, event: Mapping[str, Any]) -> Night:
    rules = resolve_rules(event.get("rules"))
    stake = parse_stake(event.get("stake", str(night.stake)), rules, night.currency)
    if night.bets:  # the side bets must still be playable (their stakes as set)
        parse_side_bets(side_bets_json(night.bets), stake=stake, scoring=rules.scoring,
                        currency=night.currency)
    return replace(night, rules=rules, stake=stake)


def _paid(night: Night, event: Mapping[str, Any]) -> Night:
    payer, payee = event.get("payer"), event.get("payee")
    for who, field_ in ((payer, "payer"), (payee, "payee")):
        if who not in night.seats:
            raise NightError(Message("payment.not_at_table", who=who), field_)
    if payer == payee:
        raise NightError(Message("payment.themselves", payer=payer), "payee")
    if night.scoring == "push_ups":
        raise NightError(Message("payment.push_ups"), "amount")
    amount = Decimal(str(event.get("amount")))
    left = night.open()
    most = min(-left[payer], left[payee])  # type: ignore[index]
    if amount <= 0 or amount > most:
        raise NightError(Message("payment.more_than_open", payer=payer, payee=payee,
                                 most=said_amount(max(most, _ZERO), night.currency,
                                                  night.scoring)), "amount")
    number = event.get("id", len(night.payments) + 1)
    paid = NightPayment(number, payer, payee, amount)  # type: ignore[arg-type]
    return replace(night, payments=(*night.payments, paid))


def _undone(night: Night, event: Mapping[str, Any]) -> Night:
    number = event.get("payment")
    found = next((p for p in night.payments if p.id == number), None)
    if found is None:
        raise NightError(Message("payment.not_found", payment_id=number), "payment")
    if found.undone:
        raise NightError(Message("payment.undone", payment_id=number), "payment")
    return replace(night, payments=tuple(replace(p, undone=True) if p is found else p
                                         for p in night.payments))


def _closed(night: Night, event: Mapping[str, Any]) -> Night:
    carry = event.get("carry_over", False)
    if carry not in (True, False):
        raise NightError(Message("session.carry_over"), "carry_over")
    if not carry and any(night.open().values()):
        raise NightError(Message("session.not_settled_carry"), "carry_over")
    return replace(night, closed=True, carried=bool(carry))


_STEPS = {"hand": _hand, "corrected": _corrected, "voided": _voided, "joined": _joined,
          "left": _left, "rules": _rules, "paid": _paid, "undone": _undone, "closed": _closed}


# -- the JSON form ---------------------------------------------------------------------------

def night_json(night: Night) -> dict[str, Any]:
    """The state as JSON (money as decimal strings): what the server keeps and sends the
    phone, and what :func:`night_of_json` reads back to the same state; ``money`` and
    ``open`` are what the screens show, made from the rest."""
    fmt = amount_formatter(night.rules)
    return {
        "rules": night.rules.to_json(), "stake": str(night.stake), "currency": night.currency,
        "side_bets": side_bets_json(night.bets) or None, "seats": list(night.seats),
        "seated": list(night.seated), "dealer": night.dealer,
        "hands": [{"number": d.number, "version": d.version, "voided": d.voided,
                   "hand": dict(d.data), "nets": dict(d.nets),
                   "side": {n: str(a) for n, a in d.side.items()},
                   "outcomes": [dict(o) for o in d.outcomes]} for d in night.hands],
        "pots": {bet: [[p, str(a)] for p, a in pot.paid if a]
                 for bet, pot in sorted(night.pots.items()) if pot.total},
        "payments": [{"id": p.id, "payer": p.payer, "payee": p.payee, "amount": str(p.amount),
                      "undone": p.undone} for p in night.payments],
        "closed": night.closed, "carried": night.carried,
        "base": {n: m.to_json() for n, m in night.base.items()}, "numbered": night.numbered,
        "money": {n: m.to_json() for n, m in night.money().items()},
        "open": {n: fmt(a) for n, a in night.open().items()},
    }


def night_of_json(data: Mapping[str, Any]) -> Night:
    """A state from its JSON form (:func:`night_json`)."""
    rules = resolve_rules(data["rules"])
    stake = Decimal(data["stake"])
    return Night(
        rules, stake, data.get("currency"),
        parse_side_bets(data.get("side_bets"), stake=stake, scoring=rules.scoring,
                        currency=data.get("currency")),
        tuple(data["seats"]), tuple(data["seated"]), data["dealer"],
        tuple(Deal(h["number"], h["version"], h["voided"], h["hand"], dict(h["nets"]),
                   {n: Decimal(a) for n, a in h["side"].items()},
                   tuple(h["outcomes"])) for h in data.get("hands", ())),
        {bet: Pot(bet, tuple((p, Decimal(a)) for p, a in paid))
         for bet, paid in (data.get("pots") or {}).items()},
        tuple(NightPayment(p["id"], p["payer"], p["payee"], Decimal(p["amount"]), p["undone"])
              for p in data.get("payments", ())),
        bool(data.get("closed")), bool(data.get("carried")),
        {n: Money(Decimal(m["hands"]), Decimal(m["side_bets"]), _ZERO)
         for n, m in (data.get("base") or {}).items()}, int(data.get("numbered", 0)))


def minor_totals(money: Mapping[str, Money]) -> dict[str, int]:
    """Each seat's running total in minor units (hands and side bets; pots back apart), of
    a night's :meth:`Night.money`: what the server keeps on each seat."""
    return {n: to_minor(m.hands + m.side_bets) for n, m in money.items()}
