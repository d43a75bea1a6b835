"""Settlement: who pays whom, how much and under which rule, for one valid :class:`Hand`.

The work is done in whole multiples of the stake (``units``) and turned into money once,
at the end, as ``stake × multiplier × units``: exact, with no rounding anywhere. The
explanation in plain sentences is built only when asked for (:attr:`Result.explanation`).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property
from typing import Any, NamedTuple

from .hand import Hand
from .rules import CATCHES, Rules, multiple_word

OUTCOMES = ("deal_win", "tonk_out", "run_out", "drop_won", "caught", "stock_out", "draw",
            "dead")

# A payment while settling: (payer seat, payee seat, multiple of the stake, rule key).
_Pay = tuple[int, int, int, str]


class Payment(NamedTuple):
    """One amount moved from one player to another, and the rule that moved it."""

    payer: str
    payee: str
    amount: Decimal
    rule: str


@dataclass(frozen=True)
class Result:
    """The settlement of one hand (RULES.md §8). ``net`` under money and points scoring,
    ``pushed`` under push-ups; the other is None."""

    hand: Hand
    outcome: str
    winners: tuple[str, ...]
    payments: tuple[Payment, ...]
    net: Mapping[str, Decimal] | None
    pushed: Mapping[str, int] | None
    multiple: int

    @cached_property
    def explanation(self) -> tuple[str, ...]:
        """Plain sentences a table can check, built on first use."""
        return tuple(explain(self))

    def to_json(self) -> dict[str, Any]:
        """The result in the JSON shape of RULES.md §8 (money as decimal strings)."""
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


def amount_formatter(rules: Rules) -> Callable[[Decimal], str]:
    """Money with two decimal places; points as whole numbers."""
    if rules.scoring == "money":
        return lambda d: f"{d:.2f}"
    return lambda d: f"{d:.0f}"


# -- rule texts ------------------------------------------------------------------------------

_CATCH_NAMES = {"standard": "standard catch", "alt1": "catch, alternative 1",
                "alt2": "catch, alternative 2", "alt3": "catch, alternative 3",
                "alt4": "catch, alternative 4", "alt5": "catch, alternative 5",
                "wikipedia": "encyclopedia catch", "catchers": "catchers' catch",
                "washington": "Washington State catch"}


def rule_text(rules: Rules, key: str) -> str:
    """What the rule called ``key`` says, in words, under ``rules``."""
    w = multiple_word
    if key.startswith("deal."):
        win = rules.deal_wins[int(key[5:])]
        return f"instant win on the deal: {win.describe()} pays {w(win.pays)}"
    catch = _CATCH_NAMES[rules.catch] + ": "
    texts = {
        "tonk_out": f"tonk out pays {w(rules.tonk_out_pays)}",
        "tonk_out.hits": f"tonk out by hitting spreads pays {w(rules.tonk_out_by_hits_pays or 0)}",
        "tonk_out.first_turn": "two spreads on the first turn pay "
                               f"{w(rules.first_turn_spread_pays or 0)}",
        "tonk_out.double_double": f"double-double pays {w(rules.double_double_pays or 0)}",
        "run_out": f"run out pays {w(rules.run_out_pays)}",
        "drop_won": f"a won drop pays {w(rules.drop_win_pays)}",
        "stock_out": f"stock out: the lowest count is paid {w(rules.stock_out_pays)}",
        "catch.dropper_to_catcher": catch + "the dropper pays double to each player at or "
                                            "below their count",
        "catch.others_to_winner": catch + "each other player pays the lowest the stake",
        "catch.alt1_dropper": catch + "the dropper pays the lowest double",
        "catch.alt2": catch + "the dropper pays the lowest one stake per other player",
        "catch.alt3_catcher": catch + "the dropper pays the stake to each player at or below "
                                      "their count",
        "catch.alt3_winner": catch + "everyone, the dropper too, pays the lowest the stake",
        "catch.alt4": catch + "the dropper pays double to every other player",
        "catch.alt5": catch + "the dropper pays five times the stake to the lowest",
        "catch.wiki_lower": catch + "the dropper pays the stake to each player with fewer "
                                    "points",
        "catch.wiki_tie": catch + "a winner tied with the dropper is paid double",
        "catch.wiki_winner": catch + "each player pays the winner the stake",
        "catch.catchers": catch + f"the dropper pays {w(rules.catch_factor)} to each player "
                                  "at or below their count",
        "catch.washington": catch + "the dropper pays the lowest two per player at the table",
    }
    return texts[key]


_TEXT_CACHE: dict[tuple[int, str], tuple[Rules, str]] = {}


def _text(rules: Rules, key: str) -> str:
    # Keyed by identity: a table's Rules object is made once and reused for every hand.
    hit = _TEXT_CACHE.get((id(rules), key))
    if hit is not None and hit[0] is rules:
        return hit[1]
    text = rule_text(rules, key)
    if len(_TEXT_CACHE) > 4096:
        _TEXT_CACHE.clear()
    _TEXT_CACHE[(id(rules), key)] = (rules, text)
    return text


# -- the ends of a hand ----------------------------------------------------------------------

def deal_claims(hand: Hand) -> list[tuple[int, int, int]]:
    """Every qualifying instant win on the deal: (seat, rule index, rank within the rule),
    a lower rule index and rank being a better claim (RULES.md §4)."""
    claims = []
    five = hand.end.five_face_cards
    for seat, total in enumerate(hand.counts):
        is_five = hand.players[seat] in five
        if total is None and not is_five:
            continue
        for index, win in enumerate(hand.rules.deal_wins):
            rank = win.claims(total, is_five)
            if rank is not None:
                claims.append((seat, index, rank))
                break
    return claims


def _deal(hand: Hand, n: int) -> tuple[str, list[int], list[_Pay], int]:
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
            if rules.deal_tie == "draw":
                return "draw", [], [], 0
            tied = [next(s for s in hand.from_left if s in tied)]
        claims = [c for c in claims if c[0] == tied[0]]
    seat, index, _ = claims[0]
    m = rules.deal_wins[index].pays
    return "deal_win", [seat], [(p, seat, m, f"deal.{index}") for p in hand.from_left
                                if p != seat], m


def _tonk_out(hand: Hand) -> tuple[int, str]:
    rules, end = hand.rules, hand.end
    if end.double_double and rules.double_double_pays is not None:
        return rules.double_double_pays, "tonk_out.double_double"
    if end.first_turn and end.method == "spread" and rules.first_turn_spread_pays is not None:
        return rules.first_turn_spread_pays, "tonk_out.first_turn"
    if end.method == "hits" and rules.tonk_out_by_hits_pays is not None:
        return rules.tonk_out_by_hits_pays, "tonk_out.hits"
    return rules.tonk_out_pays, "tonk_out"


def catch_groups(hand: Hand) -> tuple[int, list[int], list[int], list[int]]:
    """For a drop: (dropper, W the lowest others, K the catchers, O everyone but the dropper
    and W), each in order from the dealer's left (RULES.md §5). W is empty if the drop won."""
    counts = hand.counts
    dropper = hand.players.index(hand.end.player or "")
    mine = counts[dropper]
    order = [s for s in hand.from_left if s != dropper]
    lowest = min(counts[s] for s in order)  # type: ignore[type-var]
    assert mine is not None and lowest is not None
    if mine < lowest:
        return dropper, [], [], []
    winners = [s for s in order if counts[s] == lowest]
    catchers = [s for s in order if counts[s] <= mine]  # type: ignore[operator]
    others = [s for s in order if s not in winners]
    return dropper, winners, catchers, others


