"""Export and import (app.services.exchange) on SQLite and PostgreSQL: a league made hand by hand
through the ledger, exported, imported into an empty database, comes back exactly
(standings, totals, histories, ratings, and the document itself); importing twice adds nothing
twice; every kind of broken file is refused with a clear message and leaves the database
as it was; the CSV files have one row per hand and per payment; and the pages."""
from __future__ import annotations

import copy
import csv
import io
import json
import logging
from decimal import Decimal
from typing import Any

import pytest
from flask_login import FlaskLoginClient
from sqlalchemy import func, select

from app.cli.commands import report_lines
from app.core.messages import as_sent
from app.db.models import (
    CarriedDebt,
    GameSession,
    Hand,
    HandVersion,
    League,
    LeagueAdmin,
    User,
)
from app.db.unit import unit_of_work
from app.extensions import db
from app.services import accounts, exchange
from app.services.exchange import importer
from app.services.sessions import ledger
from tests.apps import make_app
from tests.clients import sign_up
from tests.expect import fetched, unphrased
from tests.hands import DROP_CAUGHT, PLAYERS
from tests.played_league import TABLES, document, importing, play_league, snapshot, user, wipe


def counts() -> dict[str, int]:
    return {t.__tablename__: db.session.execute(select(func.count()).select_from(t)).scalar_one()
            for t in TABLES}


# -- the round trip --------------------------------------------------------------------------

def test_export_then_import_into_an_empty_database_gives_it_all_back(db_app):
    with db_app.app_context():
        owner, helper = user(), user("helper@example.com", "Helper")
        league = play_league(owner, helper)
        before = snapshot()
        assert before["debts"] and any(p[6] for p in before["payments"])  # version 2's
        assert any(p[5] for p in before["payments"])  # payments along a planned transfer
        text = document(exchange.export_league(league))
        parsed = json.loads(text)
        assert (parsed["format"], parsed["version"]) == ("tonk-tally", 2)
        assert [s["name"] for s in parsed["sessions"]] == ["Friday", "Saturday", "Sunday"]
        friday = parsed["sessions"][0]
        assert [v["by"] for v in friday["hands"][0]["versions"]] == ["Keeper", "Helper"]
        assert [v["action"] for v in friday["hands"][2]["versions"]] == [
            "recorded", "voided", "corrected"]
        assert friday["hands"][1]["voided"] is True
        assert friday["rules_changes"][0]["from_hand"] == 4
        assert friday["closed_at"] is not None and friday["payments"]

        wipe(db_app)
        stranger = user("new@example.com", "Newcomer")
        report = importing(text, stranger)
        assert report.ok, report.problems
        assert (report.sessions, report.hands, report.league_created) == (3, 8, True)
        after = snapshot()
        for key in before:
            assert after[key] == before[key], key
        imported = db.session.scalar(select(League))
        assert imported is not None
        assert document(exchange.export_league(imported)) == text
        # the importer owns it all and runs the league; the history keeps who did what
        assert {gs.owner_id for gs in db.session.scalars(select(GameSession))} == {stranger.id}
        assert db.session.get(LeagueAdmin, (report.league_id, stranger.id)) is not None
        assert {v.created_by_id for v in db.session.scalars(select(HandVersion))} == {
            stranger.id}


def test_hand_ids_taken_out_of_order_still_tie_each_version_to_its_hand(db_app, monkeypatch):
    """On PostgreSQL another writer's nextval can come between two of the import's, so the
    ids it is given for a batch's hands need not be one run (a scorekeeper recording during
    an import once met a duplicate key): every version and entry follows its own hand's id."""
    given = exchange.Importer.new_ids

    def spaced(self, table, n):
        ids = given(self, table, 2 * n)  # every other id, as if another writer took the rest
        return ids[::2] if table.name == "hands" else given(self, table, n)

    with db_app.app_context():
        owner = user()
        league = play_league(owner, owner)
        before = snapshot()
        text = document(exchange.export_league(league))
        wipe(db_app)
        monkeypatch.setattr(exchange.Importer, "new_ids", spaced)
        report = importing(text, user())
        assert report.ok, report.problems
        assert snapshot() == before
        numbers = sorted(db.session.scalars(select(Hand.id)))
        assert numbers != list(range(numbers[0], numbers[0] + len(numbers)))  # not one run


def test_a_session_round_trip_and_the_ledger_goes_on_from_there(db_app):
    with db_app.app_context():
        owner = user()
        gs = ledger.create_session(owner, name="Solo", players=["Ann", "Bob"], stake="2",
                                   rules="washington")
        ledger.record_hand(gs, owner, {"end": {"kind": "tonk_out", "player": "Bob",
                                               "method": "hits"}})
        ledger.record_hand(gs, owner, DROP_CAUGHT | {"counts": {"Ann": 1, "Bob": 5}})
        before, text = snapshot(), document(exchange.export_session(gs))
        wipe(db_app)
        owner = user()
        assert importing(text, owner).ok
        assert snapshot() == before
        imported = db.session.scalar(select(GameSession))
        assert imported is not None
        hand = ledger.record_hand(imported, owner, {"end": {"kind": "run_out", "player": "Ann"}})
        assert hand.number == 3 and hand.data["dealer"] == "Ann"
        assert sum(s.total_minor for s in imported.seats) == 0
        assert len(ledger.history(ledger.get_hand(imported, 2))) == 1


