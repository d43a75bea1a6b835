"""The side bets on the hand form (docs/rules.md §9): one line per bet the session plays, with
who is in (everyone at the table unless unticked), who won (or nobody) and, for the
high-card bet, the suit called unless the table fixes it; and back: the form → the hand's
``side_bets``, and a domain error's field → the line's field.

Only the form is read here: the bets are checked by the core, once, through the ledger.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from flask_babel import lazy_gettext as _l
from werkzeug.datastructures import MultiDict

from ..core.handform import Chosen
from ..core.sidebets import BETS, SUITS

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


def side_bet_field(field: str | None, bets: Sequence[str]) -> str | None:
    """``side_bets[1].winner`` → ``sb-naturals-winner``; None if not about a side bet."""
    if not field or not field.startswith("side_bets"):
        return None
    head, _dot, part = field.partition(".")
    try:
        bet = bets[int(head[len("side_bets["):-1])]
    except (ValueError, IndexError):
        return "form"
    return f"sb-{bet}-{_PARTS.get(part, 'in')}"


_PARTS = {"players": "in", "winner": "winner", "suit": "suit"}


# -- which side bets a session or league plays ----------------------------------------------

#: The side-bet options as the form shows them: bet → on ("1" or ""), stake, suit, unclaimed.
Options = dict[str, dict[str, str]]
UNCLAIMED_WORDS: dict[str, Any] = {
    "carry": _l("the pot carries to the next deal"),
    "return": _l("each stake goes back"),
}


def options_of_spec(spec: Mapping[str, Any] | None) -> Options:
    """Stored side bets (or a league's, for its new session) → the form."""
    return {bet: {"on": "1" if bet in (spec or {}) else "",
                  "stake": str((spec or {}).get(bet, {}).get("stake") or ""),
                  "suit": (spec or {}).get(bet, {}).get("suit") or "",
                  "unclaimed": (spec or {}).get(bet, {}).get("unclaimed") or "carry"}
            for bet in BETS}


def options_of_form(form: MultiDict[str, str]) -> Options:
    return {bet: {"on": "1" if form.get(f"sb-{bet}") else "",
                  "stake": form.get(f"sb-{bet}-stake", "").strip()[:100].replace(",", "."),
                  "suit": form.get(f"sb-{bet}-suit", "").strip()[:10],
                  "unclaimed": form.get(f"sb-{bet}-unclaimed", "carry").strip()[:10]}
            for bet in BETS}


def spec_of_options(options: Options) -> dict[str, Any]:
    """The form → ``side_bets`` for the ledger (docs/rules.md §9): only the bets ticked; an empty
    stake is the table's own."""
    spec: dict[str, Any] = {}
    for bet, chosen in options.items():
        if not chosen["on"]:
            continue
        bet_spec: dict[str, Any] = {"stake": chosen["stake"] or None}
        if bet == "high_card":
            bet_spec["suit"] = chosen["suit"] or None
            bet_spec["unclaimed"] = chosen["unclaimed"] or "carry"
        spec[bet] = bet_spec
    return spec


def option_field(field: str) -> str:
    """``side_bets.naturals.stake`` → ``sb-naturals-stake``; ``side_bets`` as it is."""
    parts = field.split(".")
    if len(parts) >= 2 and parts[1] in BETS:
        return f"sb-{parts[1]}-{parts[2]}" if len(parts) > 2 else f"sb-{parts[1]}"
    return "side_bets"


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
