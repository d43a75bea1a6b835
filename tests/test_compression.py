"""Compressed answers (app.http.compress): pages, JSON, CSS, scripts and SVG gzip- or
br-compressed for the clients that ask, with ``Vary: Accept-Encoding``; not for those that
do not ask, nor tiny bodies or images already packed; a compressed answer has an ETag of its
own, and a conditional GET that names it is a 304 without a body, from the views, the static
files and the share poll answered in front of the app alike."""
from __future__ import annotations

import gzip

import brotli

from tests.clients import record, sign_up, start

GZIP = {"Accept-Encoding": "gzip"}
BROWSER = {"Accept-Encoding": "gzip, deflate, br, zstd"}


def _night(client) -> int:
    """A signed-in scorekeeper's session of 21 hands (as the audit's night), its id."""
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy", "Dee"))
    ends = (("tonk_out", "Ann"), ("run_out", "Bob"), ("tonk_out", "Cy"))
    for i in range(21):
        kind, who = ends[i % 3]
        assert record(client, sid, kind=kind, player=who).status_code == 302
    client.get(f"/sessions/{sid}")  # the page showing the hands just recorded, once
    return sid


def _accepts_encoding(resp) -> bool:
    return "accept-encoding" in resp.headers.get("Vary", "").lower()


def test_pages_go_compressed_to_who_asks_and_plain_to_who_does_not(client):
    sid = _night(client)
    sizes = {}
    for path in (f"/sessions/{sid}", f"/sessions/{sid}/hands/new"):
        plain = client.get(path)
        assert plain.status_code == 200 and "Content-Encoding" not in plain.headers
        assert _accepts_encoding(plain)
        packed = client.get(path, headers=GZIP)
        assert packed.headers["Content-Encoding"] == "gzip" and _accepts_encoding(packed)
        assert int(packed.headers["Content-Length"]) == len(packed.data)
        page = gzip.decompress(packed.data).decode()
        assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
        best = client.get(path, headers=BROWSER)
        assert best.headers["Content-Encoding"] == "br"
        assert brotli.decompress(best.data).decode().rstrip().endswith("</html>")
        sizes[path] = (len(plain.data), len(packed.data), len(best.data))
        # the 21-hand night's session page and its record form: under a third
        assert len(packed.data) < len(plain.data) / 3, sizes
        assert len(best.data) < len(plain.data) / 3, sizes
        head = client.head(path, headers=GZIP)
        assert head.status_code == 200 and head.data == b""
        assert head.headers["Content-Encoding"] == "gzip"
    print("bytes (identity, gzip, br):", sizes)