def test_a_tables_own_number_of_jokers_goes_out_and_comes_back(db_app):
    """``jokers`` is stored with the rules' JSON, so export and import keep it,
    and the imported session still takes a hand with the third joker."""
    with db_app.app_context():
        owner = user()
        rules = {"preset": "wikipedia", "jokers": 3}
        gs = ledger.create_session(owner, name="Jokers", players=["Ann", "Bob"], stake="1",
                                   rules=rules)
        third = {"end": {"kind": "drop", "player": "Ann"},
                 "cards": {"Ann": ["JOKER", "JOKER"], "Bob": ["JOKER", "5S"]}}
        ledger.record_hand(gs, owner, third)
        text = document(exchange.export_session(gs))
        assert '"jokers": 3' in text or '"jokers":3' in text
        before = snapshot()
        wipe(db_app)
        owner = user()
        assert importing(text, owner).ok
        assert snapshot() == before
        imported = db.session.scalar(select(GameSession))
        assert imported is not None
        assert json.loads(imported.rules_json) == rules
        assert ledger.record_hand(imported, owner, third).number == 2


def test_importing_the_same_file_twice_adds_nothing_twice(db_app):
    with db_app.app_context():
        owner = user()
        league = play_league(owner, owner)
        text = document(exchange.export_league(league))
        wipe(db_app)
        owner = user()
        assert importing(text, owner).ok
        before, rows = snapshot(), counts()
        again = importing(text, owner)
        assert again.ok and (again.sessions, again.hands) == (0, 0)
        assert len(again.skipped) == 3 and all("already there" in s for s in again.skipped)
        assert (snapshot(), counts()) == (before, rows)


def test_statistics_that_cannot_be_made_after_an_import_still_leave_the_league_rated(
        db_app, monkeypatch, caplog):
    """On PostgreSQL the import ANALYZEs the tables the re-rating reads once it has
    committed: a speed-up. When it fails (here a table that is not there; in life a VACUUM
    holding the tables past the lock timeout), the ratings are made all the same: left
    undone they would never be, as importing again finds every session there. The log
    says what was skipped."""
    with db_app.app_context():
        if db.engine.dialect.name != "postgresql":
            pytest.skip("SQLite: nothing is ANALYZEd after an import")
        owner = user()
        league = play_league(owner, owner)
        before = snapshot()
        assert before["ratings"]
        text = document(exchange.export_league(league))
        wipe(db_app)
        monkeypatch.setattr(importer, "RATED", ("game_sessions", "no_such_table"))
        with caplog.at_level(logging.WARNING, logger=importer.log.name):
            report = importing(text, user())
        assert report.ok, report.problems
        assert snapshot()["ratings"] == before["ratings"]
        assert "ANALYZE skipped" in caplog.text


def test_sessions_not_there_yet_are_added_to_the_league(db_app):
    with db_app.app_context():
        owner = user()
        league = play_league(owner, owner)
        whole = json.loads(document(exchange.export_league(league)))
        wipe(db_app)
        owner = user()
        first = copy.deepcopy(whole)
        first["sessions"] = whole["sessions"][:1]
        assert importing(json.dumps(first), owner).ok
        report = importing(json.dumps(whole), owner)
        assert report.ok and (report.sessions, len(report.skipped)) == (2, 1)
        assert not report.league_created
        assert db.session.scalar(select(func.count()).select_from(League)) == 1
        assert db.session.scalar(select(func.count()).select_from(GameSession)) == 3


def test_a_league_run_by_another_account_is_not_merged_into(db_app):
    with db_app.app_context():
        owner = user()
        league = play_league(owner, owner)
        text = document(exchange.export_league(league))
        rows = counts()
        other = user("other@example.com", "Other")
        report = importing(text, other)
        assert not report.ok and "another account" in report.problems[0]
        assert counts() == rows


# -- broken files ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def good(tmp_path_factory) -> dict[str, Any]:
    """A small valid document (made once, on SQLite)."""
    app = make_app(f"sqlite:///{tmp_path_factory.mktemp('good') / 'good.sqlite'}")
    with app.app_context():
        db.create_all()
        owner = accounts.create_user("maker@example.com", "Maker", "correct horse")
        gs = ledger.create_session(owner, name="Friday", players=PLAYERS, stake="0.25")
        ledger.record_hand(gs, owner, DROP_CAUGHT)
        ledger.record_hand(gs, owner, {"end": {"kind": "tonk_out", "player": "Ann"}})
        ledger.correct_hand(gs, owner, 2, {"end": {"kind": "run_out", "player": "Cy"}},
                            "it was a run out")
        ledger.record_hand(gs, owner, {"end": {"kind": "stock_out"},
                                       "counts": {"Ann": 3, "Bob": 7, "Cy": 9, "Dee": 30}})
        doc = json.loads(document(exchange.export_session(gs)))
        db.session.remove()
        db.engine.dispose()
    return doc


def _hand(doc, number):
    return doc["sessions"][0]["hands"][number - 1]


def _unknown_player(doc):
    _hand(doc, 1)["versions"][0]["hand"]["end"]["player"] = "Zed"


