"""The ledger service on SQLite and PostgreSQL: recording, correcting, voiding, totals,
settle-up and closing; and, as properties, that running totals always equal the sum of
the current versions' nets."""
from __future__ import annotations

from datetime import UTC, timedelta
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from app.core import TonkError
from app.db.models import Hand, HandEntry, HandVersion, PlayerSessionStat, User
from app.db.unit import unit_of_work
from app.extensions import db
from app.services.accounts import create_user
from app.services.errors import NotFoundError, SessionClosedError
from app.services.sessions import ledger

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]
DROP: dict[str, Any] = {"end": {"kind": "drop", "player": "Bob"},
                        "counts": {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30}}


@pytest.fixture
def ctx(db_app):
    with db_app.app_context():
        with unit_of_work():
            user = create_user("ann@example.com", "Ann", "correct horse")
            gs = ledger.create_session(user, name="Friday", players=PLAYERS, stake="0.25",
                                       first_dealer="Dee")
        yield user, gs


def totals(gs):
    return {k: str(v) for k, v in ledger.ledger_of(gs).totals.items()}


def test_record_rotates_the_dealer_and_moves_totals(ctx):
    user, gs = ctx
    first = ledger.record_hand(gs, user, {"end": {"kind": "tonk_out", "player": "Ann"}})
    second = ledger.record_hand(gs, user, DROP)
    assert (first.number, first.data["dealer"]) == (1, "Dee")
    assert (second.number, second.data["dealer"]) == (2, "Ann")
    assert totals(gs) == {"Ann": "1.25", "Bob": "-1.00", "Cy": "0.50", "Dee": "-0.75"}
    assert ledger.ledger_of(gs).hands == 2


def test_correct_keeps_the_old_version_and_totals_follow(ctx):
    user, gs = ctx
    ledger.record_hand(gs, user, DROP)
    ledger.correct_hand(gs, user, 1, {"end": {"kind": "run_out", "player": "Cy"}},
                        "counts were misread")
    assert totals(gs) == {"Ann": "-0.25", "Bob": "-0.25", "Cy": "0.75", "Dee": "-0.25"}
    versions = ledger.history(ledger.get_hand(gs, 1))
    assert [(v["version"], v["action"], v["reason"], v["by"]) for v in versions] == [
        (1, "recorded", None, "Ann"), (2, "corrected", "counts were misread", "Ann")]
    assert versions[0]["result"]["outcome"] == "caught"


def test_times_read_back_are_aware_utc_and_history_gives_them_as_values(ctx):
    """SQLite keeps no zone: app.db.types.UTCDateTime reads every stored time as UTC, so
    no caller has to (and the history gives times, not text to parse back)."""
    user, gs = ctx
    ledger.record_hand(gs, user, DROP)
    hand_id = ledger.get_hand(gs, 1).id
    db.session.expire_all()
    hand = db.session.get(Hand, hand_id)
    assert hand is not None
    stored = db.session.scalars(select(HandVersion.created_at)).one()
    (version,) = ledger.history(hand)
    assert version["at"] == stored and stored.utcoffset() == timedelta(0)
    assert version["at"].tzinfo is UTC


def test_void_keeps_the_hand_and_correcting_restores_it(ctx):
    user, gs = ctx
    ledger.record_hand(gs, user, DROP)
    ledger.void_hand(gs, user, 1, "dealt from the wrong deck")
    assert set(totals(gs).values()) == {"0.00"}
    assert ledger.get_hand(gs, 1).voided
    with pytest.raises(TonkError, match="hand 1: the hand is already void") as twice:
        ledger.void_hand(gs, user, 1, "again")  # (the night's own refusal)
    assert twice.value.field == "number"
    ledger.correct_hand(gs, user, 1, DROP, "it was fine after all")
    assert totals(gs)["Cy"] == "1.00"
    assert db.session.scalar(select(func.count()).select_from(HandVersion)) == 3


@pytest.mark.parametrize("call, field", [
    (lambda u, gs: ledger.record_hand(gs, u, {"end": {"kind": "drop", "player": "Zed"}}),
     "end.player"),
    (lambda u, gs: ledger.record_hand(gs, u, {**DROP, "counts": {**DROP["counts"],
                                                                 "Ann": 51}}), "counts.Ann"),
    (lambda u, gs: ledger.record_hand(gs, u, {**DROP, "stake": "5"}), "stake"),
    (lambda u, gs: ledger.correct_hand(gs, u, 1, DROP, "  "), "reason"),
    (lambda u, gs: ledger.void_hand(gs, u, 1, None), "reason"),
    (lambda u, gs: ledger.correct_hand(gs, u, 9, DROP, "typo"), None),
])
def test_bad_changes_change_nothing(ctx, call, field):
    user, gs = ctx
    with unit_of_work():
        ledger.record_hand(gs, user, DROP)
    before = totals(gs)
    with pytest.raises(TonkError) as info, unit_of_work():
        call(user, gs)
    assert info.value.field == field
    assert totals(gs) == before
    assert db.session.scalar(select(func.count()).select_from(HandVersion)) == 1


