"""Invariants of settlement over random hands of every preset and option (hypothesis)."""
from __future__ import annotations

from decimal import Decimal

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from app.core import PRESETS, TonkError, parse_hand, resolve_rules, settle
from app.core.rules import CATCHES, DEAL_CONFLICTS, DEAL_TIES, STOCK_OUT_TIES

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
SETTINGS = settings(max_examples=400, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

multiples = st.integers(1, 5)
deal_win = st.one_of(
    st.builds(lambda t, p: {"totals": t, "pays": p},
              st.lists(st.sampled_from([47, 49, 50]), min_size=1, max_size=2, unique=True),
              multiples),
    st.builds(lambda a, p: {"at_most": a, "pays": p}, st.integers(6, 20), multiples),
    st.just({"five_face_cards": True, "pays": 2}),
)
overrides = st.fixed_dictionaries({}, optional={
    "scoring": st.sampled_from(["money", "points", "push_ups"]),
    "deck": st.sampled_from(["standard", "jokers"]),
    "face_value": st.sampled_from(["ten", "rank"]),
    "hand_size": st.sampled_from([5, 7]),
    "deal_wins": st.lists(deal_win, max_size=3),
    "deal_conflict": st.sampled_from(list(DEAL_CONFLICTS)),
    "deal_tie": st.sampled_from(list(DEAL_TIES)),
    "tonk_out_pays": multiples,
    "tonk_out_by_hits_pays": st.none() | multiples,
    "first_turn_spread_pays": st.none() | multiples,
    "double_double_pays": st.none() | multiples,
    "run_out_pays": multiples,
    "drop_win_pays": multiples,
    "catch": st.sampled_from(list(CATCHES)),
    "catch_factor": multiples,
    "stock_out_pays": st.integers(0, 3),
    "stock_out_tie": st.sampled_from(list(STOCK_OUT_TIES)),
})


@st.composite
def rule_sets(draw):
    preset = draw(st.sampled_from(list(PRESETS)))
    changes = draw(overrides)
    jokers = draw(st.integers(2, 4))
    if jokers != 2:  # more jokers come with the deck that has them
        changes.update(deck="jokers", jokers=jokers)
    try:
        return resolve_rules({"preset": preset, **changes})
    except TonkError:
        assume(False)


@st.composite
def hands(draw):
    rules = draw(rule_sets())
    n = draw(st.integers(2, 8))
    players = NAMES[:n]
    kind = draw(st.sampled_from(["deal", "tonk_out", "run_out", "drop", "drop", "drop",
                                 "stock_out", "dead"]))
    play = sorted(rules.play_counts)
    counts = {p: draw(st.sampled_from(play[:40])) for p in players}
    end = {"kind": kind}
    if kind in ("tonk_out", "run_out", "drop"):
        end["player"] = draw(st.sampled_from(players))
    if kind == "tonk_out":
        end["method"] = draw(st.sampled_from(["spread", "hits"]))
        end["first_turn"] = draw(st.booleans())
        if rules.double_double_pays is not None:
            end["double_double"] = draw(st.booleans())
        counts[end["player"]] = 0
    if kind == "deal":
        totals = sorted(rules.deal_totals)
        likely = [t for t in totals if t <= 15 or t >= 45] or totals
        claimants = draw(st.lists(st.sampled_from(players), min_size=1, unique=True))
        counts = {p: draw(st.sampled_from(likely if p in claimants else totals))
                  for p in players}
        if rules.has_five_face_cards and rules.hand_size == 5 and rules.face_value == "ten":
            five = [p for p in claimants if counts[p] == 50]
            if five:
                end["five_face_cards"] = five
    data = {"rules": rules, "stake": draw(st.sampled_from(["0.05", "0.25", "1", "3"])),
            "multiplier": draw(st.sampled_from([1, 1, 2, 3])), "players": players,
            "dealer": draw(st.sampled_from(players)), "end": end, "counts": counts}
    try:
        return parse_hand(data)
    except TonkError:
        assume(False)


@SETTINGS
@given(hands())
def test_net_sums_to_exactly_zero_and_payments_add_up(hand):
    result = settle(hand)
    if result.net is None:
        return
    assert sum(result.net.values()) == 0
    rebuilt = dict.fromkeys(hand.players, Decimal(0))
    for pay in result.payments:
        assert pay.amount > 0 and pay.payer != pay.payee and pay.rule
        rebuilt[pay.payer] -= pay.amount
        rebuilt[pay.payee] += pay.amount
    assert rebuilt == result.net


@SETTINGS
@given(hands())
def test_a_caught_dropper_never_gains_and_higher_counts_never_gain(hand):
    result = settle(hand)
    if result.outcome != "caught":
        return
    dropper = hand.end.player
    mine = hand.count(dropper)
    if result.net is not None:
        assert result.net[dropper] < 0
        if hand.rules.catch != "alt4":
            for player in hand.players:
                if hand.count(player) > mine:
                    assert result.net[player] <= 0, player
    else:
        assert result.pushed is not None  # push-ups: no money, pushes
        assert result.pushed[dropper] >= 0


@SETTINGS
@given(hands())
def test_push_ups_never_go_negative_and_winners_score_zero(hand):
    result = settle(hand)
    if result.pushed is None:
        return
    assert all(v >= 0 for v in result.pushed.values())
    assert all(result.pushed[w] == 0 for w in result.winners)


@SETTINGS
@given(hands())
def test_settling_is_deterministic(hand):
    first, again = settle(hand), settle(parse_hand(hand.to_json()))
    assert (first.outcome, first.winners, first.payments, first.net, first.pushed) == \
        (again.outcome, again.winners, again.payments, again.net, again.pushed)
    assert first.explanation == again.explanation


@SETTINGS
@given(hands())
def test_winners_gain_and_draws_move_nothing(hand):
    result = settle(hand)
    if result.outcome in ("draw", "dead"):
        assert not result.payments and not result.winners
        return
    assert result.winners
    if result.net is not None and result.outcome != "caught":
        assert all(result.net[w] > 0 for w in result.winners)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-100, 100) | st.text(max_size=8)
    | st.decimals(allow_nan=False, places=2, min_value=-10, max_value=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12,
)
fields = st.fixed_dictionaries({}, optional={
    "rules": st.sampled_from(list(PRESETS)) | json_values,
    "stake": json_values, "multiplier": json_values,
    "players": st.just(["Ann", "Bob", "Cy"]) | json_values,
    "dealer": st.sampled_from(["Ann", "Bob"]) | json_values,
    "end": st.fixed_dictionaries({"kind": st.sampled_from(["drop", "deal", "tonk_out"])},
                                 optional={"player": st.sampled_from(["Ann", "Zed"])
                                           | json_values}) | json_values,
    "counts": st.dictionaries(st.sampled_from(["Ann", "Bob", "Cy", "Zed"]), json_values)
    | json_values,
    "cards": st.dictionaries(st.sampled_from(["Ann", "Bob"]), json_values) | json_values,
})


@settings(max_examples=500, deadline=None)
@given(fields | json_values)
def test_any_json_is_a_hand_or_a_named_error(data):
    try:
        settle(parse_hand(data))
    except TonkError as exc:
        assert str(exc)