def test_static_files_go_compressed_with_an_etag_of_their_own(client):
    page = client.get("/").get_data(as_text=True)
    for name, kind in (("tonk.css", "text/css"), ("tonk.js", "text/javascript")):
        start_at = page.index(f"/static/{name}?v=")
        path = page[start_at:page.index('"', start_at)]
        plain = client.get(path)
        assert plain.status_code == 200 and "Content-Encoding" not in plain.headers
        packed = client.get(path, headers=GZIP)
        assert packed.status_code == 200 and packed.mimetype == kind
        assert packed.headers["Content-Encoding"] == "gzip" and _accepts_encoding(packed)
        assert gzip.decompress(packed.data) == plain.data
        assert "immutable" in packed.headers["Cache-Control"]
        tag = packed.headers["ETag"]
        assert tag != plain.headers["ETag"] and tag.endswith(':gzip"')
        again = client.get(path, headers={**GZIP, "If-None-Match": tag})
        assert again.status_code == 304 and again.data == b"", name
        assert again.headers["ETag"] == tag
        again = client.get(path, headers={"If-None-Match": plain.headers["ETag"]})
        assert again.status_code == 304 and again.data == b"", name
        for asked in (BROWSER, GZIP):  # a HEAD, a conditional one too: no body
            head = client.head(path, headers=asked)
            assert head.status_code == 200 and head.data == b"" and _accepts_encoding(head)
            assert client.head(path, headers={**asked, "If-None-Match": head.headers["ETag"]}
                               ).status_code == 304
    part = client.get(path, headers={**GZIP, "Range": "bytes=0-9999"})  # a range: plain
    assert part.status_code == 206 and part.data == plain.data[:10000]
    assert "Content-Encoding" not in part.headers
    worker = client.get("/sw.js", headers=GZIP)  # the service worker, from its own view
    assert worker.headers["Content-Encoding"] == "gzip"
    again = client.get("/sw.js", headers={**GZIP, "If-None-Match": worker.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    icon = client.get("/static/icons/icon-192.png", headers=GZIP)  # a PNG is packed already
    assert icon.status_code == 200 and "Content-Encoding" not in icon.headers


def test_json_and_svg_go_compressed_and_the_share_poll_stays_a_bodiless_304(db_app):
    from flask import request_started

    client = db_app.test_client()
    sid = _night(client)
    api = client.get(f"/sessions/{sid}/chart.svg", headers=GZIP)
    assert api.mimetype == "image/svg+xml" and api.headers["Content-Encoding"] == "gzip"
    again = client.get(f"/sessions/{sid}/chart.svg",
                       headers={**GZIP, "If-None-Match": api.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    start_at = page.index('data-poll="/api/v1/share/') + len('data-poll="')
    poll = page[start_at:page.index('"', start_at)]
    reader = db_app.test_client()  # a phone at the table, not signed in
    plain = reader.get(poll)
    packed = reader.get(poll, headers=GZIP)
    assert packed.mimetype == "application/json"
    assert packed.headers["Content-Encoding"] == "gzip" and _accepts_encoding(packed)
    assert gzip.decompress(packed.data) == plain.data
    tag = packed.headers["ETag"]
    assert tag == plain.headers["ETag"][:-1] + ':gzip"'
    started: list[str] = []

    def note(_sender, **_extra):
        started.append("request")

    request_started.connect(note, db_app)
    try:
        for seen in (tag, plain.headers["ETag"]):  # the fast 304 of app.api.share
            fast = reader.get(poll, headers={**GZIP, "If-None-Match": seen})
            assert fast.status_code == 304 and fast.data == b"" and not started
            assert fast.headers["ETag"] == seen and _accepts_encoding(fast)
        signed_in = client.get(poll, headers={**GZIP, "If-None-Match": tag})  # the app's
        assert signed_in.status_code == 304 and signed_in.data == b"" and started
        assert signed_in.headers["ETag"] == tag
    finally:
        request_started.disconnect(note, db_app)
    record(client, sid, kind="tonk_out", player="Dee")
    changed = reader.get(poll, headers={**GZIP, "If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != tag
    assert gzip.decompress(changed.data).startswith(b"{")
    # the live part the page fetches then, and the JSON API: compressed too
    live = client.get(f"/sessions/{sid}/live", headers=GZIP)
    assert live.headers["Content-Encoding"] == "gzip"
    again = client.get(f"/sessions/{sid}/live",
                       headers={**GZIP, "If-None-Match": live.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""


def test_small_answers_and_errors_go_as_they_are(client):
    document = client.get("/api/v1/openapi.json", headers=GZIP)  # a large JSON answer
    assert document.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(document.data).startswith(b"{")
    sign_up(client)
    small = client.get("/outbox/token", headers=GZIP)  # a JSON answer of a few bytes
    assert small.status_code == 200 and len(small.data) < 500
    assert "Content-Encoding" not in small.headers and small.get_json()["csrf"]
    missing = client.get("/sessions/999", headers=GZIP)
    assert missing.status_code == 404 and "Content-Encoding" not in missing.headers
    api = client.get("/api/v1/sessions", headers=GZIP)  # no token: the API's JSON error
    assert api.status_code == 401 and "Content-Encoding" not in api.headers
    assert _accepts_encoding(api)
