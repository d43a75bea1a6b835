"""The tournament arithmetic of the core: table sizes, the seat draw, standings with
tie-breaks and the prize list, by known answers and by invariants (hypothesis)."""
from __future__ import annotations

import itertools
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.draw import DrawError, draw_round, pairs_of, table_sizes
from app.core.placings import Record, StandingsError, parse_tie_breaks, standings
from app.core.prizes import PrizeError, parse_fee, parse_house_share, parse_payout, prize_list

D = Decimal
NAMES = [f"P{i:02d}" for i in range(40)]


@pytest.mark.parametrize(("players", "size", "sizes"), [
    (10, 4, (4, 3, 3)), (9, 4, (3, 3, 3)), (8, 4, (4, 4)), (5, 4, (3, 2)), (2, 4, (2,)),
    (7, 3, (3, 2, 2)), (4, 3, (2, 2)), (6, 2, (2, 2, 2)), (13, 4, (4, 3, 3, 3)),
])
def test_table_sizes_known_answers(players, size, sizes):
    assert table_sizes(players, size) == sizes


@pytest.mark.parametrize(("players", "size", "field"), [
    (1, 4, "players"), (0, 3, "players"), (5, 2, "players"), (8, 5, "table_size"),
    (8, 1, "table_size"), (8, True, "table_size"),
])
def test_table_sizes_refused(players, size, field):
    with pytest.raises(DrawError) as caught:
        table_sizes(players, size)
    assert caught.value.field == field and str(caught.value)


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 200), st.integers(3, 4))
def test_table_sizes_even(players, size):
    sizes = table_sizes(players, size)
    assert sum(sizes) == players
    assert max(sizes) - min(sizes) <= 1 and max(sizes) <= size and min(sizes) >= 2
    assert len(sizes) == -(-players // size)
    assert list(sizes) == sorted(sizes, reverse=True)


def test_round_one_repeats_from_the_seed_whatever_the_check_in_order():
    names = NAMES[:10]
    first = draw_round(names, 4, seed=7)
    again = draw_round(list(reversed(names)), 4, seed=7)
    assert first == again
    assert [len(t.players) for t in first.tables] == [4, 3, 3]
    assert draw_round(names, 4, seed=8) != first
    for table in first.tables:
        assert table.dealer in table.players


def test_later_rounds_seat_the_leaders_together_and_keep_met_players_apart():
    names = NAMES[:8]
    standing = names  # P00 leads
    met = pairs_of([["P00", "P01", "P02", "P03"], ["P04", "P05", "P06", "P07"]])
    draw = draw_round(names, 4, seed=1, standing=standing, met=met)
    assert [t.players for t in draw.tables] == [("P00", "P04", "P01", "P05"),
                                                ("P02", "P06", "P03", "P07")]
    # Without history the leaders simply sit together.
    plain = draw_round(names, 4, seed=1, standing=standing)
    assert plain.tables[0].players == ("P00", "P01", "P02", "P03")


def test_the_last_table_is_not_left_with_whoever_met_most():
    """Tables filled from the top of the standing left the last with whoever was left: Dee,
    Eve and Fay, who had all met, together again (three meetings where one is the fewest
    possible). Swapping between tables keeps them apart where it can."""
    names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]
    met = pairs_of([["Dee", "Eve", "Fay"]])
    draw = draw_round(names, 3, seed=1, standing=names, met=met)
    again = [pair for t in draw.tables for pair in pairs_of([t.players]) if pair in met]
    assert len(again) == 1
    assert draw.tables[0].players[0] == "Ann"  # the leader still heads the first table


