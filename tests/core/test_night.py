"""The night as a value (app/core/night.py), with no app: the fold of a night's events gives
each player's money by part (hands + side bets + pots back = total), the dealer's rotation,
where a newcomer sits, a leaver's stake out of the pots, a correction of an old hand settling
the later side bets again, payments and closing; a refused event names its field and changes
nothing; the state's JSON form reads back to the same state."""
from __future__ import annotations

import json
from decimal import Decimal

import pytest

from app.core.errors import HandError, TonkError
from app.core.night import (
    Night,
    NightError,
    apply,
    fold,
    minor_totals,
    newcomer_at,
    next_dealer,
    night_json,
    night_of_json,
)
from app.core.versions import VersionError

D = Decimal


def started(players=("Ann", "Bob", "Cy"), **table):
    return {"kind": "started", "rules": "pagat", "stake": "1", "players": list(players),
            **table}


def ran_out(who, players=("Ann", "Bob", "Cy"), naturals: str | None = "-", **extra):
    """A hand ``who`` ran out of; ``naturals``: the naturals bet played (None: nobody won)."""
    hand = {"end": {"kind": "run_out", "player": who},
            "counts": {p: 0 if p == who else 10 for p in players}, **extra}
    if naturals != "-":
        hand["side_bets"] = [{"bet": "naturals", "winner": naturals}]
    return {"kind": "hand", "hand": hand}


def totals(night: Night) -> dict[str, str]:
    return {n: str(m.total) for n, m in night.money().items()}


def test_the_home_cards_night_counts_what_the_pot_gives_back():
    """Issue 40, defect 1: Ann ran out, nobody won the naturals: +2/-1/-1, not +1/-2/-2."""
    night = fold([started(side_bets={"naturals": {}}), ran_out("Ann", naturals=None)])
    assert totals(night) == {"Ann": "2.00", "Bob": "-1.00", "Cy": "-1.00"}
    ann = night.money()["Ann"]
    assert (ann.hands, ann.side_bets, ann.pots_back) == (D("2.00"), D("-1.00"), D("1.00"))
    assert all(m.hands + m.side_bets + m.pots_back == m.total for m in night.money().values())
    assert minor_totals(night.money()) == {"Ann": 100, "Bob": -200, "Cy": -200}


def test_a_fixed_suit_is_the_tables_and_a_correction_keeps_the_hands_bets_without_it():
    """A hand may not give the suit its table fixes (docs/rules.md §9), though the hand as
    kept holds it; a correction that names no side bets keeps the hand's own, as sent."""
    spades = started(side_bets={"high_card": {"suit": "S"}})
    bet = {"bet": "high_card", "winner": "Bob"}
    with pytest.raises(HandError, match="always S: give no suit") as refused:
        fold([spades, ran_out("Ann", side_bets=[{**bet, "suit": "S"}])])
    assert refused.value.field == "side_bets[0].suit"
    night = fold([spades, ran_out("Ann", side_bets=[bet])])
    assert night.hands[0].data["side_bets"][0]["suit"] == "S"  # (the hand as kept)
    night = apply(night, {"kind": "corrected", "number": 1,
                          "hand": {"end": {"kind": "run_out", "player": "Bob"},
                                   "counts": {"Ann": 10, "Bob": 0, "Cy": 10}}})
    assert night.hands[0].data["side_bets"] == [
        {"bet": "high_card", "players": ["Ann", "Bob", "Cy"], "winner": "Bob", "suit": "S"}]


def test_the_deal_passes_left_and_a_newcomer_sits_at_the_dealers_right():
    night = fold([started(dealer="Bob"), ran_out("Ann")])
    assert night.hands[0].data["dealer"] == "Bob" and night.dealer == "Cy"
    assert next_dealer(("Ann", "Bob", "Cy"), "Cy") == "Ann"
    night = apply(night, {"kind": "joined", "player": "Dee"})
    assert night.seated == ("Ann", "Bob", "Dee", "Cy")  # deals last from Cy
    assert newcomer_at(("Ann", "Bob"), "Ann", None) == 2  # before the first: after the last
    night = apply(night, {"kind": "left", "player": "Cy"})
    assert night.dealer == "Ann" and night.seated == ("Ann", "Bob", "Dee")
    assert night.seats == ("Ann", "Bob", "Cy", "Dee")  # a leaver keeps their seat and total


def test_a_leaver_takes_their_stake_out_of_the_pots_as_they_go():
    four = ("Ann", "Bob", "Cy", "Dee")
    night = fold([started(four, side_bets={"naturals": {}}), ran_out("Ann", four, naturals=None),
                  {"kind": "left", "player": "Dee"}])
    assert night.money()["Dee"].side_bets == 0  # paid 1 in, took 1 back on leaving
    assert night.hands[0].outcomes[-1]["rule"] == "side_bet.left"
    night = apply(night, ran_out("Bob", four[:3], naturals="Cy"))
    assert night.money()["Dee"].total == D("-1.00")  # no later deal moved Dee's money
    assert night.money()["Cy"].side_bets == D("4.00") and not night.pots  # 6 less 2 paid


def test_a_correction_of_an_old_hand_settles_the_later_side_bets_again():
    night = fold([started(side_bets={"naturals": {}}), ran_out("Ann", naturals=None),
                  ran_out("Bob", naturals="Cy")])
    assert night.money()["Cy"].side_bets == D("4.00")  # the carried pot: 6, paid 2
    night = apply(night, {"kind": "corrected", "number": 1, "version": 1,
                          "hand": ran_out("Ann", naturals="Bob")["hand"]})
    assert night.hands[0].version == 2
    assert {n: str(m.side_bets) for n, m in night.money().items()} == {
        "Ann": "-2.00", "Bob": "1.00", "Cy": "1.00"}
    night = apply(night, {"kind": "voided", "number": 1})
    assert night.counted == 1 and night.money()["Ann"].hands == D("-1.00")
    assert sum(m.total for m in night.money().values()) == 0


