"""``GET /api/v1/share/{token}``: the live state of a session for its read-only view, where
the share link is the credential (no account, nothing that changes anything).

Phones poll it every second or two: the ETag is the session's revision
(``app.services.sessions.live``), so an unchanged session answers 304 after reading one
indexed row, and a changed one answers a body made once per revision and language on each
worker. The unchanged poll of a reader who is not signed in is answered before the app
(:class:`UnchangedPolls`): the one row, the ETag and the headers, nothing more.
"""
from __future__ import annotations

import asyncio
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, json, request
from flask_babel import get_locale
from sqlalchemy.exc import SQLAlchemyError
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header, parse_cookie, parse_etags, quote_etag
from werkzeug.test import create_environ

from ..core import PRESETS
from ..core.money import amount_formatter, takes_stake
from ..db.models import GameSession, Hand
from ..extensions import db
from ..http.compress import held
from ..http.doors import environ_of
from ..http.headers import headers
from ..http.language import browser_language
from ..services import sessions
from ..services.errors import NotFoundError
from ..services.sessions import Stamp, StateCache, last_hands, stamp_by_token
from . import bp
from .answers import ErrorJson, LastHandJson, ShareJson, money_json, transfer_json
from .door import api
from .params import SHARE_TOKEN
from .sessions import iso_time

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

#: Share bodies by (stamp, language): a few hundred tables' current states.
BODIES: StateCache[bytes] = StateCache(512)


def _hand(hand: Hand) -> LastHandJson:
    result = hand.result
    values = result["net"] if result.get("net") is not None else result.get("pushed", {})
    return {"number": hand.number, "version": hand.version, "voided": hand.voided,
            "corrected": hand.version > 1 and not hand.voided,
            "multiplier": hand.data.get("multiplier", 1), "outcome": result["outcome"],
            "winners": result["winners"], "values": values}


def share_json(gs: GameSession, stamp: Stamp) -> ShareJson:
    """What the read-only view shows: the session, its seats with their totals, who deals
    next, the counted hands, the last hands, the transfers still open, the pots, and when
    it last changed."""
    rules = sessions.session_rules(gs)
    fmt = amount_formatter(rules, gs.currency)
    state = sessions.ledger_of(gs)
    return {
        "session": {"name": gs.name, "rules": rules.preset,
                    "rules_title": str(PRESETS[rules.preset].title), "scoring": rules.scoring,
                    "stake": str(sessions.session_stake(gs)) if takes_stake(rules) else None,
                    "currency": gs.currency,
                    "closed": gs.is_closed, "closed_at": iso_time(gs.closed_at),
                    "created_at": iso_time(gs.created_at)},
        "seats": [{"seat": s.seat, "name": s.name, "total": fmt(state.totals[s.name]),
                   "seated": s.left_at is None} for s in gs.seats],
        "players": list(sessions.seated_names(gs)),
        "dealer": None if gs.is_closed else gs.dealer,
        "totals": {name: fmt(amount) for name, amount in state.totals.items()},
        "money": {name: money_json(m, fmt) for name, m in state.money.items()},
        "hands": state.hands,
        "voided_hands": gs.voided_hands,
        "last_hands": [_hand(h) for h in last_hands(gs)],
        "transfers": [transfer_json(t, fmt) for t in state.transfers],
        "pots": {bet: fmt(amount) for bet, amount in state.pots.items()},
        "revision": stamp.revision,
        "updated_at": iso_time(stamp.updated_at),
    }


def etag(stamp: Stamp) -> str:
    """The ETag of a state in the reader's language (the body's words follow it)."""
    return stamp.etag(str(get_locale() or "en"))


def _live(response: Response, tag: str) -> Response:
    response.set_etag(tag)
    response.headers["Cache-Control"] = "no-cache"  # keep it, but ask again every time
    response.vary.add("Accept-Language")
    response.vary.add("Cookie")  # the language may be the switcher's, or a signed-in one's
    response.vary.add("Accept-Encoding")  # (as app.http.compress says on every answer)
    return response


@api.get("/share/<token>", "The live state of a session for its read-only view: the share "
         "link is the credential. Poll it with If-None-Match: 304 until something changes.", {
             "200": ("The state, with its ETag.", ShareJson,
                     {"ETag": {"schema": {"type": "string"}}}),
             "304": ("Nothing changed since the ETag you sent.", None),
             "404": ("No session behind this link (or it was replaced).", ErrorJson)},
         (SHARE_TOKEN, {"name": "If-None-Match", "in": "header", "required": False,
                        "schema": {"type": "string"},
                        "description": "The ETag of the state you have."}))
def share(token: str) -> Response:
    stamp = stamp_by_token(token, poll=True)  # one indexed row: enough for "unchanged"
    tag = etag(stamp)
    seen = held(tag, request.if_none_match)
    if seen:
        return _live(Response(status=304), seen)
    stamp = stamp_by_token(token)  # the body and its state read in one snapshot
    tag = etag(stamp)
    body = BODIES.get((tag, token), lambda: json.dumps(
        share_json(sessions.shared_session(token), stamp)).encode())
    return _live(Response(body, mimetype="application/json"), tag)


