"""Side bets (docs/rules.md §9) in the core, with no app: a naturals pot carried over three deals
then won, a high-card deal nobody wins under ``return``, what is left going back at
settle-up, every bad input named by its field, and the invariant that the bettors' nets and
the pot always add up to zero; a player who leaves takes their money out of the pots after
the last deal they played, so no deal after it moves their total."""
from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.errors import HandError
from app.core.handform import Fields, chosen_of_form, read_side_bets, side_bet_field
from app.core.phone import answer
from app.core.sidebets import (
    Play,
    Pot,
    leave_pots,
    parse_plays,
    parse_side_bets,
    replay_deals,
    return_pot,
    settle_side_bet,
)

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]
D = Decimal


def enabled(spec, stake="0.25", scoring="money"):
    return parse_side_bets(spec, stake=D(stake), scoring=scoring)


def test_a_naturals_pot_carries_over_three_deals_then_is_won():
    rules = enabled({"naturals": {"stake": "0.10"}})
    pot = Pot("naturals")
    for deal in range(3):
        (play,) = parse_plays([{"bet": "naturals", "winner": None}], rules, PLAYERS)
        out = settle_side_bet(play, rules["naturals"], pot)
        assert out.net == dict.fromkeys(PLAYERS, D("-0.10"))
        assert out.pot.total == D("0.40") * (deal + 1)
        assert out.rule == "side_bet.carried"
        pot = out.pot
    (play,) = parse_plays([{"bet": "naturals", "winner": "Bob"}], rules, PLAYERS)
    out = settle_side_bet(play, rules["naturals"], pot, fmt=lambda d: f"{d:.2f}")
    assert out.net == {"Ann": D("-0.10"), "Bob": D("1.50"), "Cy": D("-0.10"),
                       "Dee": D("-0.10")}
    assert out.pot.total == 0 and out.rule == "side_bet.won"
    assert [str(m) for m in out.explanation] == [
        "Naturals side bet: Ann, Bob, Cy, and Dee each put 0.10 in the pot.",
        "Bob wins the pot: 1.60 (1.20 of it carried over from earlier deals)."]


def test_a_high_card_deal_nobody_wins_under_return_moves_nothing():
    rules = enabled({"high_card": {"unclaimed": "return"}})
    assert rules["high_card"].stake == D("0.25")  # the table's own stake by default
    pot = Pot("high_card", (("Ann", D("0.25")),))
    (play,) = parse_plays([{"bet": "high_card", "suit": "H", "players": ["Ann", "Cy"],
                            "winner": None}], rules, PLAYERS)
    out = settle_side_bet(play, rules["high_card"], pot)
    assert out.net == {"Ann": 0, "Cy": 0} and out.pot == pot
    assert str(out.explanation[-1]) == "Nobody held the suit: each stake goes back."


def test_what_is_left_in_a_pot_goes_back_to_who_paid_it():
    rules = enabled({"naturals": {"stake": "0.10"}})
    pot = Pot("naturals")
    for who in (["Ann", "Bob"], ["Ann", "Bob", "Cy"]):
        (play,) = parse_plays([{"bet": "naturals", "players": who, "winner": None}], rules,
                              PLAYERS)
        pot = settle_side_bet(play, rules["naturals"], pot).pot
    assert return_pot(pot) == {"Ann": D("0.20"), "Bob": D("0.20"), "Cy": D("0.10")}


@pytest.mark.parametrize("spec, hand, field", [
    ({"spades": {}}, None, "side_bets.spades"),
    ({"high_card": {"suit": "X"}}, None, "side_bets.high_card.suit"),
    ({"high_card": {"unclaimed": "keep"}}, None, "side_bets.high_card.unclaimed"),
    ({"naturals": {"stake": "0"}}, None, "side_bets.naturals.stake"),
    ({"naturals": {"stake": "0.001"}}, None, "side_bets.naturals.stake"),
    ({"naturals": {"suit": "S"}}, None, "side_bets.naturals.suit"),
    ({"naturals": {}}, [{"bet": "high_card", "suit": "S"}], "side_bets[0].bet"),
    ({"naturals": {}}, [{"bet": "naturals", "winner": "Eve"}], "side_bets[0].winner"),
    ({"naturals": {}}, [{"bet": "naturals", "players": ["Ann"], "winner": "Bob"}],
     "side_bets[0].winner"),
    ({"naturals": {}}, [{"bet": "naturals", "players": ["Ann", "Ann"]}],
     "side_bets[0].players"),
    ({"high_card": {"suit": "S"}}, [{"bet": "high_card", "suit": "H"}], "side_bets[0].suit"),
    ({"high_card": {"suit": "S"}}, [{"bet": "high_card", "suit": "S"}], "side_bets[0].suit"),
    ({"high_card": {}}, [{"bet": "high_card"}], "side_bets[0].suit"),
    ({"naturals": {}}, [{"bet": "naturals"}, {"bet": "naturals"}], "side_bets[1].bet"),
])
def test_bad_side_bets_are_named_by_their_field(spec, hand, field):
    with pytest.raises(HandError) as caught:
        parse_plays(hand, enabled(spec), PLAYERS)
    assert caught.value.field == field