def _count_too_high(doc):
    _hand(doc, 1)["versions"][0]["hand"]["counts"]["Ann"] = 51


def _result_off(doc):
    _hand(doc, 3)["versions"][0]["result"]["net"]["Ann"] = "9.99"


def _wrong_winner(doc):
    _hand(doc, 1)["versions"][0]["result"]["winners"] = ["Bob"]


def _version_gap(doc):
    _hand(doc, 2)["versions"][1]["version"] = 3


def _duplicate_number(doc):
    _hand(doc, 2)["number"] = 1


def _missing_hand(doc):
    del doc["sessions"][0]["hands"][1]


def _correction_first(doc):
    _hand(doc, 1)["versions"][0]["action"] = "corrected"


def _correction_without_reason(doc):
    _hand(doc, 2)["versions"][1]["reason"] = " "


def _other_rules_in_correction(doc):
    _hand(doc, 2)["versions"][1]["hand"]["stake"] = "5.00"


def _not_the_table(doc):
    _hand(doc, 1)["versions"][0]["hand"]["players"] = ["Ann", "Bob", "Cy", "Eve"]


def _totals_off(doc):
    doc["sessions"][0]["totals"]["Ann"] = "100.00"


def _money_off(doc):
    doc["sessions"][0]["money"]["Ann"]["total"] = "0.55"


def _money_part_missing(doc):
    del doc["sessions"][0]["money"]["Ann"]["pots_back"]


def _no_players(doc):
    del doc["sessions"][0]["players"]


def _no_uid(doc):
    del doc["sessions"][0]["uid"]


def _bad_time(doc):
    _hand(doc, 1)["versions"][0]["at"] = "yesterday"


def _not_a_hand(doc):
    doc["sessions"][0]["hands"][0] = "hand one"


def _twice_in_the_file(doc):
    doc["sessions"].append(copy.deepcopy(doc["sessions"][0]))


def _wrong_format(doc):
    doc["format"] = "some-other-app"


def _wrong_version(doc):
    doc["version"] = 3


BROKEN = [
    (_unknown_player, "hand 1, version 1: end.player: Zed is not at the table"),
    (_count_too_high, "hand 1, version 1: Ann's count of 51 is more than five cards can hold"),
    (_result_off, "hand 3, version 1: the stored result does not match the hand: Ann"),
    (_wrong_winner, "hand 1, version 1: the stored result does not match the hand: it says "
                    "the winners are Bob"),
    (_version_gap, "hand 2: the versions must run 1, 2, 3… without gaps"),
    (_duplicate_number, "there are two hands numbered 1"),
    (_missing_hand, "hand 2 is missing"),
    (_correction_first, "hand 1, version 1: the first version is recorded"),
    (_correction_without_reason, "hand 2, version 2: say why"),
    (_other_rules_in_correction, "a correction keeps the house rules and stake"),
    (_not_the_table, "are not the session's"),
    (_totals_off, "the totals do not match the hands: Ann's total"),
    (_money_off, "the money does not match the hands: Ann's total is "),
    (_money_part_missing, "money must give every player's hands, side_bets, pots_back and total"),
    (_no_players, "players must be a list of names"),
    (_no_uid, "a session needs a uid"),
    (_bad_time, "at must be a time like"),
    (_not_a_hand, "a hand must be a JSON object"),
    (_twice_in_the_file, "this uid appears twice in the file"),
    (_wrong_format, 'this is not a Tonk Tally export: it does not say "format": "tonk-tally"'),
    (_wrong_version, "this export is version 3 of the format; this app reads versions 1 to 2"),
]


@pytest.mark.parametrize("breaks, message", BROKEN, ids=[b.__name__[1:] for b, _ in BROKEN])
def test_a_broken_document_is_refused_whole_with_a_clear_message(db_app, good, breaks,
                                                                 message):
    doc = copy.deepcopy(good)
    breaks(doc)
    with db_app.app_context():
        owner = user()
        rows = counts()
        report = importing(json.dumps(doc), owner)
        assert not report.ok and (report.sessions, report.hands) == (0, 0)
        assert any(message in p for p in report.problems), report.problems
        session = doc["sessions"][0]
        if isinstance(session.get("uid"), str) and "format" not in message and \
                "version 2" not in message:
            assert any(f"session Friday ({session['uid']})" in p for p in report.problems)
        assert counts() == rows


def test_a_problem_after_batches_were_written_takes_back_the_import_alone(db_app, good):
    """Three sessions in batches of one, the third broken: on PostgreSQL the first two are
    written before the third is checked; all of it is taken back, and what the same
    transaction did before the import stays (the import writes under a savepoint of its
    own: the write boundary, not the importer, ends the transaction)."""
    doc = copy.deepcopy(good)
    doc["sessions"] = [dict(copy.deepcopy(doc["sessions"][0]), uid=f"{n:032x}")
                       for n in (1, 2, 3)]
    doc["sessions"][2]["hands"][0]["versions"][0]["hand"]["counts"]["Ann"] = 51
    with db_app.app_context():
        owner = user()
        rows = counts()
        with unit_of_work(begin=False):
            accounts.create_user("kept@example.com", "Kept", "correct horse")
            report = exchange.import_file(io.BytesIO(json.dumps(doc).encode()), owner,
                                          batch_hands=1)
        assert not report.ok and (report.sessions, report.hands) == (0, 0)
        assert counts() == rows
        assert db.session.scalar(select(User).where(User.email == "kept@example.com"))
        assert importing(json.dumps(good), owner).ok  # and the next import goes in whole
        assert counts()["game_sessions"] == 1


