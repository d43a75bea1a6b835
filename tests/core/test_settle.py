"""The worked hands of docs/rules.md (tests/data/examples.json) through the pure core, and the
shape of results: payments with rules, nets, explanations."""
from __future__ import annotations

from decimal import Decimal

import pytest

from app.core import Payment, TonkError, parse_hand, resolve_rules, settle
from tests.hands import load_json

#: docs/rules.md's worked hands, those of its three later changes and of the rules' corners
#: (jokers, a tonk out with a hit, alternative 2 heads-up, push-ups' tied stock out).
EXAMPLES = load_json("examples.json") + load_json("rule_changes.json")


@pytest.mark.parametrize("case", EXAMPLES, ids=[c["name"] for c in EXAMPLES])
def test_worked_hand(case):
    expect = case["expect"]
    if expect.get("error"):
        with pytest.raises(TonkError) as info:
            settle(parse_hand(case["hand"]))
        assert str(info.value)
        return
    result = settle(parse_hand(case["hand"]))
    assert result.outcome == expect["outcome"]
    assert sorted(result.winners) == sorted(expect["winners"])
    if "net" in expect:
        assert result.net == {p: Decimal(str(v)) for p, v in expect["net"].items()}
        assert sum(result.net.values()) == 0
    else:
        assert result.pushed == expect["pushed"]


def hand(**changes):
    base = {"rules": "pagat", "stake": "0.25", "players": ["Ann", "Bob", "Cy", "Dee"],
            "dealer": "Dee", "end": {"kind": "drop", "player": "Bob"},
            "counts": {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30}}
    base.update(changes)
    return parse_hand(base)


def test_payments_carry_their_rule_and_explanation_reads_as_sentences():
    result = settle(hand())
    assert result.payments[0] == Payment(
        "Bob", "Cy", Decimal("0.50"),
        "standard catch: the dropper pays double to each player at or below the dropper's "
        "count", "catch.standard.dropper")
    assert result.explanation[0] == (
        "Bob dropped with 9; Cy holds 9: a tie goes against the dropper, so Bob is caught.")
    assert "Bob pays Cy 0.50" in " ".join(result.explanation)
    assert result.net == {"Ann": Decimal("-0.25"), "Bob": Decimal("-0.50"),
                          "Cy": Decimal("1.00"), "Dee": Decimal("-0.25")}


def test_result_json_shape():
    body = settle(hand()).to_json()
    assert body["outcome"] == "caught"
    assert body["winners"] == ["Cy"]
    assert body["net"] == {"Ann": "-0.25", "Bob": "-0.50", "Cy": "1.00", "Dee": "-0.25"}
    assert body["payments"][1] == {"from": "Ann", "to": "Cy", "amount": "0.25",
                                   "rule": "standard catch: every player but the dropper "
                                           "and the lowest pays the lowest the stake"}
    assert all(isinstance(s, str) and s.endswith(".") for s in body["explanation"])


def test_points_are_whole_numbers_in_json():
    body = settle(hand(rules="washington", stake="1")).to_json()
    assert body["net"] == {"Ann": "0", "Bob": "-8", "Cy": "8", "Dee": "0"}


def test_winners_in_seat_order_from_the_dealers_left():
    result = settle(hand(dealer="Ann", end={"kind": "stock_out"},
                         counts={"Ann": 3, "Bob": 9, "Cy": 20, "Dee": 3}))
    assert result.winners == ("Dee", "Ann")


def test_hand_round_trips_through_json():
    original = hand(cards={"Dee": ["KS", "QH", "JD", "10C"]}, multiplier=2,
                    counts={"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 40})
    again = parse_hand(original.to_json())
    assert again == original
    assert settle(again).net == settle(original).net


@pytest.mark.parametrize("spec, expect", [
    ({"deal_wins": [{"at_most": 15, "pays": 2}]}, ("Ann",)),
    ({"deal_wins": [{"at_most": 15, "pays": 2}], "deal_conflict": "best"}, ("Bob",)),
    ({"deal_wins": [{"at_most": 15, "pays": 2}], "deal_conflict": "all_paid"}, ("Ann", "Bob")),
])
def test_low_deal_conflicts(spec, expect):
    counts = {"Ann": 14} if len(expect) == 1 and "deal_conflict" not in spec else \
        {"Ann": 14, "Bob": 9}
    result = settle(hand(rules=spec, end={"kind": "deal"}, counts=counts, dealer="Dee"))
    assert result.winners == expect


def test_all_paid_deal_when_everyone_claims_is_a_draw():
    result = settle(hand(rules="washington", stake="1", players=["Ann", "Bob"], dealer="Ann",
                         end={"kind": "deal"}, counts={"Ann": 50, "Bob": 10}))
    assert result.outcome == "draw" and result.net == {"Ann": Decimal(0), "Bob": Decimal(0)}


def test_push_ups_deal_win_pushes_by_the_highest_win_multiple():
    result = settle(hand(rules={"preset": "push_ups", "deal_conflict": "all_paid",
                                "deal_wins": [{"totals": [50], "pays": 2},
                                              {"totals": [49], "pays": 1}]},
                         end={"kind": "deal"},
                         counts={"Ann": 50, "Bob": 49, "Cy": 20, "Dee": 30}))
    assert result.winners == ("Ann", "Bob")
    assert result.pushed == {"Ann": 0, "Bob": 0, "Cy": 40, "Dee": 60}


def test_push_ups_the_big_one_doubles_the_push():
    result = settle(hand(rules="push_ups", multiplier=2, end={"kind": "run_out", "player": "Ann"},
                         counts={"Bob": 5, "Cy": 6, "Dee": 7}))
    assert result.pushed == {"Ann": 0, "Bob": 10, "Cy": 12, "Dee": 14}


def test_stock_out_everyone_tied_is_a_draw():
    result = settle(hand(end={"kind": "stock_out"},
                         counts={"Ann": 5, "Bob": 5, "Cy": 5, "Dee": 5}))
    assert result.outcome == "draw" and not result.payments


def test_rules_resolve_once_and_are_shared():
    assert resolve_rules({"preset": "pagat", "catch": "alt3"}) is \
        resolve_rules({"catch": "alt3", "preset": "pagat"})


def test_a_result_owns_its_net_and_a_stake_keeps_its_places():
    """What a table's outcomes pay is kept: each result still gets a net of its
    own, and a stake of 1 under points is not taken for 1.00 under money."""
    first = settle(hand()).net
    assert isinstance(first, dict)
    first["Ann"] = Decimal(99)
    second = settle(hand()).net
    assert second is not None and second["Ann"] == Decimal("-0.25")
    money = settle(hand(stake="1")).net
    points = settle(hand(stake="1", rules={"preset": "pagat", "scoring": "points"})).net
    assert money is not None and points is not None
    assert str(money["Ann"]) == "-1.00" and str(points["Ann"]) == "-1"
    paid = settle(hand(stake="1")).payments[0].amount
    assert str(paid) == "2.00"
    assert str(settle(hand(stake="1", rules={"preset": "pagat", "scoring": "points"}))
               .payments[0].amount) == "2"


def test_every_preset_settles_a_drop():
    from app.core import PRESETS

    for name in PRESETS:
        result = settle(hand(rules=name, stake="1"))
        assert result.outcome == "caught", name
