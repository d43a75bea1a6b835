"""Settlement: who pays whom, how much and under which rule, for one valid :class:`PlayedHand`.

The work is done in whole multiples of the stake (``units``) and turned into money once,
at the end, as ``stake × multiplier × units``: exact, with no rounding anywhere. The
explanation in plain sentences is built only when asked for (:attr:`Result.explanation`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NamedTuple

from .catches import CATCH_SCHEMES, Pay, find_catch
from .explain import explain
from .frozen import maker
from .hand import PlayedHand, catch_groups, deal_claims
from .messages import Message, multiple_word, reading
from .money import amount_formatter
from .rules import Rules

OUTCOMES = ("deal_win", "tonk_out", "run_out", "drop_won", "caught", "stock_out", "draw",
            "dead")

_Pay = Pay


class Payment(NamedTuple):
    """One amount moved from one player to another, the rule that moved it in words, and
    that rule's key (``tonk_out``, ``deal.0``, ``catch.alt3.dropper``: see
    :mod:`app.core.sources`)."""

    payer: str
    payee: str
    amount: Decimal
    rule: str
    key: str = ""


@dataclass(frozen=True, slots=True)
class Result:
    """The settlement of one hand (docs/rules.md §8). ``net`` under money and points scoring,
    ``pushed`` under push-ups; the other is None."""

    hand: PlayedHand
    outcome: str
    winners: tuple[str, ...]
    payments: tuple[Payment, ...]
    net: Mapping[str, Decimal] | None
    pushed: Mapping[str, int] | None
    multiple: int
    _sentences: tuple[Message, ...] | None = field(default=None, init=False, repr=False,
                                                   compare=False)

    @property
    def sentences(self) -> tuple[Message, ...]:
        """The explanation as messages of the catalogue, built on first use."""
        if self._sentences is None:
            object.__setattr__(self, "_sentences", tuple(explain(self)))
        assert self._sentences is not None
        return self._sentences

    @property
    def explanation(self) -> tuple[str, ...]:
        """Plain sentences a table can check, in the catalogue's language."""
        return tuple(map(str, self.sentences))

    def to_json(self) -> dict[str, Any]:
        """The result in the JSON shape of docs/rules.md §8 (money as decimal strings)."""
        fmt = amount_formatter(self.hand.rules)
        out: dict[str, Any] = {
            "outcome": self.outcome,
            "winners": list(self.winners),
            "payments": [{"from": p.payer, "to": p.payee, "amount": fmt(p.amount),
                          "rule": p.rule} for p in self.payments],
        }
        if self.pushed is not None:
            out["pushed"] = dict(self.pushed)
        else:
            assert self.net is not None
            out["net"] = {k: fmt(v) for k, v in self.net.items()}
        out["explanation"] = list(self.explanation)
        return out


# -- rule texts ------------------------------------------------------------------------------

def rule_text(rules: Rules, key: str) -> Message:
    """What the rule called ``key`` says, in words, under ``rules``."""
    w = multiple_word
    if key.startswith("deal."):
        win = rules.deal_wins[int(key[5:])]
        return Message("rule.deal", what=win.describe(), pays=w(win.pays))
    if key.startswith("catch."):  # the scheme names the option its texts say
        option = find_catch(key.split(".")[1]).pays_option
        return Message(f"rule.{key}", pays=w(getattr(rules, option) if option else 0))
    pays = {"tonk_out": rules.tonk_out_pays, "tonk_out.hits": rules.tonk_out_by_hits_pays,
            "tonk_out.first_turn": rules.first_turn_spread_pays,
            "tonk_out.double_double": rules.double_double_pays,
            "run_out": rules.run_out_pays, "drop_won": rules.drop_win_pays,
            "stock_out": rules.stock_out_pays}.get(key)
    return Message(f"rule.{key}", pays=w(pays or 0))


# -- the ends of a hand ----------------------------------------------------------------------

def deal_tie(rules: Rules, index: int) -> str:
    """How equal best claims under ``deal_wins[index]`` are decided: the entry's own ``tie``,
    else ``deal_tie`` (docs/rules.md §4)."""
    return rules.deal_wins[index].tie or rules.deal_tie