@settings(max_examples=100, deadline=None)
@given(st.integers(6, 24), st.integers(3, 4), st.randoms(use_true_random=False))
def test_a_swap_between_tables_never_seats_more_who_met(count, size, rnd):
    """Whatever met before, no swap of two players between the drawn tables would seat
    fewer pairs who met together (the draw stops only there)."""
    names = NAMES[:count]
    standing = list(names)
    rnd.shuffle(standing)
    met = pairs_of([rnd.sample(names, size) for _ in range(count // 2)])
    tables = [list(t.players) for t in draw_round(names, size, 1, standing=standing,
                                                   met=met).tables]

    def meetings(groups):
        return sum(pair in met for g in groups for pair in pairs_of([g]))
    least = meetings(tables)
    for t, u in itertools.combinations(range(len(tables)), 2):
        for i in range(len(tables[t])):
            for j in range(len(tables[u])):
                tried = [list(g) for g in tables]
                tried[t][i], tried[u][j] = tried[u][j], tried[t][i]
                assert meetings(tried) >= least


def test_a_standing_must_name_every_player():
    with pytest.raises(DrawError):
        draw_round(NAMES[:4], 4, seed=1, standing=NAMES[:3])
    with pytest.raises(DrawError):
        draw_round(["Ann", "Ann", "Bob"], 4, seed=1)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 40), st.integers(3, 4), st.integers(0, 2**31), st.booleans(),
       st.randoms(use_true_random=False))
def test_every_player_is_seated_once(count, size, seed, by_standing, rnd):
    names = NAMES[:count]
    standing = None
    if by_standing:
        standing = list(names)
        rnd.shuffle(standing)
    draw = draw_round(names, size, seed, standing=standing,
                      met=pairs_of([names[:3], names[3:6]]))
    assert sorted(draw.seated()) == sorted(names)
    assert tuple(len(t.players) for t in draw.tables) == table_sizes(count, size)
    assert all(t.dealer in t.players for t in draw.tables)
    assert draw == draw_round(names, size, seed, standing=standing,
                              met=pairs_of([names[:3], names[3:6]]))


def test_standings_share_places_without_tie_breaks_and_break_them_with():
    records = [Record("Ann", (D(6), D(0)), hands=4, caught=1),
               Record("Bob", (D(3), D(3)), hands=4, caught=0),
               Record("Cy", (D(-9), D(0)), hands=4, caught=2)]
    plain = standings(records)
    assert [(s.place, s.record.player) for s in plain] == [(1, "Ann"), (1, "Bob"), (3, "Cy")]
    best = standings(records, ("best_round",))
    assert [(s.place, s.record.player) for s in best] == [(1, "Ann"), (2, "Bob"), (3, "Cy")]
    caught = standings(records, ("fewest_caught", "best_round"))
    assert [(s.place, s.record.player) for s in caught] == [(1, "Bob"), (2, "Ann"), (3, "Cy")]


def test_a_round_not_played_is_no_round_broken_even():
    """A late arrival's first round is none, not 0: their best round is one they played (a
    round they sat out stood as a 0 best round above the −1 of those who played), and the
    pages say it was not played."""
    late, early = Record("Lou", (None, D(-2))), Record("Ann", (D(-1), D(-1)))
    assert (late.total, late.best_round) == (D(-2), D(-2))
    best = standings([late, early, Record("Bob", (D(2), D(-2)))], ("best_round",))
    assert [(s.place, s.record.player) for s in best] == [(1, "Bob"), (2, "Ann"), (3, "Lou")]
    assert Record("Zed", (None, None)).best_round == 0


def test_tie_break_names_are_checked():
    assert parse_tie_breaks(["best_round", "fewest_caught"]) == ("best_round", "fewest_caught")
    for bad in (["luck"], "best_round", ["best_round", "best_round"], [3]):
        with pytest.raises(StandingsError):
            parse_tie_breaks(bad)


def places(*groups):
    out, place = [], 1
    for group in groups:
        out.append((place, group))
        place += len(group)
    return out


def test_the_prize_list_of_the_issue():
    payout = parse_payout(["0.5", "0.3", "0.2"], 2)
    prizes = prize_list(D(200), D(0), payout, places(["Ann"], ["Bob", "Cy"], ["Dee"]), 2)
    assert prizes.pool == D(200)
    assert [(p.place, p.players, p.amount) for p in prizes.prizes] == [
        (1, ("Ann",), D("100.00")), (2, ("Bob", "Cy"), D("50.00"))]


def test_leftover_cents_and_house_share():
    payout = parse_payout(["0.5", "0.3", "0.2"], 2)
    # 7 fees of 15.00 = 105.00, house 10 % = 10.50, pool 94.50.
    prizes = prize_list(D(105), parse_house_share("0.1"), payout,
                        places(["Ann"], ["Bob", "Cy", "Dee"]), 2)
    assert (prizes.house, prizes.pool) == (D("10.50"), D("94.50"))
    # 47.25 to first; 28.35 + 18.90 = 47.25 for three: 15.75 each.
    assert [(p.players, p.amount) for p in prizes.prizes] == [
        (("Ann",), D("47.25")), (("Bob", "Cy", "Dee"), D("15.75"))]
    odd = prize_list(D("100.01"), D(0), parse_payout(["1"], 2), places(["Bob", "Ann", "Cy"]), 2)
    assert [(p.players, p.amount) for p in odd.prizes] == [
        (("Ann", "Bob"), D("33.34")), (("Cy",), D("33.33"))]


def test_players_tied_lose_nothing_to_rounding_their_places_one_by_one():
    """A newcomer's tournament: 12 fees of 20.00 less a house share of 7 % leave 223.20;
    four players tied for fourth cover the paid places 4 and 5, worth 0.20 of the pool
    together: 44.64, 11.16 each. Rounded down one place at a time (26.78 + 17.85) they had
    44.63, and first place the cent."""
    payout = parse_payout(["0.4", "0.25", "0.15", "0.12", "0.08"], 2)
    prizes = prize_list(D(240), parse_house_share("0.07"), payout,
                        places(["Ann"], ["Bob"], ["Eve"], ["Cy", "Dee", "Jo", "Kim"]), 2)
    assert prizes.pool == D("223.20")
    assert [(p.players, p.amount) for p in prizes.prizes] == [
        (("Ann",), D("89.28")), (("Bob",), D("55.80")), (("Eve",), D("33.48")),
        (("Cy", "Dee", "Jo", "Kim"), D("11.16"))]


def test_yen_is_whole_and_unreached_places_go_to_first():
    payout = parse_payout(["0.6", "0.3", "0.1"], 0)
    prizes = prize_list(D(1001), D(0), payout, places(["Ann"], ["Bob"]), 0)
    assert [(p.players, p.amount) for p in prizes.prizes] == [(("Ann",), D(701)),
                                                              (("Bob",), D(300))]


def test_fixed_prizes():
    payout = parse_payout({"fixed": ["100", "50"]}, 2)
    prizes = prize_list(D(200), D(0), payout, places(["Ann"], ["Bob"], ["Cy"]), 2)
    assert [p.amount for p in prizes.prizes] == [D(150), D(50)]
    with pytest.raises(PrizeError):
        prize_list(D(120), D(0), payout, places(["Ann"], ["Bob"]), 2)


@pytest.mark.parametrize(("value", "field"), [
    (["0.5", "0.4"], "prizes"), ([], "prizes"), ("0.5", "prizes"), ([0.5, 0.5], "prizes.0"),
    (["0", "1"], "prizes.0"), ({"fixed": ["1.005"]}, "prizes.fixed.0"), ({"share": []}, "prizes"),
])
def test_bad_payouts(value, field):
    with pytest.raises(PrizeError) as caught:
        parse_payout(value, 2)
    assert caught.value.field == field


def test_fees_and_house_shares_are_checked():
    assert parse_fee("20", 2) == D(20)
    for bad in ("-1", "1.5", 1.5, "x"):
        with pytest.raises(PrizeError):
            parse_fee(bad, 0)
    for bad in ("1", "-0.1", "half"):
        with pytest.raises(PrizeError):
            parse_house_share(bad)


def _cut_shares(cuts: list[int]) -> list[Decimal]:
    points = [0, *sorted(set(cuts)), 1000]
    return [D(b - a) / 1000 for a, b in zip(points, points[1:], strict=False)]


shares = st.lists(st.integers(1, 999), max_size=7).map(_cut_shares)


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 10**7), st.integers(0, 99), shares, st.sampled_from([0, 2]),
       st.lists(st.integers(1, 4), min_size=1, max_size=12))
def test_prizes_always_sum_to_the_pool(fee_units, house_pct, share_list, places_, ties):
    unit = D(1).scaleb(-places_)
    fees = D(fee_units) * unit
    payout = parse_payout([str(s) for s in share_list], places_)
    groups, n = [], 0
    for size in ties:
        groups.append([f"X{n + i}" for i in range(size)])
        n += size
    result = prize_list(fees, D(house_pct) / 100, payout, places(*groups), places_)
    assert result.house + result.pool == fees and result.house >= 0
    assert sum(p.amount * len(p.players) for p in result.prizes) == result.pool
    for prize in result.prizes:
        assert prize.amount == prize.amount.quantize(unit) and prize.amount >= 0
    # Players of one place differ by at most one unit.
    for place in {p.place for p in result.prizes}:
        amounts = [p.amount for p in result.prizes if p.place == place]
        assert max(amounts) - min(amounts) <= unit


def test_too_few_players_for_a_table_reads_right_for_one():
    """"1 players cannot make a table" read wrong: the count stands where no plural needs it."""
    with pytest.raises(DrawError) as caught:
        table_sizes(1, 4)
    assert str(caught.value) == "a table needs at least 2 players, not 1"
    assert caught.value.field == "players"
