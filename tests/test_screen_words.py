"""The words a table reads, in English, German and Japanese: the standard
catch's sentence parses, German calls a catch a Fang (not "Hereinlegen", conning someone)
and translates The Big One, Japanese puts no space after a full-width colon nor between a
number and its counter and says 最低 for the lowest count, a round that cannot close says
which tables in one sentence made for their number, one form of date and time on every
page, and a closed session offers no settle-up with a leaver. (The layout of the same
screens is measured in tests/browser/test_screens.py.)"""
from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner
from flask_babel import force_locale
from sqlalchemy import select

from app.cli.commands import cli
from app.db.models import GameSession, User
from app.db.unit import unit_of_work
from app.extensions import db
from app.services import events
from app.services.sessions import ledger
from app.web.shared.site import when
from tests.clients import errors_of, record, sign_up, start
from tests.expect import fetched, unphrased

CAUGHT = {"rules": "pagat", "stake": "0.25", "players": ["Ann", "Bob", "Cy", "Dee"],
          "dealer": "Dee", "end": {"kind": "drop", "player": "Bob"},
          "counts": {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30}}

STANDARD = ("the dropper pays double to each player whose count is equal to or lower than the "
            "dropper's; then everyone but the dropper and the lowest pays the lowest the stake, "
            "even a player the dropper has just paid double")


def director() -> User:
    return db.session.scalars(select(User).where(User.email == "director@example.com")).one()


def check_page(client, lang: str) -> str:
    resp = client.post("/check", data={
        "step": "check", "players": "Ann, Bob, Cy, Dee", "stake": "0.25", "preset": "pagat",
        "kind": "drop", "player": "Bob", "count-0": "12", "count-1": "9", "count-2": "9",
        "count-3": "30", "dealer": "Dee"}, headers={"Accept-Language": lang},
        follow_redirects=True)
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def test_the_standard_catch_reads_as_a_sentence_in_the_explanation_and_on_check(db_app):
    out = CliRunner().invoke(cli, ["settle", "--explain", "-"], input=json.dumps(CAUGHT))
    assert out.exit_code == 0
    assert f"Catch rule (standard catch): {STANDARD}." in out.stdout
    assert "one just paid double" not in out.stdout
    page = check_page(db_app.test_client(), "en")
    assert STANDARD.replace("'", "&#39;") in page


def test_german_says_fang_for_a_catch_and_translates_the_big_one(db_app):
    client = db_app.test_client()
    page = check_page(client, "de")
    assert "Fangregel (Standardfang): der Hinleger zahlt jedem Spieler" in page
    assert "gefangen" in page and "ereinleg" not in page
    sign_up(client)
    sid = start(client)
    form = client.get(f"/sessions/{sid}/hands/new", headers={"Accept-Language": "de"})
    text = form.get_data(as_text=True)
    assert "Großes Spiel" in text and "Big One" not in text


def test_japanese_colons_counters_and_the_lowest(db_app):
    client = db_app.test_client()
    sign_up(client)
    sid = start(client)
    ja = {"Accept-Language": "ja"}
    empty = unphrased(client.get(f"/sessions/{sid}", headers=ja).get_data(as_text=True))
    assert "0ハンド" in empty and "0 ハンド" not in empty
    assert "次のディーラー：<strong>Ann</strong>" in empty
    assert record(client, sid, dealer="Ann", kind="stock_out", **{
        "count-0": "7", "count-1": "15", "count-2": "3"}).status_code == 302
    hand = unphrased(client.get(f"/sessions/{sid}/hands/1", headers=ja).get_data(as_text=True))
    assert re.search(r"<h1>ハンド1：ストック切れ：Cyが最低の3", hand), hand[:3000]
    for page in (empty, hand):
        text = re.sub(r"<[^>]+>", "", page)
        assert "： " not in text and ": " not in re.sub(r"[ -~]+: [ -~]", "", text)
        assert "最少の" not in text


def test_a_round_that_cannot_close_names_its_tables_in_one_sentence(db_app):
    client = db_app.test_client()
    sign_up(client, email="director@example.com")
    with db_app.app_context(), unit_of_work():
        owner = director()
        event = events.create_event(owner, name="Cup", rounds=1, hands_per_round=2)
        for name in ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus"):
            events.check_in(event, name)
        events.draw_next_round(event, owner, 1)
        eid = event.id
    refused = client.post(f"/events/{eid}/rounds/1/close", data={}).get_data(as_text=True)
    assert ("tables 1 and 2 have not played all their hands (2 a round): let them finish, "
            "or close the round anyway") in refused
    with db_app.app_context():
        event = events.owned_event(director(), eid)
        table = events.get_round(event, 1).tables[0]
        for _ in range(2):
            ledger.record_hand(table.session, events.keeper_author(table),
                               {"end": {"kind": "dead"}})
        db.session.commit()
    one = client.post(f"/events/{eid}/rounds/1/close", data={}).get_data(as_text=True)
    assert ("table 2 has not played all its hands (2 a round): let it finish, or close the "
            "round anyway") in one
    de = client.post(f"/events/{eid}/rounds/1/close", data={},
                     headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Tisch 2 hat noch nicht alle Hände gespielt (2 pro Runde)" in de


@pytest.mark.parametrize(("lang", "written"), [
    ("en", "Nov 28, 2026, 5:12\u202fPM"), ("de", "28.11.2026, 17:12"),
    ("ja", "2026/11/28 17:12")])
def test_one_form_of_a_moment_in_each_language(db_app, lang, written):
    moment = datetime(2026, 11, 28, 17, 12, 53, tzinfo=UTC)
    with db_app.test_request_context(), force_locale(lang):
        assert when(moment) == written


def test_the_pages_write_days_and_moments_one_way(db_app):
    client = db_app.test_client()
    sign_up(client, email="director@example.com")
    with db_app.app_context(), unit_of_work():
        event = events.create_event(director(), name="Cup",
                                    held_on="2026-11-28")
        eid = event.id
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert "Nov 28, 2026 ·" in page and "2026-11-28 ·" not in page
    assert "Nov 28, 2026" in client.get("/events").get_data(as_text=True)
    sid = start(client)
    assert record(client, sid, kind="dead").status_code == 302
    session = client.get(f"/sessions/{sid}").get_data(as_text=True)
    shown = re.search(r'<p class="updated">[^<]*<time datetime="[^"]+">([^<]+)</time>', session)
    assert shown is not None
    assert re.fullmatch(r"[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d\u202f[AP]M", shown.group(1))


def test_a_closed_session_offers_no_settle_up_with_a_leaver(db_app):
    client = db_app.test_client()
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy", "Dee"))
    assert record(client, sid, kind="run_out", player="Ann").status_code == 302
    left = client.post(f"/sessions/{sid}/seats", data={"leave": "Dee"})
    assert left.status_code == 302, errors_of(left)
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert "settle up with Dee" in page  # open: Dee can settle before going home
    closing = client.post(f"/sessions/{sid}/close", data={"carry_over": "1"})
    assert closing.status_code == 302, errors_of(closing)
    closed = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert "left the table" in closed and "settle up with Dee" not in closed
    with db_app.app_context():
        assert fetched(GameSession, sid).is_closed