def test_the_big_one_doubles_its_hand():
    night = fold([started(), ran_out("Ann", multiplier=2)])
    assert totals(night)["Ann"] == "4.00"


def test_rules_changed_count_from_the_next_hand_and_a_correction_keeps_its_own():
    night = fold([started(), ran_out("Ann"), {"kind": "rules", "rules": "pagat", "stake": "2"}])
    night = apply(night, ran_out("Bob"))
    assert totals(night) == {"Ann": "0.00", "Bob": "3.00", "Cy": "-3.00"}
    night = apply(night, {"kind": "corrected", "number": 1, "hand": ran_out("Cy")["hand"]})
    assert totals(night) == {"Ann": "-3.00", "Bob": "3.00", "Cy": "0.00"}


def test_payments_move_what_is_open_and_a_night_closes_once_paid_or_carried():
    night = fold([started(), ran_out("Ann")])
    with pytest.raises(NightError) as refused:
        apply(night, {"kind": "closed"})
    assert refused.value.field == "carry_over"
    night = apply(night, {"kind": "paid", "payer": "Bob", "payee": "Ann", "amount": "1.00"})
    assert night.open() == {"Ann": D("1.00"), "Bob": D("0.00"), "Cy": D("-1.00")}
    night = apply(night, {"kind": "undone", "payment": 1})
    assert night.open()["Bob"] == D("-1.00")
    closed = apply(night, {"kind": "closed", "carry_over": True})
    assert closed.closed and closed.carried
    with pytest.raises(NightError, match="closed"):
        apply(closed, ran_out("Ann"))


@pytest.mark.parametrize(("event", "field"), [
    ({"kind": "voided", "number": 9}, "number"),
    ({"kind": "corrected", "number": 1, "version": 3, "hand": {}}, "version"),
    ({"kind": "joined", "player": "ann"}, "join"),
    ({"kind": "joined", "player": "Bartholomew Fitzgerald-Montgomery the Third"}, "join"),
    ({"kind": "joined", "player": "Eve", "after": "Zed"}, "after"),
    ({"kind": "left", "player": "Zed"}, "leave"),
    ({"kind": "paid", "payer": "Bob", "payee": "Bob", "amount": "1"}, "payee"),
    ({"kind": "paid", "payer": "Ann", "payee": "Bob", "amount": "1"}, "amount"),
    ({"kind": "undone", "payment": 4}, "payment"),
    ({"kind": "shuffled"}, "kind"),
])
def test_a_refused_event_names_its_field_and_changes_nothing(event, field):
    night = fold([started(), ran_out("Ann")])
    before = night_json(night)
    with pytest.raises(NightError) as refused:
        apply(night, event)
    assert refused.value.field == field
    assert night_json(night) == before


@pytest.mark.parametrize("event", [
    {"kind": "corrected", "number": 1, "version": "1", "hand": {}},
    {"kind": "corrected", "number": 1, "version": 1.0, "hand": {}},
    {"kind": "voided", "number": 1, "version": True},
    {"kind": "voided", "number": 1, "version": ""},
])
def test_a_version_that_is_not_a_whole_number_is_refused_as_the_servers_is(event):
    """The phone's night took ``"version": true`` as version 1 (and ``"1"`` as a change
    meanwhile): a version is a whole number (:func:`app.core.versions.made_from`)."""
    night = fold([started(), ran_out("Ann")])
    before = night_json(night)
    with pytest.raises(VersionError, match="the version must be a whole number") as refused:
        apply(night, event)
    assert refused.value.field == "version"
    assert night_json(night) == before


@pytest.mark.parametrize("version", [0, -1])
def test_a_version_below_one_is_refused_not_taken_for_a_change_meanwhile(version):
    """Versions are numbered from 1: a correction made "from version 0" was answered as if
    the hand had changed meanwhile (409), on the server and the phone alike."""
    night = fold([started(), ran_out("Ann")])
    with pytest.raises(VersionError, match=f"versions are numbered from 1, not {version}") \
            as refused:
        apply(night, {"kind": "voided", "number": 1, "version": version})
    assert refused.value.field == "version"


def test_a_refused_hand_is_the_hands_own_error_and_two_cannot_leave_a_table_of_two():
    night = fold([started(("Ann", "Bob"))])
    with pytest.raises(HandError) as refused:
        apply(night, {"kind": "hand", "hand": {"end": {"kind": "run_out", "player": "Zed"}}})
    assert refused.value.field
    with pytest.raises(TonkError) as too_few:
        apply(night, {"kind": "left", "player": "Ann"})
    assert too_few.value.field == "leave"


def test_the_json_form_reads_back_to_the_same_state():
    four = ("Ann", "Bob", "Cy", "Dee")
    night = fold([started(four, side_bets={"naturals": {"stake": "0.50"},
                                           "high_card": {"suit": "S"}}),
                  ran_out("Ann", four, naturals=None), {"kind": "left", "player": "Dee"},
                  ran_out("Cy", four[:3]), {"kind": "voided", "number": 2},
                  {"kind": "paid", "payer": "Bob", "payee": "Ann", "amount": "0.50"}])
    text = json.dumps(night_json(night))
    again = night_of_json(json.loads(text))
    assert again == night and json.dumps(night_json(again)) == text