def _caught(hand: Hand, n: int, d: int, w: list[int], k: list[int], o: list[int]
            ) -> tuple[list[int], list[_Pay]]:
    scheme = hand.rules.catch
    if scheme == "standard":
        return w, ([(d, c, 2, "catch.dropper_to_catcher") for c in k]
                   + [(p, x, 1, "catch.others_to_winner") for x in w for p in o])
    if scheme == "alt1":
        return w, ([(d, x, 2, "catch.alt1_dropper") for x in w]
                   + [(p, x, 1, "catch.others_to_winner") for x in w for p in o])
    if scheme == "alt2":
        return w, [(d, x, n - 1, "catch.alt2") for x in w]
    if scheme == "alt3":
        return w, ([(d, c, 1, "catch.alt3_catcher") for c in k]
                   + [(p, x, 1, "catch.alt3_winner") for x in w for p in [d, *o]])
    if scheme == "alt4":
        return w, [(d, p, 2, "catch.alt4") for p in hand.from_left if p != d]
    if scheme == "alt5":
        return w[:1], [(d, w[0], 5, "catch.alt5")]
    if scheme == "wikipedia":
        counts, mine = hand.counts, hand.counts[d]
        return w, ([(d, p, 1, "catch.wiki_lower") for p in k
                    if counts[p] < mine]  # type: ignore[operator]
                   + [(d, x, 1, "catch.wiki_tie") for x in w if counts[x] == mine]
                   + [(p, x, 1, "catch.wiki_winner") for x in w for p in [d, *o]])
    if scheme == "catchers":
        return k, [(d, c, hand.rules.catch_factor, "catch.catchers") for c in k]
    assert scheme == "washington", scheme
    return w, [(d, x, 2 * n, "catch.washington") for x in w]


