"""What every answer carries (security headers on pages, JSON, errors and static files),
HTTPS and proxies (Secure cookies, HSTS, the client's scheme), 405's ``Allow``, and a
refused form sent back only to a page of this site."""
from __future__ import annotations

from typing import Any

import pytest

from tests.apps import make_app
from tests.clients import sign_up, start

HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin",
           "X-Frame-Options": "DENY"}


@pytest.mark.parametrize("method, path, status", [
    ("GET", "/", 200),                                  # a page
    ("GET", "/signin", 200),
    ("GET", "/no/such/page", 404),                      # a page's error
    ("GET", "/static/tonk.css", 200),                   # a static file
    ("GET", "/static/nothing.css", 404),
    ("GET", "/api/v1/openapi.json", 200),               # JSON
    ("POST", "/api/v1/settle", 400),                    # a JSON error
    ("GET", "/api/v1/sessions", 401),
    ("GET", "/api/v1/nothing", 404),
    ("GET", "/api/v1/settle", 405),
    ("GET", "/signout", 405),
])
def test_every_kind_of_answer_carries_the_security_headers(app, method, path, status):
    resp = app.test_client().open(path, method=method)
    assert resp.status_code == status
    csp = resp.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'self'" in csp
    for name, value in HEADERS.items():
        assert resp.headers[name] == value
    assert "Strict-Transport-Security" not in resp.headers  # plain HTTP: no HSTS
    resp.close()  # a static file's answer holds the file open until closed


def test_a_405_says_which_methods_are_allowed(app):
    client = app.test_client()
    resp = client.get("/api/v1/settle")
    assert resp.status_code == 405 and set(resp.headers["Allow"].split(", ")) == {"OPTIONS", "POST"}
    assert resp.get_json()["error"]
    resp = client.delete("/api/v1/sessions")
    assert set(resp.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS", "POST"}
    assert "POST" in client.get("/signout").headers["Allow"]


def test_https_makes_cookies_secure_and_sends_hsts(tmp_path):
    app = make_app(f"sqlite:///{tmp_path / 'h.sqlite'}", TONK_HTTPS=True)
    from app.extensions import db

    with app.app_context():
        db.create_all()
    client = app.test_client()
    resp = client.get("/signin")
    assert resp.headers["Strict-Transport-Security"] == "max-age=31536000"
    assert client.get("/api/v1/openapi.json").headers["Strict-Transport-Security"]
    resp = client.post("/signup", data={"name": "Sam", "email": "sam@example.com",
                                        "password": "a long table secret"})
    cookies = resp.headers.getlist("Set-Cookie")
    assert cookies and all("Secure" in c for c in cookies), cookies


def test_plain_http_cookies_are_not_secure(app):
    resp = app.test_client().post("/signup", data={
        "name": "Sam", "email": "sam@example.com", "password": "a long table secret"})
    assert resp.status_code == 302
    assert not any("Secure" in c for c in resp.headers.getlist("Set-Cookie"))


def test_the_environment_turns_https_and_the_proxy_on(monkeypatch, tmp_path):
    monkeypatch.setenv("TONK_PROXY", "1")
    app = make_app(f"sqlite:///{tmp_path / 'p.sqlite'}")
    assert app.config["TONK_HTTPS"] and app.config["SESSION_COOKIE_SECURE"]
    seen: dict[str, Any] = {}

    @app.get("/_where")
    def where():
        from flask import request

        seen.update(scheme=request.scheme, addr=request.remote_addr)
        return "ok"

    resp = app.test_client().get("/_where", headers={"X-Forwarded-Proto": "https",
                                                      "X-Forwarded-For": "192.0.2.7"})
    assert resp.headers["Strict-Transport-Security"]
    assert seen == {"scheme": "https", "addr": "192.0.2.7"}
    monkeypatch.delenv("TONK_PROXY")
    monkeypatch.setenv("TONK_HTTPS", "0")
    assert not make_app(f"sqlite:///{tmp_path / 'q.sqlite'}").config["TONK_HTTPS"]


def test_a_server_error_carries_the_headers_too(app):
    """(No input reaches a 500: tests/test_api_schema.py; but a bug must not drop them.)"""
    app.config["PROPAGATE_EXCEPTIONS"] = False

    @app.get("/_boom")
    def boom():
        raise RuntimeError("a bug")

    @app.get("/api/v1/_boom")
    def api_boom():
        raise RuntimeError("a bug")

    for path in ("/_boom", "/api/v1/_boom"):
        resp = app.test_client().get(path)
        assert resp.status_code == 500
        assert resp.headers["X-Content-Type-Options"] == "nosniff"
        assert "frame-ancestors 'none'" in resp.headers["Content-Security-Policy"]
    assert app.test_client().get("/api/v1/_boom").get_json()["error"]


# -- a refused form goes back only to a page of this site ----------------------------------

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
