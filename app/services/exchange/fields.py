"""The fields of a document's session read one by one, as the checker reads them
(:class:`.verify.Checker`): where a problem is named, uids, whole numbers and lists, who sat
where and when they left, who came and went when, a hand's stake, a stored result held
against what settling the hand says, a session's totals and money by part held against its
hands, and each seat's records (counts and money) as the ledger keeps them; and what the
checker holds of a hand while it reads it (:class:`Terms`, :class:`LastVersion`,
:class:`ReadHand`)."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, NamedTuple

from ...core import Rules, TonkError
from ...core.hand import PlayedHand
from ...core.messages import Message, as_sent
from ...core.money import MAX_STAKE, parse_decimal, parse_stake
from ...core.names import name_key
from ...core.night import Money
from ...core.settle import Result
from ...db.ids import MAX_ID
from .checked import CheckedHand, CheckedVersion, SeatMove
from .common import NO_COUNTS, UID, ExchangeError, field_of, parse_time


class BadVersion(TonkError):
    """One problem with one version of a hand."""


def where_of(doc: Mapping[str, Any], index: int) -> Message:
    """How a report names the session ``doc``: ``session Friday (<uid>)``."""
    name, uid = doc.get("name"), doc.get("uid")
    name = " ".join(name[:200].split()) if isinstance(name, str) and name.strip() \
        else f"#{index}"
    return Message("import.where.session", name=_short(name),
                   uid=_short(uid, 40) if isinstance(uid, str) else Message(
                       "import.where.no_uid"))


def _short(text: str, limit: int = 80) -> str:
    """A name or uid as a report names it: a long one cut (a file can hold anything)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def read_uid(value: Any, what: Message) -> str:
    if not isinstance(value, str) or not UID.fullmatch(value):
        raise ExchangeError(Message("import.uid", what=what, value=as_sent(value)))
    return value