def _stock_out(hand: Hand, n: int) -> tuple[str, list[int], list[_Pay], int]:
    rules = hand.rules
    if rules.stock_out_pays == 0:
        return "dead", [], [], 0
    counts = hand.counts
    lowest = min(counts)  # type: ignore[type-var]
    low = [s for s in hand.from_left if counts[s] == lowest]
    if len(low) == n or (len(low) > 1 and rules.stock_out_tie == "draw"):
        return "draw", [], [], 0
    m = rules.stock_out_pays
    return "stock_out", low, [(p, x, m, "stock_out") for x in low for p in hand.from_left
                              if p not in low], m


def _outcome(hand: Hand) -> tuple[str, list[int], list[_Pay], int]:
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
        return kind, [seat], [(p, seat, m, key) for p in hand.from_left if p != seat], m
    if kind == "drop":
        d, w, k, o = catch_groups(hand)
        if not w:
            m = rules.drop_win_pays
            return "drop_won", [d], [(p, d, m, "drop_won") for p in hand.from_left
                                     if p != d], m
        winners, pays = _caught(hand, n, d, w, k, o)
        return "caught", winners, pays, 1
    if kind == "stock_out":
        return _stock_out(hand, n)
    if kind == "deal":
        return _deal(hand, n)
    return "dead", [], [], 0


def settle(hand: Hand) -> Result:
    """Settle one valid hand: the payments, each with its rule, and every player's net."""
    outcome, winners, pays, multiple = _outcome(hand)
    players = hand.players
    rules = hand.rules
    winner_names = tuple(players[s] for s in winners)
    if rules.scoring == "push_ups":
        factor = multiple * hand.multiplier
        pushed = {p: 0 if (s in winners or not factor) else (hand.counts[s] or 0) * factor
                  for s, p in enumerate(players)}
        return Result(hand, outcome, winner_names, (), None, pushed, multiple)
    unit = hand.stake * hand.multiplier
    units = [0] * len(players)
    payments = []
    for payer, payee, m, key in pays:
        units[payer] -= m
        units[payee] += m
        payments.append(Payment(players[payer], players[payee], unit * m, _text(rules, key)))
    net = {p: unit * u for p, u in zip(players, units, strict=True)}
    return Result(hand, outcome, winner_names, tuple(payments), net, None, multiple)


# -- explanation -----------------------------------------------------------------------------

def _names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def explain(result: Result) -> list[str]:
    """The result in plain sentences: what happened, which rule applies, who pays whom."""
    hand = result.hand
    rules, end = hand.rules, hand.end
    fmt = amount_formatter(rules)
    unit_word = "" if rules.scoring == "money" else " points"
    lines: list[str] = []
    kind = end.kind
    if kind == "tonk_out":
        how = {"spread": "with a spread", "hits": "by hitting spreads"}[end.method]
        if end.double_double:
            how = "with a double-double"
        elif end.first_turn:
            how += " on the first turn"
        lines.append(f"{end.player} tonked out {how}, without a final discard.")
    elif kind == "run_out":
        lines.append(f"{end.player} ran out, discarding the last card.")
    elif kind == "drop":
        lines.extend(_explain_drop(result))
    elif kind == "stock_out":
        lines.extend(_explain_stock_out(result))
    elif kind == "deal":
        lines.extend(_explain_deal(result))
    else:
        lines.append("The hand is dead (thrown in, misdealt or void): nobody pays.")
    if hand.multiplier > 1 and result.outcome not in ("draw", "dead"):
        lines.append(f"The Big One: every amount is multiplied by {hand.multiplier}.")
    if result.pushed is not None:
        if result.outcome in ("draw", "dead"):
            lines.append("Push-ups: nobody is pushed up.")
        else:
            pushed = [f"{p} {v}" for p, v in result.pushed.items() if v]
            factor = result.multiple * hand.multiplier
            lines.append(f"Push-ups: {_names(list(result.winners))} "
                         f"{'scores' if len(result.winners) == 1 else 'score'} 0; the others "
                         f"are pushed up by their count × {factor}: {', '.join(pushed) or '0'}.")
        return lines
    # Group payments that share payee, amount and rule: "Ann, Bob and Dee each pay Cy 2.00".
    groups: dict[tuple[str, Decimal, str], list[str]] = {}
    for pay in result.payments:
        groups.setdefault((pay.payee, pay.amount, pay.rule), []).append(pay.payer)
    for (payee, amount, rule), payers in groups.items():
        each = " each" if len(payers) > 1 else ""
        verb = "pay" if len(payers) > 1 else "pays"
        lines.append(f"{_names(payers)}{each} {verb} {payee} {fmt(amount)}{unit_word} ({rule}).")
    if result.net is not None and result.payments:
        parts = [f"{p} {'+' if v > 0 else ''}{fmt(v)}" for p, v in result.net.items()]
        lines.append("Net: " + ", ".join(parts) + ".")
    return lines


