"""Inputs a stranger or a careless user sends: names (NFC, no invisible or broken
characters, one key for lookalikes), amounts (ASCII digits, at most the currency's
places), JSON that repeats a key or breaks, CSV cells, and days out of range."""
from __future__ import annotations

import csv
import io
import json
import unicodedata
from datetime import date

import pytest
from sqlalchemy import select, text

from app.core import HandError, TonkError, parse_hand
from app.core.hand import parse_players
from app.core.money import DuplicateKeyError, loads
from app.core.names import clean_text, name_key
from app.core.transfers import TransferError, parse_balances
from app.db.models import Player, Season
from app.extensions import db
from app.services import accounts, exchange, leagues
from app.services.sessions import ledger
from tests.apps import migrated_to

NFD_ZOE = unicodedata.normalize("NFD", "Zoë")
assert NFD_ZOE != "Zoë"



# -- names -----------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, words", [
    ("Ann\u200b", "invisible"),            # zero-width space
    ("\u202eAnn", "invisible"),            # right-to-left override
    ("An\u00adn", "invisible"),            # soft hyphen
    ("Ann\ud800", "broken"),               # a lone surrogate
    ("Ann\x00", "control"),
    ("\x1b[31mAnn", "control"),
    ("\ue000", "private-use"),
    (" \u3000 ", "empty"),                 # only spaces (an ideographic one too)
])
def test_names_refuse_what_no_typed_name_needs(raw, words):
    with pytest.raises(HandError) as caught:
        clean_text(raw, HandError, "players[0]", "player 1's name", 40)
    assert words in caught.value.message and caught.value.field == "players[0]"


@pytest.mark.parametrize("raw, words", [
    (5, "player 1's name must be text, not 5"),
    (True, "must be text, not true"),
    (["Ann"], 'must be text, not ["Ann"]'),
    ({"name": "Ann"}, 'must be text, not {"name": "Ann"}'),
    (None, "player 1's name cannot be empty"),
])
def test_text_that_is_not_text_is_said_so_not_empty(raw, words):
    """A number where a name is wanted was refused as "cannot be empty"."""
    with pytest.raises(HandError) as caught:
        clean_text(raw, HandError, "players[0]", "player 1's name", 40)
    assert words in caught.value.message and caught.value.field == "players[0]"


@pytest.mark.parametrize("name", ["\u0645\u06cc\u200c\u0631\u0632\u0627",  # Persian ZWNJ
                                  "\U0001f468\u200d\U0001f469"])  # an emoji sequence
def test_joiners_between_visible_characters_are_kept_but_do_not_count(name):
    assert clean_text(name, HandError, "f", "name", 40) == name
    assert name_key(name) == name_key(name.replace("\u200c", "").replace("\u200d", ""))
    for stray in ("\u200d" + name, name + "\u200c", "Ann \u200d Lee"):
        with pytest.raises(HandError):
            clean_text(stray, HandError, "f", "name", 40)


def test_names_are_nfc_and_lookalikes_share_a_key():
    assert clean_text(NFD_ZOE, HandError, "f", "name", 40) == "Zoë"
    assert clean_text("  Ann \u3000  Lee \n", HandError, "f", "name", 40) == "Ann Lee"
    assert name_key(NFD_ZOE) == name_key("ZOË") == name_key(" zoë ") == "zoë"
    assert name_key("Straße") == name_key("STRASSE")
    assert name_key("Élise") == name_key("élise") != name_key("Elise")


@pytest.mark.parametrize("players", [["Zoë", NFD_ZOE], ["Ágata", "ágata"], ["Ann", "ANN"]])
def test_lookalike_names_cannot_sit_twice(players):
    with pytest.raises(HandError) as caught:
        parse_players(players)
    assert "twice" in caught.value.message and caught.value.field == "players[1]"