@pytest.mark.parametrize("text, message", [
    ("", "the file is empty"),
    ("hello", "this is not a Tonk Tally export"),
    ('[{"format": "tonk-tally"}]', "this is not a Tonk Tally export"),
    ('{"format": "tonk-tally", "version": 1, "league": null, "sessions": [{"uid": ',
     "the file ends too soon, at line 1"),
    ('{"format": "tonk-tally", "version": 1, "league": null, "sessions": [] } extra',
     "there is more after the end of the document"),
    ('{"format": "tonk-tally", "version": 1, "league": null}', "the file has no list of "
     "sessions"),
    ('{"format": "tonk-tally", "version": 1, "league": null, "sessions": [1}',
     "not valid JSON at line 1"),
    ('{"format": "tonk-tally", "version": 1, "league": null, "sessions": [7]}',
     "session #1: a session must be a JSON object"),
    ('{"format": "tonk-tally", "version": 1, "league": "x", "sessions": []}',
     "the league must be a JSON object"),
])
def test_files_that_are_not_a_document(db_app, text, message):
    with db_app.app_context():
        owner = user()
        report = importing(text, owner)
        assert not report.ok and any(message in p for p in report.problems), report.problems
        assert counts()["game_sessions"] == 0


@pytest.mark.parametrize("data, message", [
    (b'{"format": "tonk-tally", "format": "tonk-tally", "version": 1}',
     "the file gives a key twice"),
    (b'{"format": "tonk-tally", "version": 1, "league": null, "sessions": [{"name": "\xff"}]}',
     "the file is not UTF-8 text"),
    (b'{"format": "tonk-tally", "version": 1, "league": null, "sessions": [' + b"[" * 100_000,
     "the file is nested too deeply to be an export"),
])
def test_bytes_that_are_not_a_document(db_app, data, message):
    """Checked while reading: a repeated key, bytes that are not UTF-8, and a nesting that
    would cost memory (refused at once, not after a hundred thousand levels)."""
    with db_app.app_context():
        report = exchange.import_file(io.BytesIO(data), user())
        assert not report.ok and any(message in p for p in report.problems), report.problems
        assert counts()["game_sessions"] == 0


def test_a_byte_order_mark_is_passed_over(db_app, good):
    with db_app.app_context():
        report = exchange.import_file(io.BytesIO(b"\xef\xbb\xbf" + json.dumps(good).encode()),
                                      user())
        assert report.ok, report.problems


def test_a_truncated_file_imports_nothing_even_after_whole_batches(db_app, good):
    """Sessions are written batch by batch inside one transaction: a file cut off after
    many of them leaves nothing behind."""
    doc = copy.deepcopy(good)
    base = doc["sessions"][0]
    doc["sessions"] = [dict(base, uid=f"{i:032x}") for i in range(12)]
    text = json.dumps(doc)
    cut = text[:text.rindex('{"uid"') + 40]
    with db_app.app_context():
        owner = user()
        report = importing(cut, owner, batch_hands=6)
        assert not report.ok and "cut off" in report.problems[-1]
        assert counts()["hands"] == 0 and counts()["game_sessions"] == 0
        assert importing(text, owner, batch_hands=6).ok
        assert counts()["game_sessions"] == 12


def test_every_problem_is_listed_not_only_the_first(db_app, good):
    doc = copy.deepcopy(good)
    second = dict(copy.deepcopy(doc["sessions"][0]), uid="b" * 32, name="Saturday")
    doc["sessions"].append(second)
    _count_too_high(doc)
    second["hands"][0]["versions"][0]["hand"]["counts"]["Dee"] = -1
    second["hands"][2]["versions"][0]["result"]["outcome"] = "dead"
    with db_app.app_context():
        owner = user()
        report = importing(json.dumps(doc), owner)
        assert len(report.problems) == 3, report.problems
        assert report.problems[0].startswith(f"session Friday ({good['sessions'][0]['uid']}), "
                                             "hand 1, version 1: Ann's count of 51")
        assert report.problems[1].startswith(f"session Saturday ({'b' * 32}), hand 1, "
                                             "version 1: Dee's count cannot be negative")
        assert report.problems[2].startswith(f"session Saturday ({'b' * 32}), hand 3, "
                                             "version 1: the stored result does not match")


def test_problems_are_capped_and_counted(db_app, good):
    doc = copy.deepcopy(good)
    base = doc["sessions"][0]
    _unknown_player(doc)
    doc["sessions"] = [dict(base, uid=f"{i:032x}") for i in range(130)]
    with db_app.app_context():
        report = importing(json.dumps(doc), user())
        assert len(report.problems) == exchange.MAX_PROBLEMS
        assert report.more_problems == 30
        assert report_lines(report)[0] == "Nothing was imported. There are 130 problems:"
        assert report_lines(report)[-1] == "… and 30 more"