# A dead hand, as the form leaves it: nobody ticked into the high-card bet, yet Cy chosen
# as its winner; everyone in the naturals.
DEAD_FORM = [["kind", "dead"], ["sb-high_card-shown", "1"], ["sb-high_card-suit", "H"],
             ["sb-high_card-winner", "Cy"], ["sb-naturals-shown", "1"],
             *(["sb-naturals-in", name] for name in PLAYERS)]
TWO_BETS = {"high_card": {"stake": "0.25"}, "naturals": {"stake": "0.10"}}


@pytest.mark.parametrize("ticked", [(), ("Ann", "Bob")])
def test_a_winner_chosen_for_a_bet_they_are_not_in_is_refused_beside_it(ticked):
    """docs/rules.md §9: a winner not among the players is an error, even when nobody is
    in the bet (a dead hand unticks everyone): never a bet silently left out."""
    form = Fields([*DEAD_FORM, *(["sb-high_card-in", name] for name in ticked)])
    plays, bets = read_side_bets(chosen_of_form(form, TWO_BETS, PLAYERS))
    with pytest.raises(HandError) as caught:
        parse_plays(plays, enabled(TWO_BETS), PLAYERS)
    assert side_bet_field(caught.value.field, bets) == "sb-high_card-winner"
    assert '"Cy", did not bet' in str(caught.value)


def test_the_phone_refuses_a_winner_of_a_bet_nobody_is_in_and_counts_nothing():
    started = {"kind": "started", "players": PLAYERS, "stake": "0.25",
               "side_bets": TWO_BETS}
    out = answer({"op": "events", "lang": "en", "events": [started], "hand": DEAD_FORM}, {})
    assert out["added"] is None and out["hands"] == []
    assert out["refusal"]["field"] == "sb-high_card-winner", out.get("refusal")
    assert '"Cy", did not bet' in out["refusal"]["error"]


def test_side_bets_are_for_money_and_points_only():
    with pytest.raises(HandError) as caught:
        enabled({"naturals": {}}, stake="1", scoring="push_ups")
    assert caught.value.field == "side_bets"
    assert enabled({"naturals": {"stake": "2"}}, stake="1", scoring="points")[
        "naturals"].stake == 2
    # a league's 0.10 under points: said as what it is, beside the bet's stake (it read
    # "must be an amount more than zero, not "0.10": a whole number")
    with pytest.raises(HandError) as caught:
        enabled({"naturals": {"stake": "0.10"}}, stake="1", scoring="points")
    assert caught.value.field == "side_bets.naturals.stake"
    assert str(caught.value.said) == (
        "under points scoring a side bet's stake is a whole number of points, not \"0.10\"")
    assert enabled({"naturals": {"stake": "3.00"}}, stake="1", scoring="points")[
        "naturals"].stake == 3


deals = st.lists(st.tuples(st.lists(st.sampled_from(PLAYERS), min_size=1, max_size=4,
                                    unique=True),
                           st.one_of(st.none(), st.integers(0, 3))), max_size=12)


@settings(max_examples=200, deadline=None)
@given(deals, st.sampled_from(["carry", "return"]), st.sampled_from(["high_card", "naturals"]))
def test_nets_and_the_pot_always_add_up_to_zero(sequence, unclaimed, bet):
    spec = {"high_card": {"suit": "S", "unclaimed": unclaimed}} if bet == "high_card" \
        else {"naturals": {}}
    rules = enabled(spec)
    pot, total = Pot(bet), dict.fromkeys(PLAYERS, D(0))
    for who, pick in sequence:
        winner = who[pick % len(who)] if pick is not None else None
        (play,) = parse_plays([{"bet": bet, "players": who, "winner": winner}], rules,
                              PLAYERS)
        out = settle_side_bet(play, rules[bet], pot)
        assert sum(out.net.values()) + out.pot.total - pot.total == 0
        for player, amount in out.net.items():
            total[player] += amount
        pot = out.pot
    for player, amount in return_pot(pot).items():  # settle-up gives back what is left
        total[player] += amount
    assert sum(total.values()) == 0


