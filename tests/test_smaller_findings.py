"""The smaller findings of the audit of the server people run, each as
it was found: on SQLite and PostgreSQL where the database matters."""
from __future__ import annotations

import re

import pytest

from app.db.models import User
from app.extensions import db
from tests.apps import make_app, sqlite_copy
from tests.clients import api_error, sign_up, start
from tests.expect import matched

# -- a NUL in a table's or a board's token (PostgreSQL refuses to compare it: it was a 500) --


def test_a_nul_or_a_control_character_in_any_token_finds_nothing(db_app):
    client = db_app.test_client()
    for token in ("abc%00", "abc%01", "%00", "abc%7F", "a" * 500):
        for path in (f"/t/{token}", f"/t/{token}/hands/new", f"/t/{token}/hands/1",
                     f"/board/{token}", f"/board/{token}/state", f"/board/{token}/live",
                     f"/board/{token}/players/Ann", f"/s/{token}", f"/api/v1/share/{token}"):
            resp = client.get(path)
            assert resp.status_code == 404, (path, resp.status_code)


# -- a refused form goes back only to a page of this site -----------------------------------


def test_a_refused_form_goes_back_only_to_a_page_of_this_site(client):
    sign_up(client)
    sid = start(client)
    here = f"/sessions/{sid}/hands/new"
    for referer, back in ((f"http://localhost{here}?page=2", f"{here}?page=2"),
                          ("https://evil.example/phish", "/"),
                          ("http://localhost.evil.example/x", "/"),
                          ("//evil.example/x", "/"), ("http://localhost//evil.example/x", "/"),
                          ("javascript:alert(1)", "/"), ("http://localhost/\\evil", "/"),
                          (None, "/")):
        headers = {"Referer": referer} if referer else {}
        resp = client.post(here, data={"once": "\x01"}, headers=headers)  # a one-time token refused
        assert resp.status_code == 302 and resp.location == back, (referer, resp.location)


# -- the language changes only by a POST from this site ------------------------------------


def test_the_language_changes_only_by_a_post_from_this_site(app_with_csrf):
    app = app_with_csrf
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    form = matched(r'<form method="post" action="/language".*?</form>', page, re.S).group(0)
    assert 'name="csrf_token"' not in form  # signed out: no session cookie for a switcher
    assert client.get_cookie("session") is None
    resp = client.post("/language", data={"code": "de", "next": "/check"})
    assert resp.status_code == 303 and resp.location == "/check"
    assert _lang_of(client.get("/check").get_data(as_text=True)) == "de"
    token = matched(r'name="csrf_token"[^>]*value="([^"]+)"',
                    client.get("/signup").get_data(as_text=True)).group(1)
    assert client.post("/signup", data={"name": "Sam", "email": "sam@example.com",
                                        "password": "secret-table-9",
                                        "csrf_token": token}).status_code == 302
    page = client.get("/").get_data(as_text=True)
    form = matched(r'<form method="post" action="/language".*?</form>', page, re.S).group(0)
    token = matched(r'name="csrf_token"[^>]*value="([^"]+)"', form).group(1)
    for code in ("en", "de", "ja"):
        assert f'<button class="link" name="code" value="{code}" lang="{code}"' in form

    # an image or a link elsewhere: nothing changes
    assert client.get("/language/ja").status_code == 404
    assert client.get("/language?code=ja").status_code == 405
    # a form elsewhere (no token of this site's): refused, nothing changes
    assert client.post("/language", data={"code": "ja"}).status_code == 400
    assert client.post("/language", data={"code": "ja", "csrf_token": "forged"}
                       ).status_code == 400
    with app.app_context():
        assert db.session.scalar(db.select(User.locale)) == "de"  # chosen before signing up
    resp = client.post("/language", data={"code": "ja", "next": "/sessions/new",
                                          "csrf_token": token})
    assert resp.status_code == 303 and resp.location == "/sessions/new"
    with app.app_context():
        assert db.session.scalar(db.select(User.locale)) == "ja"
    assert _lang_of(client.get("/sessions/new").get_data(as_text=True)) == "ja"


def _lang_of(page: str) -> str:
    return matched(r'<html lang="([^"]+)"', page).group(1)


@pytest.fixture
def app_with_csrf(tmp_path, sqlite_schema):
    app = make_app(sqlite_copy(sqlite_schema, tmp_path), WTF_CSRF_ENABLED=True)
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


# -- an empty ?season= is all time, as the OpenAPI document allows it ----------------------


def test_an_empty_season_is_all_time(api):
    lid = api.ok("POST", "/leagues", {"name": "Thursday", "rules": "pagat", "stake": "0.50"},
                 201)["id"]
    api.ok("POST", f"/leagues/{lid}/seasons",
           {"name": "Spring", "starts_on": "2026-03-01", "ends_on": "2026-05-31"}, 201)
    document = api.client.get("/api/v1/openapi.json").get_json()
    standings = document["paths"]["/api/v1/leagues/{league_id}/standings"]["get"]
    season = next(p for p in standings["parameters"] if p["name"] == "season")
    assert season["allowEmptyValue"] and "empty" in season["description"]
    all_time = api.ok("GET", f"/leagues/{lid}/standings")
    assert all_time["season"] is None
    for empty in ("", "%20"):
        assert api.ok("GET", f"/leagues/{lid}/standings?season={empty}") == all_time
    assert api.ok("GET", f"/leagues/{lid}/standings?season=all") == all_time
    api_error(api("GET", f"/leagues/{lid}/standings?season=999"), 404, "season", "")