def test_a_hand_written_result_may_leave_out_the_explanation(db_app, good):
    doc = copy.deepcopy(good)
    del _hand(doc, 1)["versions"][0]["result"]["explanation"]
    del _hand(doc, 3)["versions"][0]["result"]
    with db_app.app_context():
        assert importing(json.dumps(doc), user()).ok
        hand = db.session.scalar(select(Hand).where(Hand.number == 1))
        assert hand is not None
        assert hand.result == _hand(good, 1)["versions"][0]["result"]


# -- CSV -------------------------------------------------------------------------------------

def test_csv_has_one_row_per_hand_and_per_payment(db_app):
    with db_app.app_context():
        owner = user()
        league = play_league(owner, owner)
        ids = exchange.league_session_ids(league)
        hands = list(csv.DictReader(io.StringIO(document(exchange.hands_csv(ids)))))
        assert len(hands) == 8
        friday = [r for r in hands if r["session"] == "Friday"]
        assert [r["hand"] for r in friday] == ["1", "2", "3", "4", "5"]
        assert [r["voided"] for r in friday] == ["no", "yes", "no", "no", "no"]
        assert friday[0]["outcome"] == "run_out" and friday[0]["winners"] == "Cy"
        assert (friday[0]["Ann"], friday[0]["Cy"], friday[0]["Eve"]) == ("-0.25", "0.75", "")
        assert friday[1]["Ann"] == "0.00"  # void: counts nothing
        assert friday[3]["multiplier"] == "2" and friday[3]["Bob"] == "6.00"
        saturday = [r for r in hands if r["session"] == "Saturday"]
        assert saturday[0]["scoring"] == "push_ups" and saturday[0]["Ann"] == "30"
        assert "Zoe" not in hands[0]  # a member who never sat: no column
        for row in hands:
            nets = [Decimal(row[p]) for p in ("Ann", "Bob", "Cy", "Dee", "Eve") if row[p]]
            if row["scoring"] == "money":
                assert sum(nets) == 0

        payments = list(csv.DictReader(io.StringIO(document(exchange.payments_csv(ids)))))
        expected = sum(len(h.result["payments"]) for h in db.session.scalars(
            select(Hand).where(Hand.voided.is_(False))))
        assert len(payments) == expected > 0
        first = [(p["from"], p["to"], p["amount"], p["rule"]) for p in payments
                 if (p["session"], p["hand"]) == ("Friday", "1")]
        assert sorted(first) == [(who, "Cy", "0.25", "run out pays single")
                                 for who in ("Ann", "Bob", "Dee")]
        assert not [p for p in payments if (p["session"], p["hand"]) == ("Friday", "2")]


def test_csv_cells_never_start_a_formula(db_app):
    with db_app.app_context():
        owner = user()
        gs = ledger.create_session(owner, name="=HYPERLINK(1)", players=["+Ann", "Bob"])
        ledger.record_hand(gs, owner, {"end": {"kind": "run_out", "player": "+Ann"}})
        text = document(exchange.hands_csv([gs.id]))
        rows = list(csv.reader(io.StringIO(text)))
        assert rows[0][-2:] == ["'+Ann", "Bob"]
        assert rows[1][0] == "'=HYPERLINK(1)" and rows[1][6] == "'+Ann"


def test_a_yen_table_is_exported_in_whole_yen_and_comes_back(tmp_path):
    """A yen session's stake, totals, pots, payments and nets are written as whole yen in the
    JSON and CSV exports, as the pages and the API write them ("500", not "500.00"), and the
    document imports back the same."""
    source = make_app(f"sqlite:///{tmp_path / 'a.sqlite'}")
    with source.app_context():
        db.create_all()
        owner = user()
        gs = ledger.create_session(owner, name="Tokyo", players=["Ann", "Bob", "Cy"],
                                   stake="500", currency="JPY")
        ledger.record_hand(gs, owner, {"end": {"kind": "tonk_out", "player": "Ann"}})
        ledger.record_payment(gs, owner, "Bob", "Ann", "400")
        doc = json.loads(document(exchange.export_session(gs)))
        night = doc["sessions"][0]
        assert night["stake"] == "500" and night["totals"]["Ann"] == "2000"
        assert night["payments"][0]["amount"] == "400"
        hands = list(csv.DictReader(io.StringIO(document(exchange.hands_csv([gs.id])))))
        assert (hands[0]["Ann"], hands[0]["Bob"]) == ("2000", "-1000")
        paid = list(csv.DictReader(io.StringIO(document(exchange.payments_csv([gs.id])))))
        assert {p["amount"] for p in paid} == {"1000"}
        people = list(csv.DictReader(io.StringIO(document(exchange.players_csv([gs.id])))))
        assert people[1]["net"] == "-1000" and "Ann 1000:" in people[1]["paid"]
        path = tmp_path / "tokyo.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        before = snapshot()
        db.session.remove()
    target = make_app(f"sqlite:///{tmp_path / 'b.sqlite'}")
    with target.app_context():
        db.create_all()
        report = exchange.import_path(str(path), user(), jobs=1)
        assert report.ok, report.problems
        assert snapshot() == before


# -- in other processes ----------------------------------------------------------------------

