"""The side bets on the hand form (docs/rules.md §9): one line per bet the session plays, with
who is in (everyone at the table unless unticked), who won (or nobody) and, for the
high-card bet, the suit called unless the table fixes it; and back: a domain error's field
→ the line's field. The words of the side-bet options a new session's form offers.

The forms are read by the core (:mod:`app.core.handform` the lines of a hand,
:mod:`app.core.tableform` the options of a session: the phone reads them too with no
signal); the bets are checked by the core, once, through the ledger.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from flask_babel import lazy_gettext as _l

from ...core.handform import Chosen
from ...core.sidebets import BETS, SUITS

#: What each line asks, as the scorekeeper says it.
BET_TITLES: dict[str, Any] = {"high_card": _l("High card"), "naturals": _l("Naturals")}
BET_HINTS: dict[str, Any] = {
    "high_card": _l("Whoever of those in is dealt the highest card of the suit called "
                    "takes the pot."),
    "naturals": _l("The first to spread three of a kind takes the pot; it carries until "
                   "won."),
}
SUIT_NAMES: dict[str, Any] = {"S": _l("Spades"), "H": _l("Hearts"), "D": _l("Diamonds"),
                              "C": _l("Clubs")}


@dataclass(frozen=True)
class SideBetLine:
    """One side bet on the hand form."""

    bet: str
    title: str
    hint: str
    stake: Decimal
    names: tuple[str, ...]
    ticked: frozenset[str]
    winner: str
    suit: str
    fixed_suit: str | None
    suits: tuple[tuple[str, str], ...]


def chosen_of_hand(data: Mapping[str, Any]) -> dict[str, Chosen]:
    """A stored hand's side bets, as its correction form shows them."""
    return {p["bet"]: (tuple(p["players"]), p.get("winner") or "", p.get("suit") or "")
            for p in data.get("side_bets", [])}


def side_bet_lines(spec: Mapping[str, Any], names: Sequence[str],
                   chosen: Mapping[str, Chosen] | None) -> list[SideBetLine]:
    """One line per bet the session plays; ``chosen`` None: a new hand (everyone in,
    nobody won yet)."""
    lines = []
    for bet in BETS:
        if bet not in spec:
            continue
        options = spec[bet]
        ticked, winner, suit = (chosen or {}).get(
            bet, (tuple(names) if chosen is None else (), "", ""))
        lines.append(SideBetLine(
            bet, str(BET_TITLES[bet]), str(BET_HINTS[bet]), Decimal(options["stake"]),
            tuple(names), frozenset(ticked), winner, suit, options.get("suit"),
            tuple((s, str(SUIT_NAMES[s])) for s in SUITS)))
    return lines


# -- which side bets a session or league plays ----------------------------------------------

UNCLAIMED_WORDS: dict[str, Any] = {
    "carry": _l("the pot carries to the next deal"),
    "return": _l("each stake goes back"),
}


@dataclass(frozen=True)
class BetChoices:
    """What the side-bet options of a form offer."""

    titles: Mapping[str, Any]
    hints: Mapping[str, Any]
    suits: Mapping[str, Any]
    unclaimed: Mapping[str, Any]


BET_CHOICES = BetChoices(BET_TITLES, BET_HINTS, SUIT_NAMES, UNCLAIMED_WORDS)


def side_bet_choices() -> BetChoices:
    """For the templates (a global: macros see globals, not the context)."""
    return BET_CHOICES