def test_another_account_cannot_reach_the_session(ctx):
    _, gs = ctx
    other = create_user("bob@example.com", "Bob", "battery staple")
    with pytest.raises(NotFoundError):
        ledger.owned_session(other, gs.id)


def test_settle_up_in_part_and_in_full_then_close(ctx):
    user, gs = ctx
    ledger.record_hand(gs, user, DROP)
    state = ledger.ledger_of(gs)
    assert [(t.payer, t.payee, str(t.amount)) for t in state.transfers] == [
        ("Ann", "Cy", "0.25"), ("Bob", "Cy", "0.50"), ("Dee", "Cy", "0.25")]
    with pytest.raises(TonkError, match="not everything is paid"):
        ledger.close_session(gs)
    ledger.record_payment(gs, user, "Bob", "Cy", "0.20")
    assert str(ledger.ledger_of(gs).open["Bob"]) == "-0.30"
    with pytest.raises(TonkError, match="more than is open"):
        ledger.record_payment(gs, user, "Bob", "Cy", "0.31")
    with pytest.raises(TonkError, match="owes nothing"):
        ledger.record_payment(gs, user, "Cy", "Bob", "0.10")
    for t in ledger.ledger_of(gs).transfers:
        ledger.record_payment(gs, user, t.payer, t.payee, t.amount)
    assert ledger.ledger_of(gs).all_paid
    ledger.close_session(gs)
    with pytest.raises(SessionClosedError):
        ledger.record_hand(gs, user, DROP)


def test_rules_change_applies_to_later_hands_only(ctx):
    user, gs = ctx
    ledger.record_hand(gs, user, DROP)
    ledger.change_rules(gs, user, rules={"preset": "pagat", "catch": "alt4"}, stake="1")
    ledger.record_hand(gs, user, DROP)
    first, second = ledger.get_hand(gs, 1), ledger.get_hand(gs, 2)
    assert first.data["rules"] == {"preset": "pagat"} and first.data["stake"] == "0.25"
    assert second.data["rules"] == {"preset": "pagat", "catch": "alt4"}
    # A correction of hand 1 is settled under hand 1's own rules.
    ledger.correct_hand(gs, user, 1, DROP, "same again")
    assert ledger.get_hand(gs, 1).result["net"]["Bob"] == "-0.50"


def test_push_ups_totals_are_points_and_nothing_to_transfer(db_app):
    with db_app.app_context():
        user = create_user("p@example.com", "P", "password-one-1")
        gs = ledger.create_session(user, name="Pushes", players=PLAYERS, rules="push_ups")
        ledger.record_hand(gs, user, {"end": {"kind": "tonk_out", "player": "Ann"},
                                      "counts": {"Bob": 12, "Cy": 3, "Dee": 20}})
        state = ledger.ledger_of(gs)
        assert state.totals == {"Ann": 0, "Bob": 24, "Cy": 6, "Dee": 40}
        assert state.transfers == () and state.all_paid


def test_running_totals_for_the_chart(ctx):
    user, gs = ctx
    ledger.record_hand(gs, user, DROP)
    ledger.record_hand(gs, user, {"end": {"kind": "dead"}})
    ledger.void_hand(gs, user, 2, "no")
    assert ledger.running_totals(gs) == [(0, [0, 0, 0, 0]), (1, [-25, -50, 100, -25])]


# -- properties ------------------------------------------------------------------------------

ends = st.one_of(
    st.builds(lambda p: {"end": {"kind": "tonk_out", "player": p}}, st.sampled_from(PLAYERS)),
    st.builds(lambda p: {"end": {"kind": "run_out", "player": p}}, st.sampled_from(PLAYERS)),
    st.builds(lambda p, c: {"end": {"kind": "drop", "player": p}, "counts": dict(
        zip(PLAYERS, c, strict=True))}, st.sampled_from(PLAYERS),
        st.lists(st.integers(0, 50), min_size=4, max_size=4)),
    st.builds(lambda c: {"end": {"kind": "stock_out"}, "counts": dict(
        zip(PLAYERS, c, strict=True))}, st.lists(st.integers(0, 50), min_size=4, max_size=4)),
    st.just({"end": {"kind": "dead"}}),
    st.builds(lambda p: {"end": {"kind": "deal"}, "counts": {p: 49}}, st.sampled_from(PLAYERS)),
)
steps = st.lists(st.tuples(st.sampled_from(["record", "record", "correct", "void"]),
                           st.integers(1, 8), ends, st.booleans()), min_size=1, max_size=12)
