"""The explanation of a settled hand: what happened, which rule applies and who pays whom,
in sentences a table can check.

Every sentence is a :class:`~app.core.messages.Message` of the catalogue (``explain.*``),
never English built in place; :attr:`Result.explanation <app.core.settle.Result>` renders
them. It reads a result through :class:`Settled` (what a settled hand holds), so that
settlement may build its explanation without the two modules importing each other.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Protocol

from .catches import CaughtDrop, find_catch
from .hand import PlayedHand, catch_groups, deal_claims
from .messages import Message, join_and, multiple_word, render
from .money import spoken_amount, with_sign
from .rules import PRESETS, Rules


class Paid(Protocol):
    """One payment of a settled hand, as the explanation reads it."""

    @property
    def payer(self) -> str: ...
    @property
    def payee(self) -> str: ...
    @property
    def amount(self) -> Decimal: ...
    @property
    def rule(self) -> str: ...


class Settled(Protocol):
    """A settled hand, as the explanation reads it (:class:`app.core.settle.Result`)."""

    @property
    def hand(self) -> PlayedHand: ...
    @property
    def outcome(self) -> str: ...
    @property
    def winners(self) -> tuple[str, ...]: ...
    @property
    def payments(self) -> Sequence[Paid]: ...
    @property
    def net(self) -> Mapping[str, Decimal] | None: ...
    @property
    def pushed(self) -> Mapping[str, int] | None: ...
    @property
    def multiple(self) -> int: ...


def explain(result: Settled) -> list[Message]:
    """The result in plain sentences: what happened, which rule applies, who pays whom."""
    hand = result.hand
    end = hand.end
    lines: list[Message] = []
    if end.kind == "tonk_out":
        how = ("double_double" if end.double_double else
               f"{end.method}_first_turn" if end.first_turn else end.method)
        lines.append(Message("explain.tonk_out", player=end.player,
                             how=Message(f"explain.how.{how}")))
    elif end.kind == "run_out":
        lines.append(Message("explain.run_out", player=end.player))
    elif end.kind == "drop":
        lines.extend(_explain_drop(result))
    elif end.kind == "stock_out":
        lines.extend(_explain_stock_out(result))
    elif end.kind == "deal":
        lines.extend(_explain_deal(result))
    else:
        lines.append(Message("explain.dead"))
    if hand.multiplier > 1 and result.outcome not in ("draw", "dead"):
        lines.append(Message("explain.big_one", n=hand.multiplier))
    if result.pushed is not None:
        lines.append(_explain_push_ups(result))
    else:
        lines.extend(_explain_payments(result))
    return [in_own_words(hand.rules, line) for line in lines]


def _amount(result: Settled) -> Callable[[Decimal], Message]:
    fmt = spoken_amount(result.hand.rules)
    if result.hand.rules.scoring == "money":
        return lambda value: Message("explain.amount.money", amount=fmt(value))
    return lambda value: Message("explain.amount.point" if value == 1 else "explain.amount.points",
                                 amount=fmt(value))


def _explain_payments(result: Settled) -> list[Message]:
    """One sentence for each payer and payee who settle by several rules ("Bob pays Cy 0.50
    in all: …"), then the rest grouped by payee, amount and rule ("Ann and Dee each pay …"),
    then the net."""
    amount = _amount(result)
    pairs: dict[tuple[str, str], list[tuple[Decimal, str]]] = {}
    for pay in result.payments:
        pairs.setdefault((pay.payer, pay.payee), []).append((pay.amount, pay.rule))
    lines: list[Message] = []
    groups: dict[tuple[str, Decimal, str], list[str]] = {}
    for (payer, payee), parts in pairs.items():
        if len(parts) > 1:
            lines.append(Message(
                "explain.pays_in_all", payer=payer, payee=payee,
                amount=amount(sum((a for a, _ in parts), Decimal(0))),
                parts=join_and(Message("explain.part", amount=amount(a), rule=rule)
                               for a, rule in parts)))
        else:
            groups.setdefault((payee, parts[0][0], parts[0][1]), []).append(payer)
    for (payee, value, rule), payers in groups.items():
        lines.append(Message("explain.pays" if len(payers) == 1 else "explain.each_pay",
                             payers=join_and(payers), payee=payee, amount=amount(value),
                             rule=rule))
    if result.net is not None and result.payments:
        fmt = spoken_amount(result.hand.rules)
        parts_said = [Message("explain.net_part", player=p,
                              amount=with_sign(v, fmt(abs(v))))
                      for p, v in result.net.items()]
        lines.append(Message("explain.net",
                             parts=join_and(parts_said)))
    return lines


def _explain_push_ups(result: Settled) -> Message:
    if result.outcome in ("draw", "dead"):
        return Message("explain.push_ups_none")
    assert result.pushed is not None
    pushed = [f"{p} {v}" for p, v in result.pushed.items() if v]
    return Message("explain.push_ups_one" if len(result.winners) == 1 else
                   "explain.push_ups_many", winners=join_and(result.winners),
                   factor=result.multiple * result.hand.multiplier,
                   pushed=render("list.separator").join(pushed) or "0")


def _explain_drop(result: Settled) -> list[Message]:
    hand = result.hand
    counts, players = hand.counts, hand.players
    caught = catch_groups(hand)
    if caught is None:
        seat = hand.players.index(hand.end.player or "")
        others = sorted((counts[s], players[s]) for s in hand.from_left if s != seat)
        return [Message("explain.drop_won", dropper=players[seat],
                        count=counts[seat], next=others[0][1], next_count=others[0][0])]
    scheme = find_catch(hand.rules.catch)
    dropper, mine = players[caught.dropper], caught.count(caught.dropper)
    named = caught.catchers if scheme.pays_catchers else caught.winners
    holds = join_and(Message("explain.holds", player=players[s], count=caught.count(s))
                     for s in named)
    tie = any(caught.count(s) == mine for s in named)
    lines = [Message("explain.caught_tie" if tie else "explain.caught", dropper=dropper,
                     count=mine, holds=holds)]
    unpaid = [players[s] for s in caught.catchers if s not in caught.winners]
    if unpaid and not scheme.pays_catchers:
        lines.append(Message("explain.caught_unpaid", players=join_and(unpaid),
                             dropper=dropper))
    lines.extend(_catch_winners(result, caught))
    lines.append(Message("explain.catch_rule", title=scheme.title, summary=scheme.summary))
    return lines


def _catch_winners(result: Settled, caught: CaughtDrop) -> list[Message]:
    """Who is paid: the lowest, unless the scheme says it in words of its own."""
    hand = result.hand
    low = [hand.players[s] for s in caught.winners]
    lowest = caught.count(caught.winners[0])
    if len(low) == 1:
        lines = [Message("explain.lowest", player=low[0], count=lowest)]
    else:
        lines = [Message("explain.lowest_tie", players=join_and(low), count=lowest)]
    explained = find_catch(hand.rules.catch).explained
    return lines if explained is None else explained(caught, hand, lines)


def in_own_words(rules: Rules, line: Message) -> Message:
    """``line`` in the preset's own words (:attr:`~app.core.rules.Preset.words`), where it
    has some and ``rules`` keep the options they speak of as the preset sets them."""
    preset = PRESETS[rules.preset]
    own = preset.words.get(line.id)
    if own is None or any(getattr(rules, o) != getattr(preset.rules, o) for o in own[1]):
        return line
    return Message(own[0], **dict(line.params))


def _explain_stock_out(result: Settled) -> list[Message]:
    hand = result.hand
    if result.outcome == "dead":
        return [Message("explain.stock_out_dead")]
    lowest = min(c for c in hand.counts if c is not None)
    low = [hand.players[s] for s in hand.from_left if hand.counts[s] == lowest]
    if result.outcome == "draw":
        if len(low) == len(hand.players):
            return [Message("explain.stock_out_all_equal", count=lowest)]
        return [Message("explain.stock_out_tie_draw", players=join_and(low), count=lowest)]
    if len(low) == 1:
        return [Message("explain.stock_out", player=low[0], count=lowest)]
    return [Message("explain.stock_out_tie_paid", players=join_and(low), count=lowest)]


def _explain_deal(result: Settled) -> list[Message]:
    hand = result.hand
    rules = hand.rules
    claims = deal_claims(hand)
    said = []
    for seat, index, _ in claims:
        win = rules.deal_wins[index]
        what: object = (Message("deal_win.five_face_cards") if win.five_face_cards
                        else hand.counts[seat])
        said.append(Message("explain.dealt", player=hand.players[seat], what=what,
                            rule=win.describe(), pays=multiple_word(win.pays)))
    lines = [Message("explain.sentence", text=join_and(said))]
    if len(claims) == 1:
        lines.append(Message("explain.deal_win", player=result.winners[0]))
    elif rules.deal_conflict == "draw":
        lines.append(Message("explain.deal_conflict_draw"))
    elif rules.deal_conflict == "all_paid":
        lines.append(Message("explain.deal_everyone" if result.outcome == "draw"
                             else "explain.deal_all_paid"))
    elif result.outcome == "draw":
        lines.append(Message("explain.deal_best_tie_draw"))
    else:
        best = min((i, r) for _, i, r in claims)
        tied = [c for c in claims if (c[1], c[2]) == best]
        if len(tied) > 1:
            lines.append(Message("explain.deal_best_tie_nearest", player=result.winners[0],
                                 dealer=hand.dealer_name))
        else:
            lines.append(Message("explain.deal_best", player=result.winners[0]))
    return lines
