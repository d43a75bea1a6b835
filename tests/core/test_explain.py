"""The explanation sentences, each fixed where a person at the table misread it:
one test per fix, asserting the exact sentence (the catalogue's wording, checked once)."""
from __future__ import annotations

from app.core import parse_hand, settle

TABLE = ["Ann", "Bob", "Cy", "Dee"]


def explained(rules, end, counts, stake="0.25", dealer="Dee"):
    return settle(parse_hand({"rules": rules, "stake": stake, "players": TABLE,
                              "dealer": dealer, "end": end, "counts": counts})).explanation


def test_alt3_says_the_droppers_count():
    """"At or below their count" read as each player's own count."""
    lines = explained({"preset": "pagat", "catch": "alt3"}, {"kind": "drop", "player": "Bob"},
                      {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30})
    assert "Catch rule (catch, alternative 3): the dropper pays the stake to each other player " \
           "at or below the dropper's count; the lowest also gets the stake from the dropper " \
           "and from everyone else." in lines


def test_wikipedia_catch_says_the_whole_amount_once():
    """"Bob pays Cy 0.25 (… is paid double)" put one stake next to "double"."""
    lines = explained("wikipedia", {"kind": "drop", "player": "Bob"},
                      {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30})
    assert "Bob pays Cy 0.50 in all: 0.25 (encyclopedia catch: the dropper pays the stake once " \
           "more to a winner tied with the dropper) and 0.25 (encyclopedia catch: each player " \
           "pays the winner the stake)." in lines
    assert not any(line.startswith("Bob pays Cy 0.25") for line in lines)


def test_rushville_catch_names_every_bumper_in_its_own_words():
    lines = explained("rushville", {"kind": "drop", "player": "Bob"},
                      {"Ann": 5, "Bob": 9, "Cy": 9, "Dee": 30})
    assert lines[1] == ("Ann and Cy bumped Bob's head (an equal or lower count): Bob pays "
                        "double rum to each who did, and nobody else pays.")
    assert not any("has the lowest count" in line for line in lines)


def test_rushville_words_only_while_the_catch_is_double_rum():
    lines = explained({"preset": "rushville", "catch_factor": 3},
                      {"kind": "drop", "player": "Bob"}, {"Ann": 5, "Bob": 9, "Cy": 9, "Dee": 30})
    assert lines[1] == ("Every player at or below Bob's count caught Bob and is paid triple, "
                        "not only the lowest: Ann and Cy.")


def test_chicago_catch_says_every_catcher_is_paid():
    lines = explained("chicago", {"kind": "drop", "player": "Bob"},
                      {"Ann": 5, "Bob": 9, "Cy": 9, "Dee": 30})
    assert lines[1] == ("Every player at or below Bob's count caught Bob and is paid double, "
                        "not only the lowest: Ann and Cy.")
    assert not any("has the lowest count" in line for line in lines)


def test_washington_names_only_the_lowest_as_the_catcher():
    """The first sentence said the tied Cy caught Bob, but Cy is paid nothing."""
    lines = explained("washington", {"kind": "drop", "player": "Bob"},
                      {"Ann": 5, "Bob": 9, "Cy": 9, "Dee": 30}, stake="1")
    assert lines[0] == "Bob dropped with 9; Ann holds 5, so Bob is caught."
    assert lines[1] == "Cy: at or below Bob's count too, but paid nothing under this rule."


def test_nearest_the_dealers_left_says_who_dealt_after_a_caught_drop():
    lines = explained({"preset": "pagat", "catch": "alt5"}, {"kind": "drop", "player": "Bob"},
                      {"Ann": 5, "Bob": 9, "Cy": 5, "Dee": 30})
    assert "Only the one nearest the dealer's left is paid (Dee dealt): Ann." in lines


def test_nearest_the_dealers_left_says_who_dealt_on_the_deal():
    lines = explained("newark", {"kind": "deal"}, {"Ann": 10, "Cy": 10}, dealer="Bob")
    assert lines[1] == ("Only the best instant win is paid; the best are equal, and Cy, "
                        "nearest the dealer's left (Bob dealt), wins.")


def test_tied_stock_out_says_tied_winners_do_not_pay_each_other():
    """"Paid by everyone else" was loose: Ann and Cy do not pay each other."""
    lines = explained("pagat", {"kind": "stock_out"}, {"Ann": 3, "Bob": 9, "Cy": 3, "Dee": 30})
    assert lines[0] == ("The stock ran out; Ann and Cy tie for the lowest count, 3: each of "
                        "them is paid by every player not tied with them, and they do not pay "
                        "each other.")


def test_face_value_rank_summary_says_49_and_50_win_nothing():
    from app.core.cards import FACE_VALUES

    assert str(FACE_VALUES["rank"]) == ("J counts 11, Q 12, K 13; 49 and 50 are then no "
                                        "instant wins on the deal (they would come too often)")
