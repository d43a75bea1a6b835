"""The smaller findings of the audit of the server people run (issue 30, point 7), each as
it was found: on SQLite and PostgreSQL where the database matters."""
from __future__ import annotations

# -- a NUL in a table's or a board's token (PostgreSQL refuses to compare it: it was a 500) --


def test_a_nul_or_a_control_character_in_any_token_finds_nothing(db_app):
    client = db_app.test_client()
    for token in ("abc%00", "abc%01", "%00", "abc%7F", "a" * 500):
        for path in (f"/t/{token}", f"/t/{token}/hands/new", f"/t/{token}/hands/1",
                     f"/board/{token}", f"/board/{token}/state", f"/board/{token}/live",
                     f"/board/{token}/players/Ann", f"/s/{token}", f"/api/v1/share/{token}"):
            resp = client.get(path)
            assert resp.status_code == 404, (path, resp.status_code)