def test_checking_in_another_process_gives_the_same(tmp_path):
    """import_path with a checking process (SQLite only: it is the same code)."""
    source = make_app(f"sqlite:///{tmp_path / 'a.sqlite'}")
    with source.app_context():
        db.create_all()
        owner = user()
        league = play_league(owner, owner)
        path = tmp_path / "league.json"
        with open(path, "w", encoding="utf-8") as f:
            exchange.write_document(exchange.export_league(league), f)
        before = snapshot()
        db.session.remove()
    target = make_app(f"sqlite:///{tmp_path / 'b.sqlite'}")
    with target.app_context():
        db.create_all()
        owner = user()
        report = exchange.import_path(str(path), owner, jobs=1)
        assert report.ok, report.problems
        assert snapshot() == before
        again = exchange.import_path(str(path), owner, jobs=1)
        assert again.ok and len(again.skipped) == 3
        (tmp_path / "cut.json").write_text(path.read_text()[:-300])
        cut = exchange.import_path(str(tmp_path / "cut.json"), owner, jobs=1)
        assert not cut.ok and "cut off" in cut.problems[0]


def test_other_layouts_are_checked_elsewhere_the_same(tmp_path):
    """An export has its sessions one a line, and the checking processes read only their own
    lines; a document laid out otherwise (indented, a line broken, a key given twice) is
    read the general way and imports, or is refused, as it is in one process."""
    source = make_app(f"sqlite:///{tmp_path / 'a.sqlite'}")
    with source.app_context():
        db.create_all()
        owner = user()
        league = play_league(owner, owner)
        exported = "".join(exchange.export_league(league))
        before = snapshot()
        db.session.remove()
    lines = exported.splitlines(keepends=True)
    assert lines[1] == '"sessions": [\n' and lines[-1] == "]}\n" and len(lines) == 6
    doc = json.loads(exported)
    twice = lines[3].replace('"number": 1,', '"number": 1, "number": 1,', 1)
    layouts = {"indented": json.dumps(doc, indent=1),
               "a session on two lines": exported.replace('"hands": [', '"hands":\n[', 1),
               "one line": json.dumps(doc),
               "a trailing comma": "".join(lines[:4]) + lines[4].rstrip() + ",\n]}\n",
               "a key twice": "".join([*lines[:3], twice, *lines[4:]])}
    for number, (name, text) in enumerate(layouts.items()):
        path = tmp_path / f"league{number}.json"
        path.write_text(text, encoding="utf-8")
        reports = []
        for jobs in (0, 2):
            target = make_app(f"sqlite:///{tmp_path / f'{number}-{jobs}.sqlite'}")
            with target.app_context():
                db.create_all()
                report = exchange.import_path(str(path), user(), jobs=jobs)
                reports.append((report.ok, report.problems))
                assert not report.ok or snapshot() == before, name
                db.session.remove()
        assert reports[0] == reports[1], name
        alone = reports[0]
    assert not alone[0] and "given twice" in alone[1][0]


# -- pages -----------------------------------------------------------------------------------

def signed_in(app, who: User):
    """A client signed in as ``who`` (a sign-in of its own, as the sign-in page makes), by
    Flask-Login's test client."""
    with app.app_context():
        with unit_of_work():
            signed = accounts.start_sign_in(fetched(User, who.id))
        return FlaskLoginClient(app, app.response_class, use_cookies=True, user=signed)


def test_export_downloads_only_for_whoever_runs_it(db_app):
    with db_app.app_context():
        owner, other = user(), user("other@example.com", "Other")
        league = play_league(owner, owner)
        gs = db.session.scalar(select(GameSession).where(GameSession.name == "Friday"))
        assert gs is not None
        league_id, session_id, token = league.id, gs.id, gs.share_token
        mine, theirs = signed_in(db_app, owner), signed_in(db_app, other)
    for url in (f"/leagues/{league_id}/export.json", f"/leagues/{league_id}/hands.csv",
                f"/leagues/{league_id}/payments.csv", f"/sessions/{session_id}/export.json",
                f"/sessions/{session_id}/hands.csv", f"/sessions/{session_id}/payments.csv"):
        resp = mine.get(url)
        assert resp.status_code == 200, url
        assert "attachment" in resp.headers["Content-Disposition"]
        assert resp.get_data(as_text=True)
        assert theirs.get(url).status_code == 404, url
        assert db_app.test_client().get(url).status_code in (302, 401)
    doc = json.loads(mine.get(f"/leagues/{league_id}/export.json").get_data(as_text=True))
    assert len(doc["sessions"]) == 3
    assert mine.get("/leagues/999999/export.json").status_code == 404
    page = mine.get(f"/sessions/{session_id}").get_data(as_text=True)
    assert f"/sessions/{session_id}/export.json" in page
    assert f"/leagues/{league_id}/export.json" in mine.get(
        f"/leagues/{league_id}").get_data(as_text=True)
    shared = db_app.test_client().get(f"/s/{token}").get_data(as_text=True)
    assert "export.json" not in shared


def upload(client, doc: Any, name: str = "friday.json"):
    data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return client.post("/import", data={"file": (io.BytesIO(data), name)},
                       content_type="multipart/form-data")


def hands_here(app) -> int:
    with app.app_context():
        return counts()["hands"]


