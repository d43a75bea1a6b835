"""A house-rule card: every rule of a rule set in the words the dispute checker uses for it
(:func:`~app.core.settle.rule_text`, the catch schemes' own texts), where it is written
(:func:`~app.core.sources.source_of`) and whether it differs from the pagat.com rules.

The card is read before the first hand, so that a table agrees what is in force; nothing
here is new wording of a rule: each line is the sentence a ruling on /check would give.
"""
from __future__ import annotations

from dataclasses import dataclass

from .catches import find_catch
from .messages import Message
from .rules import PRESETS, Rules
from .settle import rule_text
from .sources import Source, source_of

#: The options that set the game up rather than pay anyone, shown as "what: value".
SETUP_OPTIONS = ("scoring", "deck", "jokers", "face_value", "hand_size", "deal_conflict",
                 "deal_tie", "stock_out_tie")


#: Rules whose texts can be read two ways, with the reading the app settles by and why
#: (``reading.*``), said on the card under the rule; a catch scheme declares its own.
READINGS: dict[str, Message] = {"tonk_out.hits": Message("reading.tonk_out.hits")}


@dataclass(frozen=True, slots=True)
class CardLine:
    """One payment rule of a card: ``key`` as in a payment (``tonk_out``, ``deal.0``,
    ``catch.alt3.dropper``), its words, its source, whether pagat says otherwise, and how the
    app reads the text where it can be read two ways (:data:`READINGS`)."""

    key: str
    text: Message
    source: Source
    differs: bool
    reading: Message | None = None


def payment_keys(rules: Rules) -> list[str]:
    """Every rule that can move money under ``rules``, in the order a hand is played."""
    keys = [f"deal.{i}" for i in range(len(rules.deal_wins))]
    keys.append("tonk_out")
    for key, pays in (("tonk_out.hits", rules.tonk_out_by_hits_pays),
                      ("tonk_out.first_turn", rules.first_turn_spread_pays),
                      ("tonk_out.double_double", rules.double_double_pays)):
        if pays is not None:
            keys.append(key)
    keys += ["run_out", "drop_won"]
    keys += find_catch(rules.catch).rule_keys
    if rules.stock_out_pays:
        keys.append("stock_out")
    return keys


def _said(rules: Rules) -> dict[str, tuple[str, str]]:
    """key → (the rule's words, its source's id) under ``rules``, rendered now."""
    return {key: (str(rule_text(rules, key)), source_of(rules, key).id)
            for key in payment_keys(rules)}


def rule_card(rules: Rules) -> list[CardLine]:
    """The card's payment rules; a line differs when pagat has no rule of the same words
    and source (pagat's own card marks nothing). Under push-ups a caught drop's rules say
    who wins, not what is paid (docs/rules.md §6): each says so."""
    pagat = set(_said(PRESETS["pagat"].rules).values())
    readings = {**READINGS, **find_catch(rules.catch).readings}
    if rules.scoring == "push_ups":
        readings |= {key: Message("reading.push_ups_catch")
                     for key in find_catch(rules.catch).rule_keys}
    return [CardLine(key, rule_text(rules, key), source_of(rules, key),
                     (text, source) not in pagat, readings.get(key))
            for key, (text, source) in _said(rules).items()]


def dropped_pagat_rules(rules: Rules) -> list[CardLine]:
    """The pagat rules that are NOT in force under ``rules`` (e.g. no instant win on the
    deal with the encyclopedia's rules): what a table used to pagat would otherwise expect."""
    pagat = PRESETS["pagat"].rules
    kept = {text for text, _source in _said(rules).values()}
    return [CardLine(key, rule_text(pagat, key), source_of(pagat, key), True)
            for key, (text, _source) in _said(pagat).items() if text not in kept]


def setup_options(rules: Rules) -> list[str]:
    """The setup options a card of ``rules`` shows: every one but the number of jokers when
    the deck has none. (Under push-ups a tied stock out still decides who is pushed up.)"""
    return [name for name in SETUP_OPTIONS if name != "jokers" or rules.deck == "jokers"]


def setup_differs(rules: Rules) -> dict[str, bool]:
    """For each setup option: does ``rules`` set it otherwise than pagat?"""
    pagat = PRESETS["pagat"].rules
    return {name: getattr(rules, name) != getattr(pagat, name) for name in SETUP_OPTIONS}

