"""The front door of ``tonk serve``: the ASGI layer in front of everything else in a worker,
which keeps one place from crowding out the rest and answers what the app never sees.

- Requests in flight (their body still arriving, waiting for a thread, being answered) are
  counted per worker: past ``busy`` a new one gets 503 with ``Retry-After`` at once, and
  past ``per_address`` from one address (the client's, or behind ``--proxy`` the address
  the proxy names) 429 with ``Retry-After``, so that one phone, script or network cannot
  hold what every other phone needs. (Connections that send nothing are the server's to
  cut: ``tonk serve``'s HTTP/1 header timeout, see :mod:`app.cli.serving`.)
- An error that escapes everything behind it, or no answer at all, is a 500 with the
  security headers, not the server's bare one.

Its answers (:class:`Answers`) carry the security headers, are JSON under ``/api/`` and
plain text elsewhere, in the reader's language as the browser says it
(:func:`app.http.language.browser_language`), made once per worker from the catalogue.
"""
from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from flask import Flask
from flask_babel import force_locale
from flask_babel import gettext as _
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header, parse_cookie

from ..db.storage import RETRY_AFTER
from .errors import API_PREFIX
from .headers import security_headers
from .language import browser_language

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[..., Awaitable[None]]

log = logging.getLogger(__name__)


def environ_of(scope: Scope) -> dict[str, Any]:
    """A request's WSGI environ made from its ASGI scope, exactly as the WSGI bridge that
    hands it to the app makes it (a2wsgi; a repeated header joined with ``,``): the one
    reading of a request's headers for the app and for whatever answers before it."""
    from a2wsgi.wsgi import build_environ

    return dict(build_environ(scope, None))  # type: ignore[arg-type]  # (no body read)


def _words() -> dict[int, str]:
    """What each of the front's answers says, in the current locale."""
    return {400: _("The request's body could not be read. Send it again."),
            408: _("The request took too long to arrive. Send it again."),
            429: _("Too many requests at once from your address. Try again in a few "
                   "seconds."),
            500: _("Something went wrong on the server. Try again."),
            503: _("The server is busy. Try again in a few seconds.")}


class Answers:
    """The front's own answers, in each of the app's languages (made in ``app``'s context
    once, when a worker starts)."""

    def __init__(self, app: Flask) -> None:
        self.languages = tuple(app.config["LANGUAGES"])
        self.https = bool(app.config.get("TONK_HTTPS"))
        self.words: dict[str, dict[int, str]] = {}
        with app.app_context():
            for language in self.languages:
                with force_locale(language):
                    self.words[language] = _words()

    def language(self, scope: Scope) -> str:
        """The reader's language as the browser says it (cookie, then Accept-Language)."""
        environ = environ_of(scope)
        return str(browser_language(
            parse_cookie(environ.get("HTTP_COOKIE")),
            parse_accept_header(environ.get("HTTP_ACCEPT_LANGUAGE"), LanguageAccept),
            self.languages))

    async def send(self, scope: Scope, send: Send, status: int,
                   retry_after: int | None = None) -> None:
        """Answer ``status`` with its words, the security headers, and the connection
        closed after it."""
        said = self.words[self.language(scope)][status]
        if str(scope.get("path", "")).startswith(API_PREFIX):
            body, kind = json.dumps({"error": said}).encode(), "application/json"
        else:
            body, kind = (said + "\n").encode(), "text/plain; charset=utf-8"
        headers = [(b"content-type", kind.encode()),
                   (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
        if retry_after is not None:
            headers.append((b"retry-after", str(retry_after).encode()))
        headers += [(name.lower().encode(), value.encode())
                    for name, value in security_headers(https=self.https)]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class Doors:
    """ASGI middleware: at most ``busy`` requests in flight in this worker and
    ``per_address`` from one address, and no error without the security headers (see the
    module). ``proxy``: the address is the last one of ``X-Forwarded-For`` (the one the
    trusted proxy added), as the app reads it behind ``--proxy``."""

    def __init__(self, app: ASGIApp, answers: Answers, *, busy: int, per_address: int,
                 proxy: bool = False) -> None:
        self.app, self.answers = app, answers
        self.busy, self.per_address, self.proxy = busy, per_address, proxy
        self.in_flight = 0
        self.by_address: Counter[str] = Counter()

    def address(self, scope: Scope) -> str:
        if self.proxy:
            forwarded = [value for name, value in scope.get("headers", [])
                         if name == b"x-forwarded-for"]
            if forwarded:
                return str(forwarded[-1].decode("latin-1").rsplit(",", 1)[-1].strip())
        client = scope.get("client")
        return str(client[0]) if client else ""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        address = self.address(scope)
        if self.in_flight >= self.busy:
            await self.answers.send(scope, send, 503, RETRY_AFTER)
            return
        if self.by_address[address] >= self.per_address:
            await self.answers.send(scope, send, 429, RETRY_AFTER)
            return
        self.in_flight += 1
        self.by_address[address] += 1
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)
        try:
            await self.app(scope, receive, sending)
        except Exception:
            if started:  # half an answer: the server ends the connection
                raise
            log.exception("error answering %s %s", scope.get("method"), scope.get("path"))
            await self.answers.send(scope, send, 500)
        else:
            if not started:  # no answer at all: granian's would be a bare 500
                log.error("no answer to %s %s", scope.get("method"), scope.get("path"))
                await self.answers.send(scope, send, 500)
        finally:
            self.in_flight -= 1
            self.by_address[address] -= 1
            if not self.by_address[address]:
                del self.by_address[address]
