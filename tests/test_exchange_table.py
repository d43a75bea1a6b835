"""Export and import of a night whose table changed (format version 2): players who joined
and left, side bets with a pot carried over and one still waiting, a correction and a void;
exported, imported into an empty database, it comes back exactly, and exports again the
same; version 1 files are still read; a side bet that breaks the rules is refused."""
from __future__ import annotations

import json
from decimal import Decimal

from sqlalchemy import select

from app.db.models import GameSession, Hand, SessionPlayer
from app.extensions import db
from app.services import exchange
from app.services.sessions import ledger, seats
from tests.played_league import document, importing, snapshot, user, wipe

DEAD = {"end": {"kind": "dead"}}


def night(owner):
    gs = ledger.create_session(owner, name="Friday", players=["Ann", "Bob", "Cy", "Dee"],
                               stake="0.25", first_dealer="Dee",
                               side_bets={"naturals": {"stake": "0.10"},
                                          "high_card": {"unclaimed": "return"}})
    ledger.record_hand(gs, owner, {**DEAD, "side_bets": [{"bet": "naturals"}]})
    seats.change_seats(gs, owner, join="Fay")
    ledger.record_hand(gs, owner, {"end": {"kind": "tonk_out", "player": "Fay"},
                                   "side_bets": [{"bet": "naturals", "winner": None},
                                                 {"bet": "high_card", "suit": "H",
                                                  "winner": None}]})
    seats.change_seats(gs, owner, leave="Bob")
    ledger.record_hand(gs, owner, {**DEAD, "side_bets": [{"bet": "naturals",
                                                          "winner": "Cy"}]})
    ledger.record_hand(gs, owner, {**DEAD, "side_bets": [
        {"bet": "naturals", "players": ["Ann", "Dee"]},
        {"bet": "high_card", "suit": "S", "players": ["Ann", "Fay"], "winner": "Fay"}]})
    ledger.correct_hand(gs, owner, 1, {**DEAD, "side_bets": [{"bet": "naturals",
                                                               "winner": "Ann"}]}, "Ann had it")
    ledger.void_hand(gs, owner, 2, "misdeal")
    seats.change_seats(gs, owner, join="Bob", after="Cy")
    return gs


def table_rows():
    return {"seats": sorted((s.name, s.seat, s.position, s.left_at is None, s.total_minor)
                            for s in db.session.scalars(select(SessionPlayer))),
            "sides": sorted((h.number, h.side_nets_json, h.side_result_json)
                            for h in db.session.scalars(select(Hand))),
            "pots": [(gs.side_bets_json, gs.pots_json)
                     for gs in db.session.scalars(select(GameSession))]}


def comes_back(db_app, text, before, rows):
    """``text`` imported into an empty database by a newcomer gives back the rows
    ``before`` (:func:`snapshot`) and ``rows`` (:func:`table_rows`) exactly."""
    wipe(db_app)
    report = importing(text, user("new@example.com", "Newcomer"))
    assert report.ok, report.problems
    after = snapshot()
    for key in before:
        assert after[key] == before[key], key
    assert table_rows() == rows


def test_a_night_with_seats_and_side_bets_comes_back_exactly(db_app):
    with db_app.app_context():
        owner = user()
        gs = night(owner)
        state = ledger.ledger_of(gs)
        assert state.pots == {"naturals": Decimal("0.20"), "high_card": 0}
        before, rows = snapshot(), table_rows()
        text = document(exchange.export_session(gs))
        doc = json.loads(text)["sessions"][0]
        assert doc["players"] == ["Ann", "Bob", "Cy", "Dee", "Fay"]
        assert doc["seated"] == ["Ann", "Cy", "Bob", "Dee", "Fay"] and doc["left"] == {}
        assert doc["pots"] == {"naturals": "0.20", "high_card": "0.00"}
        # the money as the page shows it: hands + side bets + pots back = total
        assert doc["money"] == {name: {k: str(v) for k, v in (
            ("hands", m.hands), ("side_bets", m.side_bets), ("pots_back", m.pots_back),
            ("total", m.total))} for name, m in state.money.items()}
        assert any(m["pots_back"] != "0.00" for m in doc["money"].values())
        for name, m in doc["money"].items():
            parts = Decimal(m["hands"]) + Decimal(m["side_bets"]) + Decimal(m["pots_back"])
            assert parts == Decimal(m["total"])
            # each total as every page and the API show it (a newcomer read the file's
            # hands + side bets as totals that disagreed with every screen)
            assert Decimal(doc["totals"][name]) == parts
        comes_back(db_app, text, before, rows)
        again = db.session.scalar(select(GameSession))
        assert again is not None
        assert document(exchange.export_session(again)) == text
        # a file exported before its totals held what the pots give back is read as it
        # was written: its totals are the hands' and the side bets'
        older = json.loads(text)
        older["sessions"][0]["totals"] = {name: str(Decimal(m["total"]) - Decimal(
            m["pots_back"])) for name, m in doc["money"].items()}
        del older["sessions"][0]["money"]
        wipe(db_app)
        report = importing(json.dumps(older), user("old@example.com", "Old file"))
        assert report.ok, report.problems
        assert table_rows() == rows


