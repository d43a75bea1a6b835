"""Clients of the app as people and programs use it: the JSON API with a personal token
(:class:`Api`, :func:`account`, :func:`api_error`), and the pages through Flask's test client
(sign up, start a session, record a hand, the messages a refused form shows)."""
from __future__ import annotations

import json
import re
from typing import Any

from markupsafe import escape

from app.db.models import GameSession
from app.extensions import db


def account(app: Any, email: str, name: str) -> str:
    """An account made on ``app`` (password "correct horse"), and a personal token of it."""
    from app.db.unit import unit_of_work
    from app.services.accounts import create_token, create_user

    with app.app_context(), unit_of_work():
        return create_token(create_user(email, name, "correct horse"), "tests")


class Api:
    """The test client of the JSON API, signed in with a personal token."""

    PLAYERS = ["Ann", "Bob", "Cy", "Dee"]

    def __init__(self, client: Any, token: str | None) -> None:
        self.client, self.token = client, token

    def __call__(self, method: str, path: str, body: Any = None, *,
                 token: str | None = None, headers: dict[str, str] | None = None) -> Any:
        sent = dict(headers or {})
        if token or self.token:
            sent.setdefault("Authorization", f"Bearer {token or self.token}")
        raw = body if body is None or isinstance(body, str | bytes) else json.dumps(body)
        return self.client.open("/api/v1" + path, method=method, data=raw, headers=sent,
                                content_type="application/json")

    def ok(self, method: str, path: str, body: Any = None, status: int = 200) -> Any:
        """The answer's JSON, which must come with ``status``."""
        resp = self(method, path, body)
        assert resp.status_code == status, resp.get_json()
        return resp.get_json()

    def start(self, **extra: Any) -> int:
        """A session of Ann, Bob, Cy and Dee under pagat at 0.25 USD, Dee dealing first."""
        body = {"name": "Friday", "players": self.PLAYERS, "rules": "pagat", "stake": "0.25",
                "currency": "USD", "first_dealer": "Dee", **extra}
        return int(self.ok("POST", "/sessions", body, 201)["id"])


def api_error(resp: Any, status: int, field: str | None, words: str) -> None:
    """The answer is ``status`` in the API's error shape, naming ``field`` and saying
    ``words`` (in any case)."""
    assert resp.status_code == status, resp.get_json()
    body = resp.get_json()
    assert body.get("field") == field, body
    assert words.lower() in body["error"].lower(), body


def sign_up(client, email="sam@example.com", name="Sam", password="secret-table-9"):
    """Sign up through the page (which signs the client in)."""
    resp = client.post("/signup", data={"name": name, "email": email, "password": password})
    assert resp.status_code == 302, resp.data
    return resp


def start(client, players=("Ann", "Bob", "Cy"), preset="pagat", stake="0.25", **extra) -> int:
    """Start a session through the page (the first player deals first); its id."""
    data = {"name": "Friday", "first_dealer": "0", "stake": stake, "currency": "USD",
            "preset": preset, **{f"player-{i}": p for i, p in enumerate(players)}, **extra}
    resp = client.post("/sessions/new", data=data)
    assert resp.status_code == 302, errors_of(resp)
    return int(resp.location.rsplit("/", 1)[1])


def record(client, sid, **form):
    """Post the record-hand form of session ``sid``."""
    return client.post(f"/sessions/{sid}/hands/new", data=form)


def errors_of(resp) -> list[str]:
    """The messages shown beside fields."""
    return [m.replace("&#39;", "'").replace("&#34;", '"').replace("&lt;", "<")
            .replace("&gt;", ">").replace("&amp;", "&")
            for m in re.findall(r'class="err"[^>]*>([^<]*)<', resp.get_data(as_text=True))]


def shown_beside(resp, field, message):
    """The page refused the form (422) and shows ``message`` beside the field ``field``."""
    assert f'id="err-{field}">{escape(message)}<' in resp.get_data(as_text=True), \
        (field, message, errors_of(resp))
    assert resp.status_code == 422, resp.status_code


# -- the pages' sessions ---------------------------------------------------------------------

def share_token(app, sid):
    with app.app_context():
        gs = db.session.get(GameSession, sid)
        assert gs is not None
        return gs.share_token