def test_a_leaver_takes_their_money_out_after_the_last_deal_they_played():
    """The leaver's night: four at high card (0.25), two deals nobody wins (2.00 in the pot);
    Dee leaves; Ann wins the next deal: what Dee had in the pot went back to her after deal
    2, so Ann takes 1.50 + 0.75 (2.00 more than her stake), none of it Dee's."""
    rules = enabled({"high_card": {}})
    everyone, three = tuple(PLAYERS), ("Ann", "Bob", "Cy")
    deals = [[Play("high_card", everyone, None, "S")]] * 2 + [
        [Play("high_card", three, "Ann", "S")]]
    settled, pots = replay_deals(deals, rules, tables=[everyone, everyone, three],
                                 seated=three)
    (net1, _), (net2, out2), (net3, _) = settled
    assert net2 == {"Ann": D("-0.25"), "Bob": D("-0.25"), "Cy": D("-0.25"), "Dee": D("0.25")}
    assert [o.rule for o in out2] == ["side_bet.carried", "side_bet.left"]
    assert out2[1].net == {"Dee": D("0.50")} and out2[1].pot.total == D("1.50")
    assert str(out2[1].explanation[0]) == \
        "Dee left the table after this deal and takes back the 0.50 they had in the pot."
    assert net3 == {"Ann": D("2.00"), "Bob": D("-0.25"), "Cy": D("-0.25")}
    assert pots["high_card"].total == 0
    dee = sum(n.get("Dee", D(0)) for n, _ in settled)
    assert dee == 0  # she put 0.50 in and took 0.50 back: nothing after moved it
    # without anyone leaving (no tables), the old replay: Ann would win Dee's 0.50 too
    settled, _ = replay_deals(deals[:2], rules)
    assert settled[1][0]["Dee"] == D("-0.25")


def test_a_void_deal_is_not_the_next_deal_and_who_sits_now_decides_after_the_last():
    rules = enabled({"naturals": {}})
    everyone, three = tuple(PLAYERS), ("Ann", "Bob", "Cy")
    deals = [[Play("naturals", everyone, None)], [], [Play("naturals", three, None)]]
    # Dee was at the void deal 2, not at deal 3: she left after deal 1, the last she played
    settled, pots = replay_deals(deals, rules, tables=[everyone, None, three], seated=three)
    assert [o.rule for o in settled[0][1]] == ["side_bet.carried", "side_bet.left"]
    assert settled[0][0]["Dee"] == 0 and pots["naturals"].total == D("1.50")
    # everyone back at the table now, and the last deal void: nobody left
    settled, pots = replay_deals(deals[:2], rules, tables=[everyone, None], seated=everyone)
    assert [o.rule for o in settled[0][1]] == ["side_bet.carried"]
    assert pots["naturals"].total == D("1.00")
    back, after, outcomes = leave_pots(pots, {"Ann", "Bob"})
    assert back == {"Cy": D("0.25"), "Dee": D("0.25")} and after["naturals"].total == D("0.50")
    assert outcomes[0].play.players == ("Cy", "Dee") and outcomes[0].rule == "side_bet.left"


nights = st.lists(st.tuples(
    st.lists(st.sampled_from(PLAYERS), min_size=2, max_size=4, unique=True),  # at the table
    st.lists(st.sampled_from(PLAYERS), min_size=1, max_size=4, unique=True),  # who bet
    st.one_of(st.none(), st.integers(0, 3)), st.booleans()), max_size=12)  # winner, void


@settings(max_examples=200, deadline=None)
@given(nights, st.lists(st.sampled_from(PLAYERS), min_size=2, max_size=4, unique=True),
       st.sampled_from(["carry", "return"]))
def test_no_deal_after_a_player_left_moves_their_money(night, seated, unclaimed):
    """Random nights of players coming and going: the nets and the pots sum to zero, and
    once a player has played their last deal (with the table as it is now), the deals after
    it give them nothing and take nothing."""
    rules = enabled({"high_card": {"suit": "S", "unclaimed": unclaimed}, "naturals": {}})
    tables, deals = [], []
    for table, bettors, pick, void in night:
        who = [p for p in bettors if p in table] or table[:1]
        winner = who[pick % len(who)] if pick is not None else None
        deals.append([] if void else [Play("high_card", tuple(who), winner, "S"),
                                      Play("naturals", tuple(who), None)])
        tables.append(None if void else tuple(table))
    settled, pots = replay_deals(deals, rules, tables=tables, seated=seated)
    moved = sum((a for net, _ in settled for a in net.values()), D(0))
    assert moved + sum((p.total for p in pots.values()), D(0)) == 0
    for player in PLAYERS:
        last = max((i for i, t in enumerate(tables) if t is not None and player in t),
                   default=-1)
        after = [net.get(player, D(0)) for net, _ in settled[last + 1:]]
        if player not in seated:  # away now: their money is out, and stays out
            assert not any(after)
            assert all(player not in dict(p.paid) for p in pots.values())