def test_a_count_given_twice_under_two_spellings_is_refused():
    hand = {"players": ["Ann", "Bob"], "end": {"kind": "drop", "player": "Bob"}}
    for counts in ({"Ann": 40, " Ann": 2, "Bob": 5}, {"Ann": 40, "ann": 2, "Bob": 5}):
        with pytest.raises(HandError) as caught:
            parse_hand({**hand, "counts": counts})
        assert caught.value.field == "counts.Ann" and "twice" in caught.value.message
    zoe = parse_hand({"players": ["Zoë", "Bob"], "end": {"kind": "run_out", "player": NFD_ZOE}})
    assert zoe.end.player == "Zoë"


def test_the_api_refuses_lookalikes_and_broken_names(client):
    hand = {"players": ["Ann", "Ann\u200b"], "end": {"kind": "dead"}}
    resp = client.post("/api/v1/settle", json=hand)
    assert resp.status_code == 422 and resp.get_json()["field"] == "players[1]"
    raw = '{"players": ["Ann", "\\ud800"], "end": {"kind": "dead"}}'
    resp = client.post("/api/v1/settle", data=raw, content_type="application/json")
    assert resp.status_code == 422 and resp.get_json()["field"] == "players[1]"
    resp = client.post("/api/v1/transfers", json={"balances": {"Zoë": "1", NFD_ZOE: "-1"}})
    assert resp.status_code == 422 and "two balances" in resp.get_json()["error"]


def test_a_name_with_letters_beyond_ascii_is_found_again(db_app):
    """SQLite's lower() folds ASCII only: the key is computed in Python."""
    with db_app.app_context():
        owner = accounts.create_user("k@example.com", "K", "a long table secret")
        first = ledger.create_session(owner, name="One", players=["Élise", "Bob"])
        second = ledger.create_session(owner, name="Two", players=["ÉLISE", NFD_ZOE])
        third = ledger.create_session(owner, name="Three", players=["zoë", "élise"])
        ids = [[s.player_id for s in gs.seats] for gs in (first, second, third)]
        assert ids[1][0] == ids[0][0] == ids[2][1] and ids[1][1] == ids[2][0]
        assert db.session.scalar(select(db.func.count()).select_from(Player)) == 3
        league = leagues.create_league(owner, name="Fridays")
        leagues.add_member(league, owner, "Ágata")
        with pytest.raises(TonkError) as caught:
            leagues.add_member(league, owner, "ágata")
        assert caught.value.field == "name" and "already a member" in caught.value.message
        with pytest.raises(TonkError):
            leagues.add_member(league, owner, unicodedata.normalize("NFD", "Ágata"))


def test_the_importer_matches_members_by_key(db_app):
    with db_app.app_context():
        owner = accounts.create_user("k@example.com", "K", "a long table secret")
        gs = ledger.create_session(owner, name="One", players=["Élise", "Bob"])
        doc = json.loads("".join(exchange.export_session(gs)))
        doc["sessions"][0]["uid"] = "b" * 32
        doc["sessions"][0]["players"] = ["élise", "Bob"]
        doc["sessions"][0]["totals"] = {"élise": "0.00", "Bob": "0.00"}
        money = doc["sessions"][0]["money"]
        doc["sessions"][0]["money"] = {"élise": money["Élise"], "Bob": money["Bob"]}
        doc["sessions"][0]["next_dealer"] = "élise"
        report = exchange.import_file(io.BytesIO(json.dumps(doc).encode()), owner)
        assert report.ok, report
        assert db.session.scalar(select(db.func.count()).select_from(Player)) == 2


# -- amounts ---------------------------------------------------------------------------------

@pytest.mark.parametrize("stake", ["1_000", "\u0663", "\uff15", "1e3", "0x10", "1,5", "+-1",
                                   ".5", "5.", "Infinity", "NaN", "0.001", 1.5, True])