PROPERTY = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def _current_sum(gs):
    rows = db.session.execute(select(HandEntry.player_id, func.sum(HandEntry.amount_minor))
                              .where(HandEntry.session_id == gs.id)
                              .group_by(HandEntry.player_id)).all()
    by_player = dict(rows)
    return {s.name: by_player.get(s.player_id, 0) for s in gs.seats}


@PROPERTY
@given(steps=steps, rules=st.sampled_from(["pagat", "texas", "washington", "push_ups"]))
def test_totals_always_equal_the_sum_of_current_nets(db_app, steps, rules):
    with db_app.app_context():
        with unit_of_work():
            user = _user()
            gs = ledger.create_session(user, name="Prop", players=PLAYERS, rules=rules)
        for action, number, data, big_one in steps:
            data = {**data, "multiplier": 2 if big_one else 1}
            try:
                with unit_of_work():
                    if action == "record" or gs.hand_count == 0:
                        ledger.record_hand(gs, user, data)
                    elif action == "correct":
                        ledger.correct_hand(gs, user, 1 + number % gs.hand_count, data, "fix")
                    else:
                        ledger.void_hand(gs, user, 1 + number % gs.hand_count, "void")
            except TonkError:
                pass
        stored = {s.name: s.total_minor for s in gs.seats}
        assert stored == _current_sum(gs)
        hands = db.session.scalars(select(Hand).where(Hand.session_id == gs.id)).all()
        recomputed = dict.fromkeys(PLAYERS, 0)
        for hand in hands:
            for name, amount in zip(PLAYERS, hand.nets, strict=True):
                recomputed[name] += amount
        assert stored == recomputed
        if rules != "push_ups":
            assert sum(stored.values()) == 0
        assert _records(gs) == _records_from_entries(gs)


def _records(gs):
    rows = db.session.scalars(select(PlayerSessionStat).where(
        PlayerSessionStat.session_id == gs.id)).all()
    return {(r.player_id, r.scoring): (r.net_minor, r.hands, r.hands_won, r.tonks_out,
                                       r.drops_won, r.times_caught)
            for r in rows if r.hands}


def _records_from_entries(gs):
    out: dict[tuple[int, str], list[int]] = {}
    for e in db.session.scalars(select(HandEntry).where(HandEntry.session_id == gs.id)):
        row = out.setdefault((e.player_id, e.scoring), [0, 0, 0, 0, 0, 0])
        for i, value in enumerate((e.amount_minor, 1, e.won, e.tonked_out, e.drop_won,
                                   e.caught)):
            row[i] += int(value)
    return {k: tuple(v) for k, v in out.items()}


@PROPERTY
@given(first=ends, second=ends)
def test_correcting_and_correcting_back_restores_every_total(db_app, first, second):
    with db_app.app_context():
        user = _user()
        gs = ledger.create_session(user, name="Back", players=PLAYERS, stake="0.05")
        ledger.record_hand(gs, user, DROP)
        try:
            ledger.record_hand(gs, user, first)
        except TonkError:
            db.session.rollback()
            return
        before = totals(gs)
        try:
            ledger.correct_hand(gs, user, 2, second, "wrong")
        except TonkError:
            db.session.rollback()
            return
        ledger.correct_hand(gs, user, 2, first, "right after all")
        assert totals(gs) == before
        assert sum(Decimal(v) for v in totals(gs).values()) == 0


_COUNTER = iter(range(10**9))


def _user():
    """A keeper without the cost of hashing a password (these tests are not about that)."""
    user = User(email=f"user{next(_COUNTER)}@example.com", name="Keeper", password_hash="-")
    db.session.add(user)
    db.session.commit()
    return user


def test_push_ups_take_no_stake(db_app):
    """Push-ups use no stake (one rule, core.money.takes_stake): a stake sent must read as a
    number and is ignored, so nothing shows a "stake 0.25" that plays no part, and a
    push-ups league or table with any stake starts sessions."""
    with db_app.app_context():
        user = _user()
        gs = ledger.create_session(user, name="P", players=PLAYERS, rules="push_ups",
                                   stake="0.25")
        hand = ledger.record_hand(gs, user, {"end": {"kind": "dead"}})
        assert hand.data["stake"] == "0"
        assert ledger.session_stake(gs) == 0 and gs.stake_minor == 0
        with pytest.raises(TonkError, match="stake"):
            ledger.create_session(user, name="P", players=PLAYERS, rules="push_ups",
                                  stake="lots")
        ledger.change_rules(gs, user, rules="pagat")  # back to money: the stake is 1
        assert ledger.session_stake(gs) == 1