def _deal(hand: PlayedHand, n: int) -> tuple[str, list[int], Sequence[_Pay], int]:
    rules = hand.rules
    claims = deal_claims(hand)
    pays_of = {seat: rules.deal_wins[index].pays for seat, index, _ in claims}
    if len(claims) > 1:
        if rules.deal_conflict == "draw":
            return "draw", [], [], 0
        if rules.deal_conflict == "all_paid":
            if len(claims) == n:
                return "draw", [], [], 0
            seats = [s for s in hand.from_left if s in pays_of]
            pays = [(p, s, pays_of[s], f"deal.{i}") for s, i, _ in
                    sorted(claims, key=lambda c: seats.index(c[0]))
                    for p in hand.from_left if p not in pays_of]
            return "deal_win", seats, pays, max(pays_of.values())
        best = min((index, rank) for _, index, rank in claims)
        tied = [seat for seat, index, rank in claims if (index, rank) == best]
        if len(tied) > 1:
            if deal_tie(rules, best[0]) == "draw":
                return "draw", [], [], 0
            tied = [next(s for s in hand.from_left if s in tied)]
        claims = [c for c in claims if c[0] == tied[0]]
    seat, index, _ = claims[0]
    m = rules.deal_wins[index].pays
    return "deal_win", [seat], _each_pays(hand, seat, m, f"deal.{index}"), m


#: (players, dealer, winner, multiple, rule key) → each other player's payment to the winner,
#: from the dealer's left: the usual ends (a tonk out, a run out, a drop won) of a table.
_EACH: dict[tuple[int, int, int, int, str], tuple[_Pay, ...]] = {}


def _each_pays(hand: PlayedHand, seat: int, m: int, key: str) -> tuple[_Pay, ...]:
    """Every player but ``seat`` pays ``seat`` ``m`` under the rule ``key``."""
    known = (len(hand.players), hand.dealer, seat, m, key)
    pays = _EACH.get(known)
    if pays is None:
        if len(_EACH) >= 4096:
            _EACH.clear()
        pays = _EACH[known] = tuple([(p, seat, m, key) for p in hand.from_left if p != seat])
    return pays


def _tonk_out(hand: PlayedHand) -> tuple[int, str]:
    rules, end = hand.rules, hand.end
    if end.double_double and rules.double_double_pays is not None:
        return rules.double_double_pays, "tonk_out.double_double"
    if end.first_turn and end.method == "spread" and rules.first_turn_spread_pays is not None:
        return rules.first_turn_spread_pays, "tonk_out.first_turn"
    if end.method == "hits" and rules.tonk_out_by_hits_pays is not None:
        return rules.tonk_out_by_hits_pays, "tonk_out.hits"
    return rules.tonk_out_pays, "tonk_out"


def _stock_out(hand: PlayedHand, n: int) -> tuple[str, list[int], Sequence[_Pay], int]:
    rules = hand.rules
    if rules.stock_out_pays == 0:
        return "dead", [], [], 0
    counts = hand.counts
    lowest = min(counts)  # type: ignore[type-var]
    low = [s for s in hand.from_left if counts[s] == lowest]
    if len(low) == n or (len(low) > 1 and rules.stock_out_tie == "draw"):
        return "draw", [], [], 0
    m = rules.stock_out_pays
    if len(low) == 1:
        return "stock_out", low, _each_pays(hand, low[0], m, "stock_out"), m
    return "stock_out", low, [(p, x, m, "stock_out") for x in low for p in hand.from_left
                              if p not in low], m


def _outcome(hand: PlayedHand) -> tuple[str, list[int], Sequence[_Pay], int]:
    """(outcome, winner seats, payments in units, the win multiple for push-ups)."""
    end, rules = hand.end, hand.rules
    kind = end.kind
    n = len(hand.players)
    if kind == "tonk_out" or kind == "run_out":
        seat = hand.players.index(end.player or "")
        if kind == "tonk_out":
            m, key = _tonk_out(hand)
        else:
            m, key = rules.run_out_pays, "run_out"
        return kind, [seat], _each_pays(hand, seat, m, key), m
    if kind == "drop":
        caught = catch_groups(hand)
        if caught is None:
            d = hand.players.index(end.player or "")
            m = rules.drop_win_pays
            return "drop_won", [d], _each_pays(hand, d, m, "drop_won"), m
        winners, pays = CATCH_SCHEMES[rules.catch].payout(caught)
        return "caught", list(winners), pays, 1
    if kind == "stock_out":
        return _stock_out(hand, n)
    if kind == "deal":
        return _deal(hand, n)
    return "dead", [], [], 0