def test_a_stake_is_ascii_digits_with_at_most_the_currencys_places(client, stake):
    body = {"players": ["Ann", "Bob"], "end": {"kind": "dead"}, "stake": stake}
    resp = client.post("/api/v1/settle", json=body if not isinstance(stake, float) else None,
                       data=None if not isinstance(stake, float) else
                       '{"players": ["Ann", "Bob"], "end": {"kind": "dead"}, "stake": 1.5e0}',
                       content_type="application/json")
    if isinstance(stake, float):  # a JSON number is read exactly: 1.5 is fine
        assert resp.status_code == 200
        return
    assert resp.status_code == 422, resp.get_json()
    assert resp.get_json()["field"] == "stake"


def test_amounts_that_are_fine():
    hand = {"players": ["Ann", "Bob"], "end": {"kind": "dead"}}
    assert str(parse_hand({**hand, "stake": " 0.25 "}).stake) == "0.25"
    assert str(parse_hand({**hand, "stake": "0.250"}).stake) == "0.25"
    assert parse_balances({"Ann": "-4.50", "Bob": "+4.5", "Cy": 0}) == {
        "Ann": -4.5, "Bob": 4.5, "Cy": 0}


@pytest.mark.parametrize("value", ["0.001", "1_0", "\u0661", "1e2", "", " "])
def test_balances_refuse_what_is_not_money(client, value):
    with pytest.raises(TransferError) as caught:
        parse_balances({"Ann": value, "Bob": "0"})
    assert caught.value.field == "balances.Ann"
    resp = client.post("/api/v1/transfers", json={"balances": {"Ann": value, "Bob": "0"}})
    assert resp.status_code == 422 and resp.get_json()["field"] == "balances.Ann"


# -- JSON ------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, field", [
    ('{"players": ["Ann", "Bob"], "end": {"kind": "drop", "player": "Bob"}, '
     '"counts": {"Ann": 40, "Ann": 2, "Bob": 5}}', "counts.Ann"),
    ('{"players": ["Ann", "Bob"], "end": {"kind": "dead", "kind": "deal"}}', "end.kind"),
    ('{"stake": "1", "stake": "2", "players": ["Ann", "Bob"], "end": {"kind": "dead"}}',
     "stake"),
    ('{"players": ["Ann", "Bob"], "cards": {"Ann": ["KS"], "Ann": ["QS"]}, '
     '"end": {"kind": "dead"}}', "cards.Ann"),
])
def test_a_repeated_key_anywhere_is_refused_and_named(client, raw, field):
    resp = client.post("/api/v1/settle", data=raw, content_type="application/json")
    assert resp.status_code == 400, resp.get_json()
    assert resp.get_json()["field"] == field and "twice" in resp.get_json()["error"]


def test_a_repeated_key_is_found_in_lists_too():
    with pytest.raises(DuplicateKeyError) as caught:
        loads('{"hands": [{}, {"end": {"kind": 1, "kind": 2}}]}')
    assert caught.value.path == "hands[1].end.kind"
    assert loads('{"a": {"b": 1}, "c": [{"b": 2}]}') == {"a": {"b": 1}, "c": [{"b": 2}]}


@pytest.mark.parametrize("raw, words", [
    ('{"players": ["Ann",\n "Bob"', "line 2, column 7"),
    ('{"stake": NaN}', "NaN"),
    ("[1, 2]", "object"),
    ("", "no body"),
    (b"\xff\xfe", "JSON"),
])
def test_a_malformed_body_says_where(client, raw, words):
    resp = client.post("/api/v1/settle", data=raw, content_type="application/json")
    assert resp.status_code == 400
    body = resp.get_json()
    assert body["field"] == "body" and words in body["error"], body


# -- CSV -------------------------------------------------------------------------------------

def test_every_csv_cell_that_could_be_a_formula_is_neutralised(db_app):
    with db_app.app_context():
        owner = accounts.create_user("k@example.com", "K", "a long table secret")
        gs = ledger.create_session(owner, name="@SUM(1)", players=["-Ann", "@Bob"],
                                   currency="=1+1")
        ledger.record_hand(gs, owner, {"end": {"kind": "run_out", "player": "-Ann"}})
        for chunks in (exchange.hands_csv([gs.id]), exchange.payments_csv([gs.id])):
            rows = list(csv.reader(io.StringIO("".join(chunks))))
            for row in rows:
                for cell in row:
                    if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                        assert exchange.NUMBER.fullmatch(cell), (cell, row)
            assert "'=1+1" in rows[1] and "'@SUM(1)" in rows[1]
        hands = list(csv.reader(io.StringIO("".join(exchange.hands_csv([gs.id])))))
        assert hands[0][-2:] == ["'-Ann", "'@Bob"] and hands[1][-1] == "-1.00"


