"""The smaller findings of the audit of the server people run (issue 30, point 7), each as
it was found: on SQLite and PostgreSQL where the database matters."""
from __future__ import annotations

from tests.helpers import sign_up, start

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