def whole_number(value: Any, what: str | Message, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_ID:
        raise ExchangeError(Message("import.whole", what=what, low=low, value=as_sent(value)))
    return value


def read_list(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ExchangeError(Message("import.list", what=what))
    return value


def seats_of(doc: Mapping[str, Any], names: tuple[str, ...]
           ) -> tuple[list[int], list[datetime | None]]:
    """Where each seat sits now and when it left (format version 2's ``seated``, players at
    the table in seat order, and ``left``, who left when; version 1: everyone, in order)."""
    key = {name_key(n): n for n in names}  # a name is the same however it is written
    given = doc.get("seated", list(names))
    seated = [key.get(name_key(p)) if isinstance(p, str) else None
              for p in (given if isinstance(given, list) else [])]
    if not isinstance(given, list) or len(seated) < 2 or None in seated or \
            len(set(seated)) != len(seated):
        raise ExchangeError(Message("import.seated"))
    raw = doc.get("left") or {}
    left = {key.get(name_key(n)): when for n, when in raw.items()} \
        if isinstance(raw, Mapping) else None
    if left is None or set(left) != set(names) - set(seated):
        raise ExchangeError(Message("import.left"))
    positions = [seated.index(n) if n in seated else len(seated) + i
                 for i, n in enumerate(names)]
    return positions, [parse_time(left[n], Message("import.what.left", player=n))
                       if n in left else None
                       for n in names]


def seat_changes_of(doc: Mapping[str, Any], names: tuple[str, ...]) -> list[SeatMove]:
    """Who joined (just ``after`` a player) and who left, once ``hands`` hands had been
    recorded, in order (format version 2's ``seat_changes``; none given: the night's fold
    finds them from the hands' players, as for a session kept before they were)."""
    key = {name_key(n): n for n in names}
    moves: list[SeatMove] = []
    for i, change in enumerate(read_list(doc.get("seat_changes"), "seat_changes"), 1):
        if not isinstance(change, Mapping):
            raise ExchangeError(Message("import.seat_change_object", number=i))
        kind, player, after = (change.get(k) for k in ("kind", "player", "after"))
        player = key.get(name_key(player)) if isinstance(player, str) else None
        next_to = key.get(name_key(after)) if isinstance(after, str) else None
        if kind not in ("joined", "left") or player is None or (
                after is not None and (kind == "left" or next_to is None)):
            raise ExchangeError(Message("import.seat_change", number=i))
        what = Message("import.what.seat_change", number=i)
        moves.append((whole_number(change.get("hands"), field_of(what, "hands"), low=0),
                      kind, player, next_to, parse_time(change.get("at"), field_of(what, "at"))))
    return moves


def hand_stake(value: Any, rules: Rules) -> Decimal:
    """A stored hand's stake, as the ledger writes it: money to the cent; points whole;
    push-ups the table's stake to the cent, kept exactly as written (push-ups pay nothing,
    and files from before push-ups kept their table's stake hold it rounded, even to 0)."""
    if rules.scoring == "money":
        return parse_stake(value, rules)
    amount = parse_decimal(value, ExchangeError,
                           Message("import.stake_number", value=as_sent(value)), "stake")
    exact = amount == amount.to_integral_value() if rules.scoring == "points" \
        else amount == amount.quantize(Decimal("0.01"))
    if not exact or not 0 <= amount <= MAX_STAKE:
        raise ExchangeError(Message("import.stake_scoring", scoring=rules.scoring, value=value))
    return amount.quantize(Decimal(1)) if rules.scoring == "points" else amount


def names_text(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else as_sent(value)


def league_name_of(doc: Any) -> str:
    if isinstance(doc, Mapping):
        return f"{doc.get('name')} ({doc.get('uid')})"
    return as_sent(doc)


_RESULT_FIELDS = {"net": frozenset({"outcome", "winners", "payments", "explanation", "net"}),
                  "pushed": frozenset({"outcome", "winners", "payments", "explanation",
                                       "pushed"})}


def compare_result(result: Result, given: dict[str, Any], fmt: Callable[[Decimal], str]) -> None:
    """The stored result must say what settling the hand says: outcome, winners, payments,
    and each player's net (or push-up)."""
    key = "pushed" if result.pushed is not None else "net"
    if not given.keys() <= _RESULT_FIELDS[key]:
        extra = sorted(set(given) - _RESULT_FIELDS[key])
        raise BadVersion(Message("import.result_field", field=as_sent(extra[0])))
    if given.get("outcome") != result.outcome:
        raise BadVersion(Message("import.result.outcome", given=as_sent(given.get("outcome")),
                           outcome=as_sent(result.outcome)))
    if given.get("winners") != list(result.winners):
        raise BadVersion(Message("import.result.winners", given=names_text(given.get("winners")),
                           winners=", ".join(result.winners)) if result.winners else
                   Message("import.result.no_winners", given=names_text(given.get("winners"))))
    said = given.get(key)
    if result.pushed is not None:
        values: dict[str, Any] = dict(result.pushed)
        words = "import.result.pushed"
    else:
        assert result.net is not None
        values = {name: fmt(amount) for name, amount in result.net.items()}
        words = "import.result.net"
    if said != values:
        for name, value in values.items():
            if not isinstance(said, dict) or said.get(name) != value:
                stored = said.get(name) if isinstance(said, dict) else None
                raise BadVersion(Message(words, player=name, value=value, stored=as_sent(stored)))
        raise BadVersion(Message("import.result.players"))
    payments = [{"from": p.payer, "to": p.payee, "amount": fmt(p.amount), "rule": p.rule}
                for p in result.payments]
    if given.get("payments") != payments:
        raise BadVersion(Message("import.result.payments"))


def tallied(hands: list[CheckedHand], counted: list[list[tuple[int, ...]] | None]
             ) -> list[tuple[Any, ...]]:
    """Each seat's record per scoring, its hands' counts summed (a void hand counts nothing;
    the first version made the record)."""
    records: dict[tuple[int, str], list[tuple[int, ...]]] = {}
    for hand, counts in zip(hands, counted, strict=True):
        for seat in hand.seats:
            if (seat, hand.scoring) not in records:
                records[(seat, hand.scoring)] = [NO_COUNTS]
        if counts is None:
            continue
        for seat, added in zip(hand.seats, counts, strict=True):
            records[(seat, hand.scoring)].append(added)
    return [(seat, scoring, *map(sum, zip(*added, strict=True)))
            for (seat, scoring), added in records.items()]


def with_money(records: list[tuple[Any, ...]], scoring: str, beyond: Sequence[int]
                ) -> list[tuple[Any, ...]]:
    """The records with each seat's money beyond its hands (``beyond``: the side bets and
    what the pots give back) in its record under the night's ``scoring``, as the ledger
    keeps it: a record's net is the player's money in the session."""
    out = [list(r) for r in records]
    for seat, extra in enumerate(beyond):
        if not extra:
            continue
        mine = next((r for r in out if (r[0], r[1]) == (seat, scoring)), None)
        if mine is None:
            mine = [seat, scoring, *NO_COUNTS]
            out.append(mine)
        mine[2] += extra
    return [tuple(r) for r in out]



@dataclass(frozen=True, slots=True)
class Terms:
    """What a hand is played under, from its first version: rules, stake, formatter."""

    rules: Rules
    spec: dict[str, Any]
    stake: Decimal
    fmt: Callable[[Decimal], str]


@dataclass(slots=True)
class LastVersion:
    """A hand's last version that counted so far, read but not settled: at ``index`` in its
    versions, its table (its own, and the first version's, which it must match), players,
    facts as written and stored result, the session and hand it is in; once parsed (here,
    or by the night's fold), the hand and the hand as stored (JSON text, facts)."""

    index: int
    table: Terms
    first: Terms
    seated: tuple[str, ...]
    facts: dict[str, Any]
    given: Any
    where: Message
    number: int
    core: PlayedHand | None = None
    text: str = ""
    data: dict[str, Any] | None = None

    @property
    def plain(self) -> bool:
        """Facts that the night's fold reads as the checker does: a dealer named, no side
        bets (the fold fills in a missing dealer from the night's rotation)."""
        return self.facts.get("dealer") not in (None, "") and not self.facts.get("side_bets")

    def stored(self) -> dict[str, Any]:
        """Its facts as stored, or as written with the stored table (for the fold)."""
        return self.data if self.data is not None else {
            "rules": self.table.spec, "stake": str(self.table.stake),
            "players": list(self.seated), **self.facts}

    def at(self) -> Message:
        """Where it is, as a problem names it (named only when there is one)."""
        return Message("import.where.version", number=self.index + 1, where=Message(
            "import.where.hand", where=self.where, number=self.number))


class ReadHand(NamedTuple):
    """A hand read, every version checked but its last that counted (``last``), whose
    result text is the checker's placeholder in ``versions`` (and in the void ones after it)."""

    number: int
    voided: bool
    scoring: str
    versions: list[CheckedVersion]
    last: LastVersion


#: A player's money by part, as an export writes it.
_PARTS = ("hands", "side_bets", "pots_back", "total")


def check_totals(given: Any, names: tuple[str, ...], money: list[Money]) -> None:
    """A file's totals, if it gives them, are each player's total to the cent (the hands,
    the side bets and what the pots give back, as every page shows it). A file exported
    before they held what the pots give back (8 December 2026) gave the hands and the side
    bets: read as it was written."""
    if given is None:
        return
    if not isinstance(given, Mapping) or set(given) != set(names):
        raise ExchangeError(Message("import.totals"))
    values = [parse_decimal(given[name], ExchangeError,
                            Message("import.total_amount", name=name), "totals")
              for name in names]
    if all(value == m.hands + m.side_bets for value, m in zip(values, money, strict=True)):
        return  # an older file's totals
    for name, value, m in zip(names, values, money, strict=True):
        if value != m.total:
            raise ExchangeError(Message("import.totals_differ", name=name, total=m.total,
                                        given=given[name]))


def check_money(given: Any, names: tuple[str, ...], money: list[Money]) -> None:
    """A file's money by part, if it gives it, is the hands' to the cent (it was taken as
    made again, whatever it said)."""
    if given is None:
        return
    if not isinstance(given, Mapping) or set(given) != set(names) or not all(
            isinstance(given[name], Mapping) and set(given[name]) == set(_PARTS)
            for name in names):
        raise ExchangeError(Message("import.money"))
    for name, kept in zip(names, money, strict=True):
        for part in _PARTS:
            value = parse_decimal(given[name][part], ExchangeError,
                                  Message("import.money_amount", name=name, part=part),
                                  "money")
            if value != getattr(kept, part):
                raise ExchangeError(Message("import.money_differ", name=name, part=part,
                                            amount=getattr(kept, part),
                                            given=given[name][part]))