# -- days ------------------------------------------------------------------------------------

@pytest.mark.parametrize("starts, ends", [("2026-01-01", "9999-12-31"),
                                          ("1999-12-31", "2026-01-01"),
                                          ("0001-01-01", "2026-01-01")])
def test_seasons_are_limited_to_the_years_2000_to_2100(db_app, starts, ends):
    with db_app.app_context():
        owner = accounts.create_user("k@example.com", "K", "a long table secret")
        league = leagues.create_league(owner, name="Fridays")
        with pytest.raises(TonkError) as caught:
            leagues.add_season(league, name="S", starts_on=starts, ends_on=ends)
        assert "2000 to 2100" in caught.value.message
        assert caught.value.field in ("starts_on", "ends_on")
        leagues.add_season(league, name="S", starts_on="2000-01-01", ends_on="2100-12-31")


def test_a_stored_season_ending_in_9999_still_shows(db_app):
    with db_app.app_context():
        owner = accounts.create_user("k@example.com", "K", "a long table secret")
        league = leagues.create_league(owner, name="Fridays")
        db.session.add(Season(league_id=league.id, name="Forever",
                              starts_on=date(2026, 1, 1), ends_on=date(9999, 12, 31)))
        db.session.commit()
        season = league.seasons[0]
        assert leagues.standings(league, season) is not None
        client = db_app.test_client()
        client.post("/signin", data={"email": "k@example.com",
                                     "password": "a long table secret"})
        page = client.get(f"/leagues/{league.id}?season={season.id}")
        assert page.status_code == 200


def test_an_import_with_a_time_out_of_range_is_refused():
    with pytest.raises(TonkError) as caught:
        exchange.parse_time("9999-12-31T00:00:00", "played_at")
    assert "2000 to 2100" in caught.value.message


def test_migration_backfills_keys_and_keeps_old_lookalikes_apart(db_app):
    from flask_migrate import downgrade, upgrade

    with db_app.app_context():
        migrated_to("0003")
        with db.engine.begin() as conn:
            conn.execute(text("INSERT INTO users (id, email, name, password_hash, created_at) "
                              "VALUES (1, 'a@b.c', 'A', '-', '2026-01-01')"))
            conn.execute(text("INSERT INTO players (id, owner_id, name, created_at) VALUES "
                              "(1, 1, 'Élise', '2026-01-01'), (2, 1, 'élise', '2026-01-01'), "
                              "(3, 1, 'Bob', '2026-01-01')"))
        upgrade()
        with db.engine.connect() as conn:
            keys: dict[int, str] = dict(
                conn.execute(text("SELECT id, name_key FROM players")).all())
        assert keys == {1: "élise", 2: "élise#2", 3: "bob"}
        downgrade(revision="0003")
        with db.engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM players")).scalar() == 3
        downgrade(revision="base")


@pytest.mark.parametrize("value, places", [("0.250", 2), ("1E+26", 0), ("0.000", 0),
                                           ("-0.5", 1), ("0.001", 3), ("12", 0)])
def test_decimal_places_are_counted_exactly_whatever_the_size(value, places):
    from decimal import Decimal

    from app.core.money import decimal_places

    assert decimal_places(Decimal(value)) == places


def test_a_huge_balance_is_a_422_not_a_500(client):
    resp = client.post("/api/v1/transfers", data='{"balances": {"Ann": 1e+26, "Bob": 0}}',
                       content_type="application/json")
    assert resp.status_code == 422 and resp.get_json()["field"] == "balances.Ann"
