"""Whole requests before the app: the ASGI side of ``tonk serve``, which reads a request's
body in the server's event loop and hands the app (a WSGI app, in a thread) only a request
that has fully arrived; and the body limit of each route, which that reader and the app
both keep.

A WSGI app reads its body from a thread: a phone that sends its body a byte at a time would
hold that thread for as long as it trickles, and a few such phones would hold them all. Here
the body is read first, without a thread, up to the limit of the route it goes to
(``MAX_CONTENT_LENGTH``, 2 MB, unless the view says otherwise with :func:`body_limit`, as
the import page does): past it, reading stops and the app is told the body's size, so that
it refuses it as it refuses any body too large (:func:`too_large`: 413 saying the limit,
with its headers). A body must arrive within ``seconds``, and a large one at no less than
``BODY_RATE`` bytes a second besides (else 408); more than ``IN_MEMORY`` bytes of it wait
in a temporary file, not in memory. A body the server cannot read (a chunk that is no
chunk) is a 400.
"""
from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Callable
from functools import wraps
from typing import IO, Any, TypeVar

from flask import Flask, Response, current_app, request
from flask_babel import gettext as _
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from .doors import Answers, ASGIApp, Message, Receive, Scope, Send
from .errors import error_response, is_api_request

#: The slowest a large body may arrive, past the first ``seconds``: 50 kB/s, a phone on a
#: poor signal (a 10 MB export then has 30 s and 200 s more).
BODY_RATE = 50_000
#: Bytes of a body kept in memory; the rest waits in a temporary file.
IN_MEMORY = 1024 * 1024
#: The size of the pieces a spooled body is handed on in.
PIECE = 256 * 1024

View = TypeVar("View", bound=Callable[..., Any])


def body_limit(setting: str, default: int) -> Callable[[View], View]:
    """Let a view take bodies up to ``app.config[setting]`` bytes (``default`` when not
    set) instead of ``MAX_CONTENT_LENGTH``: for Flask, and for the body reader in front of
    the app (:func:`route_limits`). Place it right under the route's decorator."""
    def mark(view: View) -> View:
        @wraps(view)
        def limited(*args: Any, **kwargs: Any) -> Any:
            request.max_content_length = current_app.config.get(setting, default)
            return view(*args, **kwargs)
        limited.body_limit = (setting, default)  # type: ignore[attr-defined]
        return limited  # type: ignore[return-value]
    return mark


def route_limits(app: Flask) -> Callable[[str, str], int]:
    """The body limit of the route a request goes to, by its method and path (the app's
    ``MAX_CONTENT_LENGTH`` unless the view is marked with :func:`body_limit`)."""
    adapter = app.url_map.bind("localhost")
    default = int(app.config["MAX_CONTENT_LENGTH"])

    def limit_of(method: str, path: str) -> int:
        try:
            endpoint, _args = adapter.match(path, method)
        except HTTPException:  # no such route (404, 405, a redirect): the app says so
            return default
        mark = getattr(app.view_functions.get(str(endpoint)), "body_limit", None)
        return default if mark is None else int(app.config.get(mark[0], mark[1]))
    return limit_of


def in_words(size: int) -> str:
    """A body limit as people read it: ``2 MB``, ``256 MB`` (MiB, as the limits are set)."""
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.3g} MB"
    return f"{max(1, round(size / 1024))} kB"


def too_large(exc: RequestEntityTooLarge) -> Response | HTTPException:
    """The app's 413 (registered in :mod:`app.errors`): what was sent is past the limit of
    the page or API route it went to, which it names."""
    limit = request.max_content_length or current_app.config.get("MAX_CONTENT_LENGTH")
    said = (_("What was sent is too large: this takes at most %(size)s.",
              size=in_words(int(limit))) if limit else str(exc.description))
    if is_api_request():
        return error_response(said, 413)
    return RequestEntityTooLarge(description=said)


def whole_requests(wsgi_app: Any, threads: int, limit_of: Callable[[str, str], int],
                   seconds: float, answers: Answers) -> WholeBodies:
    """``wsgi_app`` (Flask's) served to an ASGI server: run in ``threads`` threads
    (a2wsgi's, :mod:`app.http.threads`), each request handed over once its whole body is
    in."""
    from .threads import AppThreads

    return WholeBodies(AppThreads(wsgi_app, workers=threads), limit_of, seconds, answers)


class WholeBodies:
    """ASGI middleware: ``app`` sees a request once its whole body is in (see the module)."""

    def __init__(self, app: ASGIApp, limit_of: Callable[[str, str], int], seconds: float,
                 answers: Answers) -> None:
        self.app: Any = app
        self.limit_of, self.seconds, self.answers = limit_of, seconds, answers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_of(scope["method"], scope["path"])
        body: IO[bytes] = tempfile.SpooledTemporaryFile(IN_MEMORY)
        try:
            try:
                size = await self._read(receive, body, limit)
            except TimeoutError:
                await self.answers.send(scope, send, 408)
                return
            if size is None:  # granian could not read the body (a chunk that is no chunk),
                await self.answers.send(scope, send, 400)  # or the client went: then
                return  # the answer goes nowhere
            if size > limit:
                body.truncate(0)
                scope = {**scope, "headers": [
                    (name, value) for name, value in scope["headers"]
                    if name.lower() not in (b"content-length", b"transfer-encoding")
                ] + [(b"content-length", str(size).encode())]}
                size = 0
            body.seek(0)
            await self.app(scope, _replay(body, size, receive), send)
        finally:
            body.close()

    async def _read(self, receive: Receive, body: IO[bytes], limit: int) -> int | None:
        """Read the body into ``body`` up to ``limit``; its size (more than ``limit`` when
        it is past it), or None when it cannot be read (granian says a body it cannot read
        is a disconnect)."""
        size = 0
        started = time.monotonic()
        while True:
            left = started + self.seconds + size / BODY_RATE - time.monotonic()
            if left <= 0:
                raise TimeoutError
            async with asyncio.timeout(left):
                message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return size
            body.write(chunk)
            if not message.get("more_body", False):
                return size


def _replay(body: IO[bytes], size: int, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` (``size`` bytes) in pieces, then waits for the
    client to go."""
    given = 0
    done = False

    async def replayed() -> Message:
        nonlocal given, done
        if done:
            return await receive()
        piece = body.read(PIECE)
        given += len(piece)
        done = given >= size
        return {"type": "http.request", "body": piece, "more_body": not done}
    return replayed