def test_a_night_whose_high_card_suit_is_fixed_comes_back(db_app):
    """A hand stores the suit its table fixes with its high-card bet, which a hand may not
    send (docs/rules.md §9): the import reads a file's hands as sent, without it."""
    with db_app.app_context():
        owner = user()
        gs = ledger.create_session(owner, name="Spades", players=["Ann", "Bob", "Cy"],
                                   stake="0.25", side_bets={"high_card": {"suit": "S"}})
        ledger.record_hand(gs, owner, {**DEAD, "side_bets": [{"bet": "high_card"}]})
        ledger.record_hand(gs, owner, {**DEAD, "side_bets": [{"bet": "high_card",
                                                              "winner": "Bob"}]})
        ledger.correct_hand(gs, owner, 1, {**DEAD, "side_bets": [{"bet": "high_card",
                                                                   "winner": "Cy"}]}, "Cy")
        before, rows = snapshot(), table_rows()
        text = document(exchange.export_session(gs))
        assert '"suit": "S"' in text or '"suit":"S"' in text  # (as stored)
        comes_back(db_app, text, before, rows)


def test_who_left_stays_left_after_an_import(db_app):
    with db_app.app_context():
        owner = user()
        gs = ledger.create_session(owner, name="Short", players=["Ann", "Bob", "Cy"])
        ledger.record_hand(gs, owner, {"end": {"kind": "tonk_out", "player": "Bob"}})
        seats.change_seats(gs, owner, leave="Bob")
        text = document(exchange.export_session(gs))
        assert list(json.loads(text)["sessions"][0]["left"]) == ["Bob"]
        wipe(db_app)
        assert importing(text, user("new@example.com", "Newcomer")).ok
        imported = db.session.scalar(select(GameSession))
        assert imported is not None
        assert ledger.seated_names(imported) == ("Ann", "Cy")
        assert document(exchange.export_session(imported)) == text


def test_without_next_dealer_an_import_deals_as_the_ledger_did(db_app):
    """The import folds the night with the core: the dealer after the last hand left, so
    the deal passed on to who sits next, never to the leaver."""
    with db_app.app_context():
        owner = user()
        gs = ledger.create_session(owner, name="Short", players=["Ann", "Bob", "Cy"])
        ledger.record_hand(gs, owner, {"end": {"kind": "tonk_out", "player": "Cy"}})
        seats.change_seats(gs, owner, leave="Bob")  # Bob was to deal next
        assert gs.dealer == "Cy"
        doc = json.loads(document(exchange.export_session(gs)))
        del doc["sessions"][0]["next_dealer"]
        wipe(db_app)
        assert importing(json.dumps(doc), user("new@example.com", "Newcomer")).ok
        imported = db.session.scalar(select(GameSession))
        assert imported is not None and imported.dealer == "Cy"


def test_who_sat_down_again_elsewhere_deals_in_turn_after_an_import(db_app):
    """Ann leaves and sits down again after Cy: the next hand is played at that table, and an
    import without next_dealer passes the deal round it (Cy dealt: Ann, not Dee)."""
    with db_app.app_context():
        owner = user()
        gs = ledger.create_session(owner, name="Moved", players=["Ann", "Bob", "Cy", "Dee"])
        ledger.record_hand(gs, owner, DEAD)
        seats.change_seats(gs, owner, leave="Ann")
        seats.change_seats(gs, owner, join="Ann", after="Cy")
        ledger.record_hand(gs, owner, {**DEAD, "dealer": "Cy"})
        assert ledger.seated_names(gs) == ("Bob", "Cy", "Ann", "Dee") and gs.dealer == "Ann"
        doc = json.loads(document(exchange.export_session(gs)))
        del doc["sessions"][0]["next_dealer"]
        wipe(db_app)
        report = importing(json.dumps(doc), user("new@example.com", "Newcomer"))
        assert report.ok, report.problems
        imported = db.session.scalar(select(GameSession))
        assert imported is not None and imported.dealer == "Ann"


