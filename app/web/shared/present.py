"""What the pages show, built from the ledger's values: amounts in the table's own terms,
rows of hands, one hand in full, sessions at a glance, house rules in words, and the same
hand under other house rules.

Every number a template shows is made here, so templates hold no arithmetic.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any

from babel.numbers import get_decimal_symbol, get_group_symbol
from flask import g, has_app_context
from flask_babel import get_locale, ngettext
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup

from ...core import PRESETS, Rules, TonkError
from ...core.compare import Ruling, compare
from ...core.hand import END_KINDS, HAND_FIELDS
from ...core.messages import join_and
from ...core.money import (
    CENT_PLACES,
    currency_places,
    format_money,
    from_minor,
    money_places,
    with_sign,
)
from ...core.restate import reworded, reworded_side_bets
from ...core.rules import DEAL_TIES, multiple_word
from ...core.tableform import OPTION_CHOICES
from ...db.models import GameSession, Hand
from ...services.sessions import (
    Ledger,
    counted_hands,
    history,
    money_of,
    rules_of,
    session_rules,
    session_stake,
)
from .forms import option_label
from .sidebets import BET_TITLES

OUTCOMES: dict[str, Any] = {
    "deal_win": _l("Won on the deal"), "tonk_out": _l("Tonk out"), "run_out": _l("Run out"),
    "drop_won": _l("Drop won"), "caught": _l("Caught drop"), "stock_out": _l("Stock ran out"),
    "draw": _l("Draw"), "dead": _l("Dead hand"),
}
ACTIONS: dict[str, Any] = {"recorded": _l("Recorded"), "corrected": _l("Corrected"),
                           "voided": _l("Voided")}


# -- amounts ---------------------------------------------------------------------------------

@lru_cache(maxsize=32)
def _separators(locale: str) -> dict[int, str]:
    """How ``locale`` writes ``1,234.50``: its group and decimal signs, looked up once."""
    return {ord(","): get_group_symbol(locale), ord("."): get_decimal_symbol(locale)}


def amount(value: Decimal, scoring: str, currency: str | None = None) -> str:
    """``1234.5`` → ``1,234.50`` in money, ``1,235`` in points (in the reader's locale),
    without a sign. Python's own formatting with the locale's two signs swapped in: the
    same text as Babel's ``#,##0.00`` in the pages' languages (all group by three), at a
    fraction of the cost on a page of hundreds of amounts."""
    if scoring == "money" and currency:  # a list of tables: each its own currency's places
        text = f"{abs(value):,.{currency_places(currency)}f}"
    elif scoring == "money":
        places = g.get("money_places", CENT_PLACES) if has_app_context() else CENT_PLACES
        text = f"{abs(value):,.{places}f}"
    else:
        text = f"{abs(value):,.0f}"
    return text.translate(_separators(str(get_locale() or "en")))


def money(value: Decimal, currency: str, scoring: str = "money") -> str:
    """A table's amount with its currency, as the reader's language writes money
    (``1.234,50 €``, ``￥1,235``; points: the number alone). :mod:`app.core.money` is the
    home of the format."""
    if scoring != "money":
        return amount(value, scoring)
    return format_money(value, currency, str(get_locale() or "en"))


def use_currency(currency: str) -> None:
    """The page being made shows amounts of ``currency``: write them with its decimal places
    (yen: none; most: two)."""
    g.money_places = currency_places(currency)


def signed(value: Decimal, scoring: str, currency: str | None = None) -> str:
    """An amount with its sign spelled out: ``+1.50``, ``−1.50``, ``0.00``."""
    return with_sign(value, amount(value, scoring, currency))


def score(value: Decimal, scoring: str, currency: str | None = None) -> Markup:
    """A gain or loss as the pages show it: the sign and a colour that says the same (blue up,
    orange down). Under push-ups a number is points pushed up, without a sign."""
    if scoring == "push_ups":
        return Markup('<span class="amt">{}</span>').format(amount(value, scoring))
    tone = "pos" if value > 0 else "neg" if value < 0 else "zero"
    return Markup('<span class="amt {}">{}</span>').format(tone, signed(value, scoring,
                                                                        currency))


def minor_label(scoring: str) -> Callable[[int], str]:
    """How the chart writes a running total given in minor units."""
    if scoring == "push_ups":
        return lambda minor: amount(from_minor(minor), scoring)
    return lambda minor: signed(from_minor(minor), scoring)


def end_word(kind: str) -> str:
    """``tonk_out`` → the words of ``END_KINDS``, from the core's catalogue."""
    return str(END_KINDS[kind]) if kind in END_KINDS else kind


def upper_first(text: str) -> str:
    """``drop`` → ``Drop`` (the rest as it is: German nouns keep their capitals)."""
    return text[:1].upper() + text[1:]


def outcome_word(outcome: str) -> str:
    return str(OUTCOMES.get(outcome, outcome))


def listed(items: Sequence[object]) -> str:
    """Names (or anything) as a list in the reader's language: Babel's list pattern."""
    return str(join_and(items))


def hand_line(outcome: str, winners: Sequence[str], data: Mapping[str, Any]) -> str:
    """Who did what in one hand, as one whole sentence of the reader's language: ``Dee
    dropped, caught by Bob``, ``Ann won on the deal with 49``, ``Stock ran out: Cy low with
    3``. Never a bare code, never a role that depends on its place in the line."""
    end = data.get("end") or {}
    kind, player = end.get("kind"), end.get("player") or ""
    counts: Mapping[str, int] = data.get("counts") or {}
    if outcome == "caught":
        return _("%(dropper)s dropped, caught by %(catchers)s", dropper=player,
                 catchers=listed(winners))
    if outcome == "drop_won":
        return _("%(name)s dropped and won", name=player)
    if outcome == "tonk_out":
        return _("%(name)s tonked out", name=player or listed(winners))
    if outcome == "run_out":
        return _("%(name)s ran out", name=player or listed(winners))
    if outcome == "deal_win":
        five = set(end.get("five_face_cards") or ())
        if len(winners) == 1 and winners[0] in five:
            return _("%(name)s won on the deal with five face cards", name=winners[0])
        if len(winners) == 1 and counts.get(winners[0]) is not None:
            return _("%(name)s won on the deal with %(count)s", name=winners[0],
                     count=counts[winners[0]])
        each = [_("%(name)s (five face cards)", name=w) if w in five else
                _("%(name)s (%(count)s)", name=w, count=counts[w]) if w in counts else w
                for w in winners]
        return _("Won on the deal: %(players)s", players=listed(each))
    if kind == "stock_out" and counts:
        low = min(counts.values())
        if outcome == "stock_out":
            return _("Stock ran out: %(names)s low with %(count)s", names=listed(winners),
                     count=low)
        if outcome == "draw":
            return _("Stock ran out: %(names)s tied low with %(count)s, a draw",
                     names=listed([n for n, c in counts.items() if c == low]), count=low)
        return _("Stock ran out: nobody pays")
    if outcome == "draw":
        return _("More than one won on the deal: a draw, nobody pays")
    if outcome == "dead":
        return _("Dead hand: nobody pays")
    return outcome_word(outcome)


# -- hands -----------------------------------------------------------------------------------

def _values(result: Mapping[str, Any]) -> tuple[tuple[str, Decimal], ...]:
    """Each player's net (or push-up) in a stored result, as Decimals."""
    values = result.get("net") or result.get("pushed") or {}
    return tuple((name, Decimal(str(v))) for name, v in values.items())


@dataclass(frozen=True)
class HandRow:
    """One hand in a list: its number, how it ended, who won and each player's net."""

    number: int
    outcome: str
    winners: tuple[str, ...]
    nets: tuple[tuple[str, Decimal], ...]
    voided: bool
    multiplier: int
    corrected: bool = False  # counts as corrected (a void hand is marked void instead)
    side_bets: bool = False  # side bets were played (their money is shown on the hand;
    # a void hand plays none)


def hand_row(hand: Hand) -> HandRow:
    result = hand.result
    return HandRow(hand.number, hand_line(hand.outcome, result["winners"], hand.data),
                   tuple(result["winners"]),
                   _values(result), hand.voided, hand.data.get("multiplier", 1),
                   hand.version > 1 and not hand.voided,
                   bool(hand.data.get("side_bets")) and not hand.voided)


@dataclass(frozen=True)
class PaymentRow:
    payer: str
    payee: str
    amount: Decimal
    rule: str


def payments(result: Mapping[str, Any]) -> list[PaymentRow]:
    return [PaymentRow(p["from"], p["to"], Decimal(p["amount"]), p["rule"])
            for p in result["payments"]]


@dataclass(frozen=True)
class Recorded:
    """A hand just recorded, for the box on the session page: what it paid."""

    row: HandRow
    payments: list[PaymentRow]
    side_bets: list[SideBetLines]


@dataclass(frozen=True)
class SideBetLines:
    """A side bet of a hand as settled: its title, its rule, its own sentences (apart from
    the hand's result) and what is in its pot after."""

    title: str
    rule: str
    explanation: list[str]
    pot: Decimal


def side_bet_lines(hand: Hand) -> list[SideBetLines]:
    """A hand's side bets as settled, their sentences (stored in English) in the reader's
    words and money format."""
    if not hand.side_result:
        return []
    scoring = hand_rules(hand).scoring
    with money_places(g.get("money_places", CENT_PLACES)):
        shown = reworded_side_bets(hand.side_result, hand.session.side_bets_spec, scoring,
                                   hand.session.currency)
    return [SideBetLines(str(BET_TITLES.get(s["bet"], s["bet"])), s["rule"],
                         list(s["explanation"]), Decimal(s["pot"]))
            for s in shown]


def recorded(hand: Hand) -> Recorded:
    return Recorded(hand_row(hand), payments(shown_result(hand.data, hand.result)),
                    side_bet_lines(hand))


def shown_result(data: Mapping[str, Any], result: Mapping[str, Any]) -> Mapping[str, Any]:
    """A stored result (kept in English, :func:`app.core.messages.in_english`) in the
    reader's language: the stored hand settled again for its words (each payment's rule,
    the explanation); the numbers stay those stored, and if they were to differ the stored
    words stay too."""
    places = g.get("money_places", CENT_PLACES)
    if str(get_locale() or "en") == "en" and places == CENT_PLACES:
        return result
    with money_places(places):  # a yen table's explanation: no decimals
        return reworded(data, result)


@dataclass(frozen=True)
class Version:
    """One version of a hand in its history."""

    version: int
    action: str
    at: datetime
    by: str
    reason: str | None
    outcome: str
    winners: tuple[str, ...]
    nets: tuple[tuple[str, Decimal], ...]
    facts: list[str]
    voided: bool = False  # this version voided the hand: its money no longer counts


@dataclass(frozen=True)
class Seat:
    """What one player held at the end of a hand."""

    name: str
    count: int | None
    cards: tuple[str, ...]


@dataclass(frozen=True)
class HandDetail:
    """One hand in full: what happened, who paid whom under which rule, the rules it was
    settled under and every version."""

    row: HandRow
    end: str
    dealer: str
    stake: Decimal
    explanation: list[str]
    payments: list[PaymentRow]
    seats: list[Seat]
    rules_title: str
    rules_words: list[tuple[str, str]]
    history: list[Version]
    version: int  # the current one: a correction or void is made from it
    scoring: str
    side_bets: list[SideBetLines] = field(default_factory=list)


def facts(data: Mapping[str, Any]) -> list[str]:
    """A hand's facts in short words: how it ended, by whom, the counts."""
    end = data["end"]
    said = [upper_first(end_word(end["kind"]))]  # who did it: the ruling's line says
    if end.get("method") == "hits":
        said.append(_("with a hit"))
    if end.get("first_turn"):
        said.append(_("first turn"))
    if end.get("double_double"):
        said.append(_("double-double"))
    if end.get("five_face_cards"):
        said.append(_("five face cards: %(names)s", names=", ".join(end["five_face_cards"])))
    counts = data.get("counts", {})
    if counts:
        said.append(", ".join(f"{n} {c}" for n, c in counts.items()))
    if data.get("multiplier", 1) > 1:
        said.append(_("The Big One ×%(n)s", n=data["multiplier"]))
    return said


def hand_rules(hand: Hand) -> Rules:
    """The rules a stored hand was settled under (a correction keeps them)."""
    return rules_of(json.dumps(hand.data["rules"]))


def hand_detail(hand: Hand) -> HandDetail:
    data = hand.data
    result = shown_result(data, hand.result)
    rules = hand_rules(hand)
    counts, cards = data.get("counts", {}), data.get("cards", {})
    versions = [Version(v["version"], str(ACTIONS.get(v["action"], v["action"])),
                        v["at"], v["by"], v["reason"],
                        hand_line(v["result"]["outcome"], v["result"]["winners"], v["hand"]),
                        tuple(v["result"]["winners"]),
                        _values(v["result"]), facts(v["hand"]), v["action"] == "voided")
                for v in history(hand)]
    return HandDetail(
        row=hand_row(hand), end=upper_first(end_word(data["end"]["kind"])),
        dealer=data["dealer"],
        stake=Decimal(data["stake"]), explanation=list(result["explanation"]),
        payments=payments(result),
        seats=[Seat(n, counts.get(n), tuple(cards.get(n, ()))) for n in data["players"]],
        rules_title=rules_title(rules), rules_words=rules_words(rules), history=versions,
        version=hand.version, scoring=rules.scoring, side_bets=side_bet_lines(hand))


def hand_count(hands: int, voided: int) -> str:
    """A session's hands as its pages and its result for the chat say them: "13 hands, 1 of
    them void" (``hands``: those that count)."""
    said = ngettext("%(num)s hand", "%(num)s hands", hands + voided)
    if voided:
        said += ", " + ngettext("%(num)s of them void", "%(num)s of them void", voided)
    return said


# -- rules -----------------------------------------------------------------------------------

def rules_title(rules: Rules) -> str:
    return str(PRESETS[rules.preset].title)


def rules_named(rules: Rules) -> dict[str, Any]:
    """What the ``rules_said`` macro reads of a rule set: its preset's title and each option
    that differs from it (a league's header, as a session's names its rules)."""
    return {"rules_title": rules_title(rules), "rules_words": rules_words(rules)}


def rules_words(rules: Rules) -> list[tuple[str, str]]:
    """Each option that differs from the preset, as (what it is, its value in words)."""
    return [(option_label(name), option_words(rules, name)) for name in rules.overrides()]


def option_words(rules: Rules, name: str) -> str:
    """One option's value under ``rules``, in words ("double", "none", a choice's meaning)."""
    value = getattr(rules, name)
    if name in OPTION_CHOICES:
        return str(OPTION_CHOICES[name][value])
    if name == "deal_wins":
        return "; ".join(_("%(what)s pays %(pays)s", what=w.describe(),
                           pays=multiple_word(w.pays))
                         + (f" ({DEAL_TIES[w.tie]})" if w.tie else "")
                         for w in value) or _("none")
    if value is None:
        return _("none")
    return str(value)


# -- sessions --------------------------------------------------------------------------------

@dataclass(frozen=True)
class SessionCard:
    """A session at a glance: its name, state and each player's running total."""

    id: int
    name: str
    created_at: datetime
    closed: bool
    hands: int
    scoring: str
    currency: str
    totals: tuple[tuple[str, Decimal], ...]
    voided: int = 0
    archived: bool = False


def session_card(gs: GameSession) -> SessionCard:
    """A session's card: each player's total as the session's page shows it
    (:func:`app.services.sessions.money_of`, what the pots give back included)."""
    return SessionCard(gs.id, gs.name, gs.created_at, gs.is_closed, counted_hands(gs),
                       session_rules(gs).scoring, gs.currency,
                       tuple((n, m.total) for n, m in money_of(gs, parts=False).items()),
                       gs.voided_hands, gs.is_archived)


@dataclass(frozen=True)
class TableFacts:
    """The facts about a session every one of its pages shows in its header."""

    scoring: str
    stake: Decimal
    rules_title: str
    rules_words: list[tuple[str, str]]


def table(gs: GameSession) -> TableFacts:
    """The session's header facts; the amounts of the page it heads are then written with
    its currency's decimal places (yen: none)."""
    use_currency(gs.currency)
    rules = session_rules(gs)
    return TableFacts(rules.scoring, session_stake(gs), rules_title(rules), rules_words(rules))


@dataclass(frozen=True)
class TotalRow:
    """One player's standing as a line that adds up on the screen: the hands, the side
    bets, what the pots give back at settle-up, and the total settled (what who-pays-whom
    squares)."""

    name: str
    hands: Decimal
    side_bets: Decimal
    returned: Decimal
    total: Decimal


@dataclass(frozen=True)
class Totals:
    """The totals of a session; ``side_bets``: it played side bets (show the parts)."""

    rows: list[TotalRow]
    side_bets: bool


def total_rows(state: Ledger, gs: GameSession) -> Totals:
    """Each player's money (the ledger's, :func:`app.core.night.player_money`) as lines
    that add up: hands + side bets + back = total; the parts are shown when the session
    plays side bets (or its pots hold money)."""
    rows = [TotalRow(name, m.hands, m.side_bets, m.pots_back, m.total)
            for name, m in state.money.items()]
    side = bool(gs.side_bets_json) or any(r.side_bets or r.returned for r in rows)
    return Totals(rows, side)


def standings(totals: Mapping[str, Decimal]) -> list[tuple[str, Decimal]]:
    """Push-ups: the players, lowest total (the best) first."""
    return sorted(totals.items(), key=lambda item: item[1])


# -- rulings: the same hand under other rules ----------------------------------------------

@dataclass(frozen=True)
class RulingRow:
    """One row of "under other house rules": a rule set's ruling, each player's net (or
    push-up) and whether it differs from the table's own ruling; or why it cannot be
    settled under them."""

    title: str
    own: bool
    scoring: str
    outcome: str
    winners: tuple[str, ...]
    winners_differ: bool
    cells: tuple[tuple[Decimal | None, bool], ...]
    error: str | None
    note: str | None


def ruling_rows(rulings: list[Ruling], players: tuple[str, ...],
                data: Mapping[str, Any]) -> list[RulingRow]:
    rows = []
    for r in rulings:
        values = r.values()
        rows.append(RulingRow(
            str(r.title), r.own, r.rules.scoring if r.rules else "money",
            hand_line(r.result.outcome, r.result.winners, data) if r.result else "",
            r.result.winners if r.result else (), r.winners_differ,
            tuple((values.get(p), p in r.differs) for p in players),
            r.error.message if r.error else None, str(r.note) if r.note else None))
    return rows


def other_rules(hand: Hand) -> list[RulingRow]:
    """A recorded hand under every preset, the rules it was settled under first (none if
    it cannot be settled any more, e.g. a void hand's facts)."""
    data = {k: v for k, v in hand.data.items() if k in HAND_FIELDS}
    try:
        return ruling_rows(compare(data), tuple(hand.data["players"]), data)
    except TonkError:
        return []