def test_the_import_page_imports_and_reports(db_app, good):
    with db_app.app_context():
        client = signed_in(db_app, user())
    assert client.get("/import").status_code == 200
    resp = upload(client, good)
    assert resp.status_code == 200 and "Imported 1 session" in resp.get_data(as_text=True)
    assert hands_here(db_app) == 3
    assert "already here" in upload(client, good).get_data(as_text=True)

    broken = copy.deepcopy(good)
    broken["sessions"][0]["uid"] = "c" * 32
    _count_too_high(broken)
    resp = upload(client, broken, "broken.json")
    page = resp.get_data(as_text=True)
    assert resp.status_code == 422 and "Nothing was imported" in page
    assert "is more than five cards can hold" in page
    assert hands_here(db_app) == 3
    resp = upload(client, b"x", "notes.txt")
    assert resp.status_code == 422 and ".json" in resp.get_data(as_text=True)


REFUSED_IN = {  # the page's language: a refused document, and a hand the core refuses
    "de": ("dieser Export hat Version 99 des Formats; diese App liest die Versionen 1 bis 2",
           "Spielabend Friday ({uid}), Hand 1, Version 1: die Punktzahl 51 von Ann ist mehr, "
           "als fünf Karten ergeben können"),
    "ja": ("このエクスポートは形式のバージョン99です。"
           "このアプリが読めるのはバージョン1から2までです",
           "セッションFriday（{uid}）、ハンド1、第1版：Annのカウント51は5枚のカードで可能な値を"
           "超えています"),
}


@pytest.mark.parametrize("lang", sorted(REFUSED_IN))
def test_the_import_page_says_what_is_wrong_in_its_language(db_app, good, lang):
    """The problems of an import are said in the page's language, the session, hand and
    version they are in too (a hand is checked in English, as it is stored)."""
    with db_app.app_context():
        client = signed_in(db_app, user())
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = lang
    newer, broken = dict(copy.deepcopy(good), version=99), copy.deepcopy(good)
    _count_too_high(broken)
    version, hand = REFUSED_IN[lang]
    resp = upload(client, newer)
    assert resp.status_code == 422 and version in unphrased(resp.get_data(as_text=True))
    resp = upload(client, broken)
    page = unphrased(resp.get_data(as_text=True))
    assert resp.status_code == 422 and hand.format(uid=good["sessions"][0]["uid"]) in page
    assert hands_here(db_app) == 0


def test_the_import_form_needs_its_csrf_token(tmp_path, good):
    app = make_app(f"sqlite:///{tmp_path / 'csrf.sqlite'}", WTF_CSRF_ENABLED=True)
    with app.app_context():
        db.create_all()
        client = signed_in(app, user())
    resp = upload(client, good)
    assert resp.status_code == 422 and hands_here(app) == 0
    page = client.get("/import").get_data(as_text=True)
    token = page.split('name="csrf_token" type="hidden" value="')[1].split('"')[0]
    body = {"file": (io.BytesIO(json.dumps(good).encode()), "friday.json"),
            "csrf_token": token}
    resp = client.post("/import", data=body, content_type="multipart/form-data")
    assert resp.status_code == 200 and hands_here(app) == 3


# -- the command line ------------------------------------------------------------------------

def test_tonk_export_and_import(db_app, tmp_path):
    from app.cli.commands import cli

    with db_app.app_context():
        owner = user()
        league = play_league(owner, owner)
        league_id = league.id
        session_id = db.session.scalar(select(GameSession.id).where(
            GameSession.name == "Friday"))
        before = snapshot()
    runner = db_app.test_cli_runner()
    path = tmp_path / "league.json"
    out = runner.invoke(cli, ["export", "--league", str(league_id), "-o", str(path)])
    assert out.exit_code == 0, out.output
    out = runner.invoke(cli, ["export", "--session", str(session_id), "--format", "hands-csv"])
    assert out.exit_code == 0 and out.output.count("\n") == 1 + 5
    assert runner.invoke(cli, ["export", "--league", "999"]).exit_code != 0
    assert runner.invoke(cli, ["export"]).exit_code != 0
    with db_app.app_context():
        wipe(db_app)
        user("new@example.com", "New")
    out = runner.invoke(cli, ["import", str(path), "--owner", "new@example.com",
                              "--jobs", "0"])
    assert out.exit_code == 0 and "Imported 3 sessions · 8 hands" in out.output
    with db_app.app_context():
        assert snapshot() == before
    out = runner.invoke(cli, ["import", str(path), "--owner", "new@example.com",
                              "--jobs", "0"])
    assert out.exit_code == 0 and "3 sessions were already here and are skipped" in out.output
    path.write_text(path.read_text()[:500])
    out = runner.invoke(cli, ["import", str(path), "--owner", "new@example.com",
                              "--jobs", "0"])
    assert out.exit_code == 1 and "cut off" in out.output
    out = runner.invoke(cli, ["import", str(path), "--owner", "nobody@example.com"])
    assert out.exit_code != 0 and "no account" in out.output


