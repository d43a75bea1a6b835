"""Known answers: 250 random hands, good and bad, and what the core answered for each when
settlement was last rewritten for speed (from the core at 278d0d0): the result as
JSON (outcome, winners, payments with their rules' words, net or pushed, the explanation)
and each payment's rule key, or the error's type, message and field. Every fast path of
parse_hand and settle must keep these exactly (tests/data/settle_answers.json; a change of
wording or a rule is a change of this file, made on purpose).

About a fifth are given as a session gives them: rules, stake and players from the table.
The last eleven are the rules' corners (the same hands as the end of
tests/data/rule_changes.json): the number of jokers, a tonk out with a hit, alternative 2
heads-up and a tied stock out under push-ups."""
from __future__ import annotations

import pathlib
from itertools import chain

from app.core import TonkError, parse_hand, resolve_rules, settle
from app.core.hand import parse_players
from app.core.money import loads, parse_stake
from app.core.parts import parts_and_counts, seat_nets, seat_parts, stat_counts

ANSWERS = loads((pathlib.Path(__file__).resolve().parent.parent / "data"
                 / "settle_answers.json").read_text(encoding="utf-8"))


def _answer(data, from_table):
    try:
        if from_table:
            data = dict(data)
            rules = resolve_rules(data.pop("rules"))
            hand = parse_hand(data, rules=rules, stake=parse_stake(data.pop("stake"), rules),
                              players=parse_players(data.pop("players")))
        else:
            hand = parse_hand(data)
    except TonkError as exc:
        return {"error": str(exc), "field": exc.field, "type": type(exc).__name__}
    result = settle(hand)
    return {"result": result.to_json(), "keys": [p.key for p in result.payments]}


def test_every_known_answer_is_given_again():
    assert len(ANSWERS) == 261
    wrong = [(i, case["hand"], case["answer"], answer) for i, case in enumerate(ANSWERS)
             if (answer := _answer(case["hand"], case.get("table", False))) != case["answer"]]
    assert not wrong, f"{len(wrong)} answers differ; the first: {wrong[0]}"


def test_the_answers_hold_every_outcome_and_many_errors():
    outcomes = {c["answer"]["result"]["outcome"] for c in ANSWERS if "result" in c["answer"]}
    assert outcomes == {"deal_win", "tonk_out", "run_out", "drop_won", "caught", "stock_out",
                        "draw", "dead"}
    fields = {c["answer"]["field"] for c in ANSWERS if "error" in c["answer"]}
    assert len(fields) >= 30


def test_parts_and_counts_are_seat_parts_and_stat_counts():
    """Each seat's part (``parts_and_counts``, and :func:`seat_parts` made from it) is its
    net and whether it won, tonked out, won a drop or was caught, as the result says, and
    what it adds to the record is :func:`stat_counts` of it, the same types too (a bool
    stays a bool: the entries store them), for every hand here that settles, at a full
    table and at one a seat short."""
    outcomes = set()
    for case in ANSWERS:
        data = case["hand"]
        data = dict(data) if isinstance(data, dict) else data
        try:
            if case.get("table", False):
                rules = resolve_rules(data.pop("rules"))
                hand = parse_hand(data, rules=rules, stake=parse_stake(data.pop("stake"), rules),
                                  players=parse_players(data.pop("players")))
            else:
                hand = parse_hand(data)
        except TonkError:
            continue
        result = settle(hand)
        names = hand.players
        nets = seat_nets(names, result)
        for playing in (names, names[1:]):
            some = [nets[names.index(n)] for n in playing]
            won = set(result.winners)
            dropper = result.hand.end.player if result.outcome == "caught" else None
            expected = [(amount, name in won, result.outcome == "tonk_out" and name in won,
                         result.outcome == "drop_won" and name in won, name == dropper)
                        for name, amount in zip(playing, some, strict=True)]
            parts = seat_parts(playing, some, result)
            flat, counts = parts_and_counts(playing, some, result)
            assert repr(flat) == repr(tuple(chain.from_iterable(expected)))
            assert repr([tuple(p) for p in parts]) == repr(expected)
            assert repr(counts) == repr([stat_counts(p) for p in parts])
        outcomes.add(result.outcome)
    assert outcomes == {"deal_win", "tonk_out", "run_out", "drop_won", "caught", "stock_out",
                        "draw", "dead"}
