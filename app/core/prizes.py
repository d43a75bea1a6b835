"""A tournament's prize list, exact to the currency's smallest unit.

* The pool is the fees paid less the house share; the house share is rounded down to the
  currency's smallest unit (a cent; a yen), so rounding never takes from the players.
* Each paid place gets its share of the pool rounded down, or its fixed amount; players
  tied get the shares of the places they cover added before they are rounded down (so
  rounding takes nothing from them that the places' shares together do not leave).
* What rounding leaves, what fixed amounts leave, and the prizes of places no player
  reached all go to first place (shared like any prize if first place is tied).
* Players tied cover as many places as they are: they share the sum of those places'
  prizes equally; the smallest units that do not divide go one each to them in the order
  they are listed (by name), so they appear as two lines of one place.

So the amounts always sum to the pool exactly (:func:`prize_list` checks it before it
answers).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal
from typing import Any

from .errors import TonkError
from .messages import Message, as_sent
from .money import parse_decimal, said_amount

#: Most places an event pays.
MAX_PRIZES = 50
#: Largest entry fee or fixed prize.
MAX_AMOUNT = Decimal(1_000_000)


class PrizeError(TonkError):
    """A prize list, fee or house share that cannot be paid out."""


@dataclass(frozen=True, slots=True)
class Payout:
    """How the pool is cut: shares of it (summing to one) or fixed amounts."""

    kind: str  # "shares" or "fixed"
    amounts: tuple[Decimal, ...]


@dataclass(frozen=True, slots=True)
class Prize:
    """What each of ``players`` receives for ``place``."""

    place: int
    players: tuple[str, ...]
    amount: Decimal


@dataclass(frozen=True, slots=True)
class PrizeList:
    """The fees paid, the house's part, the pool and the prizes (summing to the pool)."""

    fees: Decimal
    house: Decimal
    pool: Decimal
    prizes: tuple[Prize, ...]


def _amount(value: Any, field: str, places: int) -> Decimal:
    amount = parse_decimal(value, PrizeError, Message("prizes.not_amount", value=as_sent(value)),
                           field)
    if amount < 0 or amount > MAX_AMOUNT:
        what = "entry_fee" if field == "entry_fee" else "prize"
        raise PrizeError(Message(f"prizes.range.{what}", value=as_sent(value), most=MAX_AMOUNT),
                         field)
    if amount != amount.quantize(Decimal(1).scaleb(-places)):
        raise PrizeError(Message("prizes.places", value=value, places=places), field)
    return amount


def parse_fee(value: Any, places: int) -> Decimal:
    """An entry fee: 0 or more, with at most the currency's places (none for yen)."""
    return _amount(0 if value is None else value, "entry_fee", places)


def parse_house_share(value: Any) -> Decimal:
    """The house's share of the fees: from 0 up to (not including) 1."""
    if value is None:
        return Decimal(0)
    share = parse_decimal(value, PrizeError, Message("prizes.not_amount", value=as_sent(value)),
                          "house_share")
    if not Decimal(0) <= share < 1:
        raise PrizeError(Message("prizes.house_share", value=value), "house_share")
    return share


def parse_payout(value: Any, places: int) -> Payout:
    """``["0.5", "0.3", "0.2"]`` (shares of the pool, summing to 1) or
    ``{"fixed": ["100", "60"]}`` (amounts in the currency)."""
    kind, items = "shares", value
    if isinstance(value, dict):
        if set(value) != {"fixed"}:
            raise PrizeError(Message("prizes.shape"), "prizes")
        kind, items = "fixed", value["fixed"]
    if not isinstance(items, list) or not items or len(items) > MAX_PRIZES:
        raise PrizeError(Message("prizes.shape"), "prizes")
    if kind == "fixed":
        amounts = tuple(_amount(v, f"prizes.fixed.{i}", places) for i, v in enumerate(items))
        return Payout(kind, amounts)
    shares = []
    for i, item in enumerate(items):
        share = parse_decimal(item, PrizeError, Message("prizes.not_amount", value=as_sent(item)),
                              f"prizes.{i}")
        if not Decimal(0) < share <= 1:
            raise PrizeError(Message("prizes.share", value=item), f"prizes.{i}")
        shares.append(share)
    if sum(shares) != 1:
        raise PrizeError(Message("prizes.shares_sum", total=sum(shares)), "prizes")
    return Payout(kind, tuple(shares))


def prize_list(fees: Decimal, house_share: Decimal, payout: Payout,
               places: Sequence[tuple[int, Sequence[str]]], currency_places: int,
               currency: str | None = None) -> PrizeList:
    """The prizes for ``places`` (``(place, players)`` best first, as the standings give
    them), in units of ``currency_places`` decimal places (``currency``: the money's words
    when fixed prizes come to more than the pool)."""
    unit = Decimal(1).scaleb(-currency_places)
    house = (fees * house_share).quantize(unit, rounding=ROUND_FLOOR)
    pool = fees - house
    fixed = sum(payout.amounts, Decimal(0))
    if payout.kind == "fixed" and fixed > pool:
        raise PrizeError(Message("prizes.over_pool", total=said_amount(fixed, currency, "money"),
                                 pool=said_amount(pool, currency, "money")), "prizes")

    def worth(first: int, count: int) -> Decimal:
        """What the ``count`` places from place ``first + 1`` pay together: their fixed
        amounts, or their shares of the pool added, then rounded down."""
        part = sum(payout.amounts[first:first + count], Decimal(0))
        return part if payout.kind == "fixed" else (pool * part).quantize(
            unit, rounding=ROUND_FLOOR)

    groups: list[tuple[int, list[str], Decimal]] = []
    covered = 0
    for place, players in places:
        if covered >= len(payout.amounts) or not players:
            break
        names = sorted(players, key=lambda n: (n.casefold(), n))
        groups.append((place, names, worth(covered, len(names))))
        covered += len(names)
    if groups:
        place, names, first = groups[0]
        groups[0] = (place, names, first + pool - sum(g[2] for g in groups))
    prizes: list[Prize] = []
    for place, names, total in groups:
        each = (total / len(names)).quantize(unit, rounding=ROUND_FLOOR)
        extra = int((total - each * len(names)) / unit)
        if extra:
            prizes.append(Prize(place, tuple(names[:extra]), each + unit))
        if len(names) > extra:
            prizes.append(Prize(place, tuple(names[extra:]), each))
    paid = sum((p.amount * len(p.players) for p in prizes), Decimal(0))
    if prizes and paid != pool:  # pragma: no cover - the arithmetic above makes it so
        raise AssertionError(f"prizes sum to {paid}, not the pool {pool}")
    return PrizeList(fees, house, pool, tuple(prizes))