def test_a_next_dealer_who_left_and_sat_down_again_deals_in_turn_after_an_import(db_app):
    """Dee deals, Ann (due next) leaves and sits down again at once, at her old seat: the deal
    has passed to Bob. The export carries the seat changes; an import without next_dealer
    deals Bob, keeps the changes, and ``tonk check`` finds the imported night sound (the
    hands' players alone could not tell the leave)."""
    from app.db.models import SeatChange
    from app.services.upkeep import problems

    with db_app.app_context():
        owner = user()
        gs = ledger.create_session(owner, name="Back", players=["Ann", "Bob", "Cy", "Dee"],
                                   first_dealer="Dee")
        ledger.record_hand(gs, owner, DEAD)
        seats.change_seats(gs, owner, leave="Ann")
        seats.change_seats(gs, owner, join="Ann")
        assert gs.dealer == "Bob"
        text = document(exchange.export_session(gs))
        doc = json.loads(text)
        assert [(c["hands"], c["kind"], c["player"], c.get("after"))
                for c in doc["sessions"][0]["seat_changes"]] == [
            (1, "left", "Ann", None), (1, "joined", "Ann", "Dee")]
        del doc["sessions"][0]["next_dealer"]
        wipe(db_app)
        report = importing(json.dumps(doc), user("new@example.com", "Newcomer"))
        assert report.ok, report.problems
        imported = db.session.scalar(select(GameSession))
        assert imported is not None and imported.dealer == "Bob"
        assert len(db.session.scalars(select(SeatChange)).all()) == 2
        assert problems() == []
        doc["sessions"][0]["seat_changes"][1]["after"] = "Zed"
        wipe(db_app)
        report = importing(json.dumps(doc), user("new@example.com", "Newcomer"))
        assert not report.ok and "seat change 2" in str(report.problems)


def test_a_version_1_file_is_still_read(db_app):
    with db_app.app_context():
        owner = user()
        gs = ledger.create_session(owner, name="Old", players=["Ann", "Bob"])
        ledger.record_hand(gs, owner, {"end": {"kind": "tonk_out", "player": "Bob"}})
        doc = json.loads(document(exchange.export_session(gs)))
        doc["version"] = 1
        for key in ("seated", "left", "side_bets", "pots"):
            del doc["sessions"][0][key]
        wipe(db_app)
        report = importing(json.dumps(doc), user("new@example.com", "Newcomer"))
        assert report.ok, report.problems
        imported = db.session.scalar(select(GameSession))
        assert imported is not None
        assert ledger.seated_names(imported) == ("Ann", "Bob") and imported.side_bets_json is None


def test_a_side_bet_against_the_rules_is_refused(db_app):
    with db_app.app_context():
        owner = user()
        gs = ledger.create_session(owner, name="Bad", players=["Ann", "Bob"],
                                   side_bets={"naturals": {}})
        ledger.record_hand(gs, owner, {**DEAD, "side_bets": [{"bet": "naturals"}]})
        doc = json.loads(document(exchange.export_session(gs)))
        doc["sessions"][0]["hands"][0]["versions"][0]["hand"]["side_bets"][0]["winner"] = "Zed"
        wipe(db_app)
        report = importing(json.dumps(doc), user("new@example.com", "Newcomer"))
        assert not report.ok and "Zed" in " ".join(report.problems)


def test_the_hands_csv_leaves_blank_who_was_not_at_the_table(db_app):
    with db_app.app_context():
        owner = user()
        gs = ledger.create_session(owner, name="Csv", players=["Ann", "Bob"])
        ledger.record_hand(gs, owner, {"end": {"kind": "tonk_out", "player": "Bob"}})
        seats.change_seats(gs, owner, join="Cy")
        ledger.record_hand(gs, owner, {"end": {"kind": "tonk_out", "player": "Cy"}})
        rows = "".join(exchange.hands_csv([gs.id])).splitlines()
        assert rows[1].endswith(",-2.00,2.00,") and rows[2].endswith(",-2.00,-2.00,4.00")
