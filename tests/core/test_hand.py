"""Every kind of bad input that docs/rules.md names, each with the message a person reads."""
from __future__ import annotations

from decimal import Decimal

import pytest

from app.core import (
    CardError,
    HandError,
    RulesError,
    UnknownOptionError,
    UnknownPresetError,
    parse_hand,
    resolve_rules,
)
from app.core.hand import END_KINDS, count_mode, missing_counts
from app.core.rules import PRESETS

TABLE = ["Ann", "Bob", "Cy", "Dee"]


def hand(**changes):
    base = {"rules": "pagat", "stake": "1", "players": TABLE, "dealer": "Dee",
            "end": {"kind": "drop", "player": "Ann"},
            "counts": {"Ann": 4, "Bob": 5, "Cy": 30, "Dee": 12}}
    base.update(changes)
    return base


def fails(data, error=HandError):
    with pytest.raises(error) as info:
        parse_hand(data)
    return info.value


@pytest.mark.parametrize("changes, error, field, message", [
    # rules
    ({"rules": "vegas"}, UnknownPresetError, "rules.preset", 'no house rules called "vegas"'),
    ({"rules": {"preset": "reno"}}, UnknownPresetError, "rules.preset", 'called "reno"'),
    ({"rules": {"catch_everything": True}}, UnknownOptionError, "rules.catch_everything",
     'no rule option called "catch_everything"'),
    ({"rules": {"catch": "alt9"}}, RulesError, "rules.catch", '"Caught drop" must be one of'),
    ({"rules": {"hand_size": 14}}, RulesError, "rules.hand_size", "from 1 to 13, not 14"),
    ({"rules": {"tonk_out_pays": True}}, RulesError, "rules.tonk_out_pays", "whole number"),
    ({"rules": {"stock_out_pays": -1}}, RulesError, "rules.stock_out_pays", "from 0 to"),
    ({"rules": {"deal_wins": [{"totals": [49], "at_most": 9, "pays": 2}]}}, RulesError,
     "rules.deal_wins[0]", "exactly one of totals, at_most or five_face_cards"),
    ({"rules": {"deck": "forty", "deal_wins": [{"totals": [49], "pays": 2}]}}, RulesError,
     "rules.deal_wins", "no five cards of this deck add up to 49"),
    ({"rules": 7}, RulesError, "rules", "preset name"),
    # stake
    ({"stake": "0"}, HandError, "stake", "more than zero"),
    ({"stake": "-1"}, HandError, "stake", "more than zero"),
    ({"stake": "1000000.01"}, HandError, "stake", "at most 1,000,000"),
    ({"stake": "0.255"}, HandError, "stake", "at most two decimal places"),
    ({"stake": "a quarter"}, HandError, "stake", 'like "0.25"'),
    ({"stake": "NaN"}, HandError, "stake", 'like "0.25"'),
    ({"stake": 0.25}, HandError, "stake", 'like "0.25"'),
    ({"stake": True}, HandError, "stake", 'like "0.25"'),
    ({"rules": "washington", "stake": "0.5"}, HandError, "stake", "whole number of points"),
    # multiplier
    ({"multiplier": 0}, HandError, "multiplier", "from 1 to 1000"),
    ({"multiplier": "2"}, HandError, "multiplier", "whole number"),
    ({"multiplier": True}, HandError, "multiplier", "whole number"),
    # players and dealer
    ({"players": ["Ann"]}, HandError, "players", "2 to 8 players, not 1"),
    ({"players": [f"P{i}" for i in range(9)]}, HandError, "players", "not 9"),
    ({"players": ["Ann", "ann"]}, HandError, "players[1]", "ann sits at the table twice"),
    ({"players": ["Ann", " "]}, HandError, "players[1]", "player 2's name cannot be empty"),
    ({"players": "Ann, Bob"}, HandError, "players", "list of names"),
    ({"dealer": "Zed"}, HandError, "dealer", "Zed is not at the table"),
    # end
    ({"end": {"kind": "gin"}}, HandError, "end.kind", "end.kind must be one of"),
    ({"end": "drop"}, HandError, "end", "how the hand ended"),
    ({"end": {"kind": "drop"}}, HandError, "end.player", "needs the player who dropped"),
    ({"end": {"kind": "drop", "player": "Zed"}}, HandError, "end.player",
     "Zed is not at the table"),
    ({"end": {"kind": "tonk_out", "player": "Ann", "method": "knock"}, "counts": None},
     HandError, "end.method", '"spread" or "hits"'),
    ({"end": {"kind": "tonk_out", "player": "Ann", "first_turn": "yes"}, "counts": None},
     HandError, "end.first_turn", "true or false"),
    ({"end": {"kind": "tonk_out", "player": "Ann", "double_double": 1}, "counts": None,
      "rules": "wikipedia"}, HandError, "end.double_double", "true or false"),
    ({"end": {"kind": "tonk_out", "player": "Ann", "double_double": True}, "counts": None},
     HandError, "end.double_double", "do not play double-doubles"),
    ({"end": {"kind": "stock_out", "player": "Ann"}}, HandError, "end.player",
     'has no field "player"'),
    ({"end": {"kind": "deal", "five_face_cards": ["Ann"]}, "counts": {"Ann": 50}},
     HandError, "end.five_face_cards", "no instant win for five face cards"),
    # counts
    ({"counts": {"Ann": 4, "Bob": 5}}, HandError, "counts.Cy",
     "Cy's count is missing: a drop needs every player's count"),
    ({"end": {"kind": "stock_out"}, "counts": {"Ann": 4, "Bob": 5, "Cy": 6}}, HandError,
     "counts.Dee", "Dee's count is missing"),
    ({"counts": {"Ann": 4, "Bob": 5, "Cy": 2, "Zed": 3}}, HandError, "counts.Zed",
     "Zed is not at the table"),
    ({"counts": {"Ann": "7", "Bob": 5, "Cy": 2, "Dee": 3}}, HandError, "counts.Ann",
     'whole number, not "7"'),
    ({"counts": {"Ann": Decimal("7.5"), "Bob": 5, "Cy": 2, "Dee": 3}}, HandError,
     "counts.Ann", "whole number"),
    ({"counts": {"Ann": True, "Bob": 5, "Cy": 2, "Dee": 3}}, HandError, "counts.Ann",
     "whole number, not true"),
    ({"counts": {"Ann": -1, "Bob": 5, "Cy": 2, "Dee": 3}}, HandError, "counts.Ann",
     "cannot be negative"),
    ({"counts": {"Ann": 4, "Bob": 51, "Cy": 2, "Dee": 3}}, HandError, "counts.Bob",
     "51 is more than five cards can hold (at most 50)"),
    ({"rules": {"face_value": "rank"}, "counts": {"Ann": 4, "Bob": 65, "Cy": 2, "Dee": 3}},
     HandError, "counts.Bob", "at most 64"),
    ({"rules": "seattle", "counts": {"Ann": 4, "Bob": 71, "Cy": 2, "Dee": 3}},
     HandError, "counts.Bob", "seven cards can hold (at most 70)"),
    ({"rules": "baton_rouge", "counts": {"Ann": 4, "Bob": 49, "Cy": 2, "Dee": 3}},
     HandError, "counts.Bob", "no five cards of this deck add up to 49"),
    ({"end": {"kind": "tonk_out", "player": "Ann"}, "counts": {"Ann": 3}}, HandError,
     "counts.Ann", "Ann went out, so holds no points"),
    ({"end": {"kind": "run_out", "player": "Bob"}, "counts": {"Bob": 1}}, HandError,
     "counts.Bob", "Bob went out"),
    ({"rules": "push_ups", "end": {"kind": "tonk_out", "player": "Ann"},
      "counts": {"Bob": 3}}, HandError, "counts.Cy", "every loser's count is needed"),
    # deal
    ({"end": {"kind": "deal"}, "counts": {"Ann": 30}}, HandError, "counts",
     "nobody wins on the deal"),
    ({"end": {"kind": "deal"}, "counts": None}, HandError, "counts", "initial total"),
    ({"end": {"kind": "deal"}, "counts": {"Ann": 5}}, HandError, "counts.Ann",
     "initial total of 5 is below what five cards can make (at least 6)"),
    ({"rules": "wikipedia", "end": {"kind": "deal"}, "counts": {"Ann": 2}}, HandError,
     "counts.Ann", "(at least 3)"),
    ({"rules": "wikipedia", "end": {"kind": "deal"}, "counts": {"Ann": 49}}, HandError,
     "counts", "no instant wins on the deal"),
    ({"rules": "rushville", "end": {"kind": "deal", "five_face_cards": ["Cy"]},
      "counts": {"Cy": 48}}, HandError, "counts.Cy", "five face cards count 50, not 48"),
    # cards
    ({"cards": {"Ann": ["1S"]}}, CardError, "cards.Ann", '"1S" is not a card'),
    ({"cards": {"Ann": ["AS"], "Bob": ["AS"]}, "counts": None}, CardError, "cards.Bob[0]",
     "AS is given 2 times (Ann, Bob), but the deck holds it only once"),
    ({"cards": {"Ann": ["2S", "AS"], "Bob": ["3S"], "Cy": ["4S", "5S", "AS"]},
      "counts": None}, CardError, "cards.Cy[2]", "AS is given 2 times (Ann, Cy)"),
    ({"cards": {"Ann": ["JOKER"]}}, CardError, "cards.Ann", "JOKER is not in the standard"),
    ({"rules": "baton_rouge", "cards": {"Ann": ["9H"]}}, CardError, "cards.Ann",
     "9H is not in the forty-card deck"),
    ({"rules": "wikipedia", "cards": {"Ann": ["JOKER", "joker"], "Bob": ["Joker"]},
      "counts": None}, CardError, "cards.Bob[0]", "JOKER is given 3 times"),
    ({"cards": {"Ann": ["AS", "2S", "3S", "4S", "5S", "6S"]}}, HandError, "cards.Ann",
     "holds 6 cards, but a hand has at most five cards"),
    ({"cards": {"Ann": ["KS"]}}, HandError, "counts.Ann", "Ann's cards add up to 10, not the 4"),
    ({"end": {"kind": "deal"}, "counts": None, "cards": {"Ann": ["KS", "KH", "KD", "KC"]}},
     HandError, "cards.Ann", "a hand on the deal has five cards, not 4"),
    ({"rules": "rushville", "end": {"kind": "deal", "five_face_cards": ["Ann"]}, "counts": None,
      "cards": {"Ann": ["KS", "KH", "KD", "KC", "10S"]}}, HandError, "cards.Ann",
     "not five face cards"),
    # the hand itself
    ({"reason": "typo"}, HandError, "reason", 'a hand has no field "reason"'),
])
def test_bad_input_is_named(changes, error, field, message):
    data = hand(**changes)
    data = {k: v for k, v in data.items() if v is not None}
    exc = fails(data, error)
    assert exc.field == field
    assert message in str(exc), str(exc)