def test_a_version_1_document_is_still_read(db_app):
    """Version 1 has no undone payments, carried debts or archive: it reads as before, and
    the settle-up plan of an open session is made from what remains."""
    with db_app.app_context():
        owner, helper = user(), user("helper@example.com", "Helper")
        doc = json.loads(document(exchange.export_league(play_league(owner, helper))))
        doc["version"] = 1
        for s in doc["sessions"]:
            s.pop("archived_at"), s.pop("carried_debts")
            s["payments"] = [p for p in s["payments"] if "undone_at" not in p]
            s["closed_at"] = None  # what Friday carried over is open again
        wipe(db_app)
        report = importing(json.dumps(doc), user("new@example.com", "Newcomer"))
        assert report.ok, report.problems
        friday = db.session.scalar(select(GameSession).where(GameSession.name == "Friday"))
        assert friday is not None
        assert len(ledger.ledger_of(friday).transfers) == 1 and friday.voided_hands == 1
        assert db.session.scalar(select(func.count()).select_from(CarriedDebt)) == 0


# -- imports that quote what they cannot take ----------------------------------------------

def _doc(stake: str = '"0.25"', name: str = "Friday") -> bytes:
    return ('{"format": "tonk-tally", "version": 2, "league": null, "sessions": [{"uid": "a",'
            f' "name": "{name}", "currency": "USD", "stake": {stake}, "rules": "pagat",'
            ' "players": ["Ann", "Bob"], "hands": []}]}').encode()


def test_a_million_digit_stake_is_a_problem_of_the_import_not_a_500(app, tmp_path):
    from app.cli.commands import cli

    client = app.test_client()
    sign_up(client)
    resp = client.post("/import", data={"file": (io.BytesIO(_doc("9" * 1_000_000)),
                                                 "big.json")},
                       content_type="multipart/form-data")
    assert resp.status_code == 422
    assert "a number too long to be read" in resp.get_data(as_text=True)
    path = tmp_path / "big.json"
    path.write_bytes(_doc("9" * 1_000_000))
    at = _doc().index(b'{"uid"') + 1  # the session that holds it
    for jobs in ("0", "1"):
        out = app.test_cli_runner().invoke(cli, ["import", str(path), "--owner",
                                                 "sam@example.com", "--jobs", jobs])
        assert out.exit_code == 1, out.output
        assert out.stderr.splitlines() == [
            "Nothing was imported. There is 1 problem:",
            f"the file has a number too long to be read near line 1 (character {at})"]


def test_the_import_report_names_a_huge_name_without_repeating_it(app, tmp_path):
    from app.cli.commands import cli

    client = app.test_client()
    sign_up(client)
    huge = "N" * 1_500_000
    resp = client.post("/import", data={"file": (io.BytesIO(_doc(name=huge)), "n.json")},
                       content_type="multipart/form-data")
    assert resp.status_code == 422 and len(resp.get_data()) < 60_000
    assert "NNNN…" in resp.get_data(as_text=True)
    path = tmp_path / "n.json"
    path.write_bytes(_doc(stake='"' + "1" * 3_000_000 + '"', name=huge))
    out = app.test_cli_runner().invoke(cli, ["import", str(path), "--owner",
                                             "sam@example.com", "--jobs", "0"])
    assert out.exit_code == 1 and len(out.stderr) < 2_000, out.stderr[:300]


def _refused(app, *texts: str) -> list[str]:
    """What imports of ``texts`` say is wrong (they import nothing)."""
    said: list[str] = []
    with app.app_context():
        owner = user()
        rows = counts()
        for text in texts:
            report = importing(text, owner)
            assert not report.ok and (report.sessions, report.hands) == (0, 0)
            assert counts() == rows
            said += report.problems
    return said


@pytest.mark.parametrize("version", [2.0, True, "2"])
def test_an_exports_version_is_a_whole_number(db_app, good, version):
    """``"version": 2.0`` was read as version 2."""
    doc = copy.deepcopy(good)
    doc["version"] = version
    said = _refused(db_app, json.dumps(doc))
    assert any(f"this export is version {as_sent(version)} of the format" in p for p in said), said


def test_an_unknown_field_is_refused_by_name_before_its_value_is_read(db_app, good):
    """An unknown top-level key was passed over, however long its value (50 MB took the
    time and memory of reading it): it is refused, named, as soon as its name is read."""
    doc = {"format": good["format"], "version": good["version"], "league": None,
           "notes": "x" * 10, "sessions": good["sessions"]}
    text = json.dumps(doc)
    long = text.replace('"x' + "x" * 9 + '"', '"' + "x" * 20_000_000)  # cut off: never read
    said = _refused(db_app, text, long)
    assert said == ['the file has a field "notes" at line 1 (character 56) that an export does '
                    'not have (it has format, version, league and sessions)'] * 2, said


@pytest.mark.parametrize("inside", ["\n", "\t"])
def test_a_player_name_on_two_lines_is_refused_with_a_sentence_about_the_name(db_app, good,
                                                                             inside):
    """A name with a line break or a tab was folded into another name than the rest of the
    file gives, and refused for the settle-up plan."""
    doc = copy.deepcopy(good)
    text = json.dumps(doc).replace('"Ann"', json.dumps(f"Ann{inside}Lee"))
    said = _refused(db_app, text)
    assert any("player 1's name must be one line, without line breaks or tabs "
               f"(U+{ord(inside):04X})" in p for p in said), said
    assert not any("plan" in p for p in said), said
