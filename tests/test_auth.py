"""Accounts on the web: sign up, sign in, sign out, pages that need an account, personal API
tokens shown once and revoked, and the language of the pages."""
from __future__ import annotations

import pytest
from markupsafe import escape

from app.db.models import ApiToken, User
from app.extensions import db
from app.services.accounts import (
    AccountError,
    create_token,
    create_user,
    revoke_token,
    user_for_token,
)
from tests.clients import errors_of, sign_up
from tests.expect import matched


def test_sign_up_sign_out_and_sign_in(db_app):
    client = db_app.test_client()
    assert client.get("/signup").status_code == 200
    assert client.get("/signin").status_code == 200
    sign_up(client, name="Sam Spade")
    home = client.get("/").get_data(as_text=True)
    assert "Welcome, Sam Spade." in home and "New session" in home
    assert client.get("/signup").status_code == 302  # already signed in
    assert client.get("/signout").status_code == 405  # signing out is a POST
    resp = client.post("/signout", follow_redirects=True)
    assert "You are signed out." in resp.get_data(as_text=True)
    assert client.get("/sessions/new").status_code == 302
    resp = client.post("/signin", data={"email": "SAM@example.com ", "password": "secret-table-9"})
    assert resp.status_code == 302 and resp.location == "/"
    assert client.get("/sessions/new").status_code == 200


@pytest.mark.parametrize("form, field", [
    ({"password": "short"}, "password"),
    ({"email": "not-an-address"}, "email"),
    ({"name": " "}, "name"),
    ({"name": "x" * 81}, "name"),
    ({"email": "Taken@example.com"}, "email"),
])
def test_sign_up_errors_show_beside_the_field(db_app, form, field):
    client = db_app.test_client()
    sign_up(client, email="taken@example.com")
    client.post("/signout")
    data = {"name": "Ann", "email": "ann@example.com", "password": "secret-table-9", **form}
    resp = client.post("/signup", data=data)
    assert resp.status_code == 422
    with db_app.app_context():
        with pytest.raises(AccountError) as caught:  # what accounts says, the page shows
            create_user(data["email"], data["name"], data["password"])
        assert caught.value.field == field
        assert db.session.scalar(db.select(db.func.count()).select_from(User)) == 1
    page = resp.get_data(as_text=True)
    beside = page[page.index(f'id="{field}"'):]
    assert beside[:beside.index("</p>")].count(str(escape(caught.value.message))) == 1


@pytest.mark.parametrize("name", ["", " "])
def test_sign_up_shows_every_error_at_once(db_app, name):
    """A newcomer was told of the name, then, once it was mended, of the short password:
    each field's problem is beside it at once."""
    resp = db_app.test_client().post("/signup", data={
        "name": name, "email": "not-an-address", "password": "short"})
    assert resp.status_code == 422
    page = resp.get_data(as_text=True)
    for field in ("name", "email", "password"):
        beside = page[page.index(f'id="{field}"'):]
        assert 'class="err"' in beside[:beside.index("</p>")], field
    assert len(errors_of(resp)) == 3, errors_of(resp)


def test_sign_in_refuses_a_wrong_password_and_follows_next_safely(db_app):
    client = db_app.test_client()
    sign_up(client)
    client.post("/signout")
    resp = client.post("/signin", data={"email": "sam@example.com", "password": "wrong-one"})
    assert resp.status_code == 422
    assert "That email and password do not match an account." in errors_of(resp)
    resp = client.get("/sessions/new")
    assert resp.status_code == 302 and resp.location == "/signin?next=/sessions/new"
    resp = client.post("/signin?next=/sessions/new",
                       data={"email": "sam@example.com", "password": "secret-table-9"})
    assert resp.location == "/sessions/new"
    client.post("/signout")
    for target in ("https://evil.example/", "//evil.example/", "/\\evil.example"):
        resp = client.post("/signin", query_string={"next": target},
                           data={"email": "sam@example.com", "password": "secret-table-9"})
        assert resp.location == "/", target
        client.post("/signout")


def test_personal_tokens_are_shown_once_and_can_be_revoked(db_app):
    client = db_app.test_client()
    sign_up(client)
    assert "No tokens." in client.get("/account").get_data(as_text=True)
    resp = client.post("/account/tokens", data={"label": "  "})
    assert resp.status_code == 422
    with db_app.app_context():
        with pytest.raises(AccountError) as caught:
            create_token(db.session.scalar(db.select(User)), "  ")
    assert caught.value.message in errors_of(resp)
    resp = client.post("/account/tokens", data={"label": "league sheet"})
    assert resp.status_code == 200 and resp.headers["Cache-Control"] == "no-store"
    token = matched(r'id="new-token" readonly value="(tt_[^"]+)"', resp.get_data(as_text=True)
                    ).group(1)
    assert 'data-copy="new-token"' in resp.get_data(as_text=True)  # a button copies it
    with db_app.app_context():
        owner = user_for_token(token)
        assert owner is not None and owner.email == "sam@example.com"
        token_id = db.session.scalar(db.select(ApiToken.id))
    page = client.get("/account").get_data(as_text=True)
    assert "league sheet" in page and token not in page  # shown once only

    other = db_app.test_client()
    sign_up(other, email="eve@example.com", name="Eve")
    resp = other.post(f"/account/tokens/{token_id}/revoke", follow_redirects=True)
    with db_app.app_context():
        assert user_for_token(token) is not None
        eve = db.session.scalar(db.select(User).where(User.email == "eve@example.com"))
        with pytest.raises(AccountError) as caught:
            revoke_token(eve, token_id)
    assert str(escape(caught.value.message)) in resp.get_data(as_text=True)

    resp = client.post(f"/account/tokens/{token_id}/revoke", follow_redirects=True)
    assert "The token is revoked" in resp.get_data(as_text=True)
    with db_app.app_context():
        assert user_for_token(token) is None


def test_account_pages_need_an_account(app):
    client = app.test_client()
    for path in ("/account", "/sessions/new", "/sessions/1", "/sessions/1/settle"):
        resp = client.get(path)
        assert resp.status_code == 302 and resp.location.startswith("/signin?next="), path
    assert client.post("/account/tokens", data={"label": "x"}).status_code == 302
    page = client.get("/signin").get_data(as_text=True)
    assert "Sign in to see that page." in page


@pytest.mark.parametrize("header, lang", [("de-DE,de;q=0.9", "de"), ("ja", "ja"),
                                          ("fr-FR, en;q=0.5", "en"), ("", "en")])
def test_pages_speak_the_browsers_language(app, header, lang):
    page = app.test_client().get("/", headers={"Accept-Language": header})
    assert f'<html lang="{lang}">' in page.get_data(as_text=True)