def test_not_an_object():
    assert "JSON object" in str(fails([1, 2]))


def test_table_facts_cannot_be_given_twice():
    from app.core import resolve_rules

    exc = fails_with(lambda: parse_hand(hand(), rules=resolve_rules("pagat")))
    assert exc.field == "rules"


def fails_with(call):
    with pytest.raises(HandError) as info:
        call()
    return info.value


def test_names_are_tidied_and_matched():
    parsed = parse_hand(hand(players=["  Ann ", "Bob  Smith"], dealer="Bob Smith",
                             counts={"Ann": 3, "Bob Smith": 9}))
    assert parsed.players == ("Ann", "Bob Smith")
    assert parsed.dealer == 1


def test_defaults():
    parsed = parse_hand({"players": ["Ann", "Bob"], "end": {"kind": "dead"}})
    assert parsed.rules.preset == "pagat"
    assert parsed.stake == Decimal("1.00")
    assert parsed.multiplier == 1
    assert parsed.dealer == 0


def test_count_from_cards_with_jokers_and_rank_values():
    parsed = parse_hand(hand(rules={"preset": "wikipedia", "face_value": "rank"},
                             counts={"Bob": 5, "Cy": 30, "Dee": 12},
                             cards={"Ann": ["JOKER", "KS", "QD", "jh"]}))
    assert parsed.count("Ann") == 36