class UnchangedPolls:
    """The WSGI app in front of the Flask app that answers the poll of a phone that is not
    signed in, when nothing changed, itself: 304 after the one indexed row, with the same
    headers the view gives (the security headers too), without the request machinery of a
    page (sessions, sign-in, CSRF, the limiter's filter, the snapshot transaction), which
    costs many times the query. Everything else, a changed state, a share link that is no
    link, a database fault and a signed-in reader (whose language is the account's) included,
    goes on to the app, which answers as it always did. (Polls are reads: no rate limit
    applies to them either way.)"""

    def __init__(self, app: Flask, wsgi: WSGIApplication) -> None:
        self.wsgi = wsgi
        self.prefix = f"{bp.url_prefix}/share/"
        self.languages = tuple(app.config["LANGUAGES"])
        self.signed_in = (app.config["SESSION_COOKIE_NAME"],
                          app.config.get("REMEMBER_COOKIE_NAME", "remember_token"))
        with app.app_context():
            self.engine = db.engine
        # the view's headers and the security headers, as the app's 304 carries them
        mark = "tonk-etag-mark"
        answer = headers(_live(Response(status=304), mark),
                         https=bool(app.config.get("TONK_HTTPS")))
        self.status = answer.status
        self.headers = answer.get_wsgi_headers(create_environ()).to_wsgi_list()
        self.etag_at = next(i for i, (_k, v) in enumerate(self.headers) if mark in v)

    def __call__(self, environ: WSGIEnvironment,
                 start_response: StartResponse) -> Iterable[bytes]:
        tag = self.unchanged(environ)
        if tag is None:
            return self.wsgi(environ, start_response)
        answer = list(self.headers)
        answer[self.etag_at] = ("ETag", quote_etag(tag))
        start_response(self.status, answer)
        return []

    def unchanged(self, environ: WSGIEnvironment) -> str | None:
        """The ETag of an unchanged poll, to answer 304, or None: the app answers. Its
        headers are read as the app reads them, from the same environ (under ``tonk serve``
        made by :func:`app.http.doors.environ_of`, as the WSGI bridge makes it); a request
        that announces a body goes to the app, which reads it."""
        if "HTTP_TRANSFER_ENCODING" in environ or environ.get("CONTENT_LENGTH") not in (
                None, "", "0"):
            return None
        return self.unchanged_of(
            environ.get("REQUEST_METHOD", ""), environ.get("PATH_INFO", ""),
            environ.get("HTTP_IF_NONE_MATCH"), environ.get("HTTP_COOKIE"),
            environ.get("HTTP_ACCEPT_LANGUAGE"))

    def asks(self, method: str, path: str, seen: str | None) -> bool:
        """Whether a request may be an unchanged poll (its headers say so; nothing read)."""
        return bool(seen) and method in ("GET", "HEAD") and path.startswith(self.prefix)

    def unchanged_of(self, method: str, path: str, seen: str | None, cookie: str | None,
                     accept_language: str | None) -> str | None:
        """:meth:`unchanged` of a request's method, path and headers."""
        if not self.asks(method, path, seen):
            return None
        token = path[len(self.prefix):]
        if "/" in token or not token.isascii():
            return None
        cookies = parse_cookie(cookie)
        if any(name in cookies for name in self.signed_in):
            return None
        try:
            stamp = stamp_by_token(token, poll=True, engine=self.engine)
        except (NotFoundError, SQLAlchemyError):  # a fault: the app answers it
            return None
        tag = stamp.etag(browser_language(cookies, parse_accept_header(
            accept_language, LanguageAccept), self.languages))
        return held(tag, parse_etags(seen))


class PollsInTheLoop:
    """:class:`UnchangedPolls` in the ASGI server's event loop (``tonk serve``), in front of
    the app's threads: an unchanged poll is answered without a WSGI request or a thread of the
    app's, which cost several times its one indexed row (nine requests in ten at a busy table
    are such polls). A SQLite file's row is read in the loop itself (tens of microseconds; a
    reader never waits for a writer there); a database server's in a small pool of threads
    of its own, so that a server slow to answer never holds the event loop. Everything else
    goes on to ``app``."""

    def __init__(self, polls: UnchangedPolls, app: Any, threads: int = 2) -> None:
        self.polls, self.app = polls, app
        self.pool = (None if polls.engine.dialect.name == "sqlite" else
                     ThreadPoolExecutor(threads, thread_name_prefix="polls"))
        self.headers = [(name.lower().encode("latin-1"), value.encode("latin-1"))
                        for name, value in polls.headers]
        self.status = int(polls.status.split()[0])

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith(self.polls.prefix):
            environ = environ_of(scope)  # the headers as the app would read them
            if not self.polls.asks(scope["method"], scope["path"],
                                   environ.get("HTTP_IF_NONE_MATCH")):
                tag = None
            elif self.pool is None:
                tag = self.polls.unchanged(environ)
            else:
                tag = await asyncio.get_running_loop().run_in_executor(
                    self.pool, self.polls.unchanged, environ)
            if tag is not None:
                answer = list(self.headers)
                answer[self.polls.etag_at] = (b"etag", quote_etag(tag).encode("latin-1"))
                await send({"type": "http.response.start", "status": self.status,
                            "headers": answer})
                await send({"type": "http.response.body", "body": b""})
                return
        await self.app(scope, receive, send)