# -- money ---------------------------------------------------------------------------------

_make_result = maker(Result)
_new_payment = tuple.__new__
_PaysKey = tuple[_Pay, ...]


class _Purse:
    """What one table pays with, for the reader reading now: its rules' texts by key (put in
    words once, not once a payment) and its stake's multiples (``unit * k``, each worked out
    once: a table pays the same few amounts hand after hand)."""

    __slots__ = ("amounts", "rules", "stake", "words")

    def __init__(self, rules: Rules, stake: Decimal, multiplier: int) -> None:
        self.rules, self.stake = rules, stake  # kept: their ids stay theirs
        self.words: dict[str, str] = {}
        self.amounts = _Multiples(stake if multiplier == 1 else stake * multiplier)

    def pay(self, players: tuple[str, ...], pays: _PaysKey
            ) -> tuple[tuple[Payment, ...], dict[str, Decimal]]:
        """The payments, in money and words, and every player's net."""
        amounts, words, rules = self.amounts, self.words, self.rules
        units = [0] * len(players)
        payments = []
        for payer, payee, m, key in pays:
            units[payer] -= m
            units[payee] += m
            text = words.get(key)
            if text is None:
                text = words[key] = str(rule_text(rules, key))
            payments.append(_new_payment(Payment, (players[payer], players[payee], amounts[m],
                                                   text, key)))
        return tuple(payments), dict(zip(players, map(amounts.__getitem__, units)))  # noqa: B905


class _Multiples(dict[int, Decimal]):
    """A unit's multiples by how many (``unit * k``), each worked out on first use."""

    __slots__ = ("unit",)

    def __init__(self, unit: Decimal) -> None:
        super().__init__()
        self.unit = unit

    def __missing__(self, k: int) -> Decimal:
        amount = self[k] = self.unit * k
        return amount


#: (id of the rules, id of the stake, multiplier, :func:`~app.core.messages.reading`) → the
#: table's purse (a stake written otherwise, ``1`` or ``1.00``, is another purse).
_PURSES: dict[tuple[int, int, int, object], _Purse] = {}
#: (purse, players, payments in units) → (payments, net): what a table's usual outcomes pay,
#: settled once (a table sees the same few hand after hand); the net is copied when given out.
_PAID: dict[tuple[_Purse, tuple[str, ...], _PaysKey],
            tuple[tuple[Payment, ...], dict[str, Decimal]]] = {}
_REMEMBERED = 4096


def _purse(rules: Rules, stake: Decimal, multiplier: int) -> _Purse:
    key = (id(rules), id(stake), multiplier, reading())
    found = _PURSES.get(key)
    if found is not None and found.rules is rules and found.stake is stake:
        return found
    if len(_PURSES) >= 1024:
        _PURSES.clear()
    found = _PURSES[key] = _Purse(rules, stake, multiplier)
    return found


def settle(hand: PlayedHand) -> Result:
    """Settle one valid hand: the payments, each with its rule, and every player's net."""
    outcome, winners, pays, multiple = _outcome(hand)
    players = hand.players
    winner_names = tuple(map(players.__getitem__, winners))
    if hand.rules.scoring == "push_ups":
        factor = multiple * hand.multiplier
        pushed = {p: 0 if (s in winners or not factor) else (hand.counts[s] or 0) * factor
                  for s, p in enumerate(players)}
        return _make_result(hand, outcome, winner_names, (), None, pushed, multiple, None)
    purse = _purse(hand.rules, hand.stake, hand.multiplier)
    if not pays:
        return _make_result(hand, outcome, winner_names, (),
                            dict.fromkeys(players, purse.amounts[0]), None, multiple, None)
    key = (purse, players, tuple(pays))
    paid = _PAID.get(key)
    if paid is None:
        if len(_PAID) >= _REMEMBERED:
            _PAID.clear()
        paid = _PAID[key] = purse.pay(players, key[2])
    return _make_result(hand, outcome, winner_names, paid[0], dict(paid[1]), None, multiple,
                        None)