@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_form_asks_for_every_count_a_hand_needs(preset):
    """count_mode (what the form shows) and missing_counts (what is required) are one rule:
    no end requires a count the form does not ask for."""
    rules = PRESETS[preset].rules
    for kind in END_KINDS:
        required = missing_counts(kind, "Ann", (), ("Ann", "Bob", "Cy"), rules, ())
        assert not required or count_mode(kind, rules) != "none", kind


# -- the number of jokers ---------------------------

def test_the_jokers_deck_holds_two_unless_the_table_adds_more():
    usual = PRESETS["wikipedia"].rules
    assert usual.jokers == 2 and min(usual.deal_totals) == 3  # two jokers and three aces
    three = resolve_rules({"preset": "wikipedia", "jokers": 3})
    four = resolve_rules({"preset": "wikipedia", "jokers": 4})
    assert min(three.deal_totals) == 2 and min(four.deal_totals) == 1
    assert three.to_json() == {"preset": "wikipedia", "jokers": 3}
    assert resolve_rules(three.to_json()) == three
    assert PRESETS["pagat"].rules.to_json() == {"preset": "pagat"}  # the default is not said
    with pytest.raises(HandError, match="below what five cards can make"):
        parse_hand(hand(rules="wikipedia", end={"kind": "deal"}, counts={"Ann": 2}))
    cards = {"Ann": ["JOKER", "JOKER", "3H"], "Bob": ["joker", "5S"]}
    with pytest.raises(CardError, match="JOKER is given 3 times"):
        parse_hand(hand(rules="wikipedia", cards=cards, counts={"Cy": 9, "Dee": 9}))
    three_jokers = hand(rules={"preset": "wikipedia", "jokers": 3}, cards=cards,
                        counts={"Cy": 9, "Dee": 9})
    assert list(parse_hand(three_jokers).counts) == [3, 5, 9, 9]


@pytest.mark.parametrize("spec, words", [
    ({"preset": "pagat", "jokers": 3}, "3 jokers need the deck with jokers"),
    ({"preset": "chicago", "jokers": 3, "deck": "forty"}, "3 jokers need the deck with jokers"),
    ({"preset": "wikipedia", "jokers": 1}, '"Jokers in the deck" must be from 2 to 4, not 1'),
    ({"preset": "wikipedia", "jokers": 5}, '"Jokers in the deck" must be from 2 to 4, not 5'),
    ({"preset": "wikipedia", "jokers": "3"}, '"Jokers in the deck" must be a whole number'),
])
def test_a_number_of_jokers_the_rules_cannot_hold_is_refused(spec, words):
    with pytest.raises(RulesError, match=words) as info:
        resolve_rules(spec)
    assert info.value.field == "rules.jokers"