def _explain_drop(result: Result) -> list[str]:
    hand = result.hand
    counts, players = hand.counts, hand.players
    d, w, k, _ = catch_groups(hand)
    dropper, mine = players[d], counts[d]
    if not w:
        others = sorted((counts[s], players[s]) for s in hand.from_left if s != d)
        return [f"{dropper} dropped with {mine}; the next lowest is {others[0][1]} with "
                f"{others[0][0]}, so {dropper} has the lowest count and wins."]
    holds = _names([f"{players[c]} holds {counts[c]}" for c in k])
    tie = any(counts[c] == mine for c in k)
    why = ": a tie goes against the dropper, so" if tie else ", so"
    lines = [f"{dropper} dropped with {mine}; {holds}{why} {dropper} is caught."]
    low = [players[s] for s in w]
    if len(low) == 1:
        lines.append(f"{low[0]} has the lowest count, {counts[w[0]]}.")
    else:
        lines.append(f"{_names(low)} tie for the lowest count, {counts[w[0]]}.")
    if hand.rules.catch == "alt5" and len(low) > 1:
        lines.append(f"Only the one nearest the dealer's left is paid: {low[0]}.")
    lines.append(f"Catch rule ({_CATCH_NAMES[hand.rules.catch]}): {CATCHES[hand.rules.catch]}.")
    return lines


def _explain_stock_out(result: Result) -> list[str]:
    hand = result.hand
    if result.outcome == "dead":
        return ["The stock ran out; under these house rules that makes the hand dead, and "
                "nobody pays."]
    lowest = min(c for c in hand.counts if c is not None)
    low = [hand.players[s] for s in hand.from_left if hand.counts[s] == lowest]
    if result.outcome == "draw":
        if len(low) == len(hand.players):
            return [f"The stock ran out with every player on {lowest}: a draw, nobody pays."]
        return [f"The stock ran out; {_names(low)} tie for the lowest count, {lowest}: under "
                "these house rules that is a draw, and nobody pays."]
    if len(low) == 1:
        return [f"The stock ran out; {low[0]} holds the lowest count, {lowest}, and wins."]
    return [f"The stock ran out; {_names(low)} tie for the lowest count, {lowest}, and each "
            "of them is paid by everyone else."]


def _explain_deal(result: Result) -> list[str]:
    hand = result.hand
    rules = hand.rules
    claims = deal_claims(hand)
    said = []
    for seat, index, _ in claims:
        name = hand.players[seat]
        what = ("five face cards" if rules.deal_wins[index].five_face_cards
                else str(hand.counts[seat]))
        said.append(f"{name} was dealt {what} ({rules.deal_wins[index].describe()} pays "
                    f"{multiple_word(rules.deal_wins[index].pays)})")
    lines = [_names(said) + "."]
    if len(claims) == 1:
        lines.append(f"{result.winners[0]} wins on the deal; the hand is not played.")
        return lines
    if rules.deal_conflict == "draw":
        lines.append("Several players won on the deal: under these house rules that is a "
                     "draw, and nobody pays.")
    elif rules.deal_conflict == "all_paid":
        if result.outcome == "draw":
            lines.append("Everyone won on the deal, so nobody pays.")
        else:
            lines.append("Under these house rules every instant win on the deal is paid.")
    elif result.outcome == "draw":
        lines.append("Only the best instant win is paid, and the best are equal: under these "
                     "house rules that is a draw, and nobody pays.")
    else:
        best = min((i, r) for _, i, r in claims)
        tied = [c for c in claims if (c[1], c[2]) == best]
        if len(tied) > 1:
            lines.append(f"Only the best instant win is paid; the best are equal, and "
                         f"{result.winners[0]}, nearest the dealer's left, wins.")
        else:
            lines.append(f"Only the best instant win is paid: {result.winners[0]}'s.")
    return lines

