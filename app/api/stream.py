"""``GET /api/v1/share/{token}/stream``: the live view's changes pushed as server-sent events,
in ``tonk serve``'s event loop (no thread of the app's, none held by an open stream).

A stream says only "the session is now at state T" (``id:`` and ``data:`` are the state's
tag, :attr:`app.services.sessions.Stamp.tag`, whose revision moves with every change): the
page then fetches its live part once, as after a poll that found a change. A stream opens
with the state the page has (``?seen=`` its ETag) or, on a reconnect, the last event it had
(``Last-Event-ID``, which the browser sends itself): if the session moved meanwhile the
event comes at once, so a dropped stream misses nothing, and one that missed nothing is
told nothing twice. A comment every :data:`HEARTBEAT` seconds keeps proxies from closing
an idle stream, and ``retry:`` says how soon to come back after one drops.

One :class:`Watch` per worker reads the revisions of every session its streams follow in
one statement, :data:`EVERY_SQLITE` seconds apart on SQLite (where the workers of one server
share a file and nothing else: a SQLite file's indexed rows read in the loop cost
microseconds each), and wakes at once when this worker commits a change or PostgreSQL
notifies one from any worker or server (:mod:`app.services.sessions.notify`), reading only
then (and every :data:`EVERY_LISTENING` seconds, in case a change came by a path that sends
no word). Past ``limit`` open streams a worker answers 503 with ``Retry-After``: the page
polls instead. Under a server that is not ``tonk serve`` the app's own route answers 204
(no stream here): the browser does not ask again and the page polls.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import unquote

from flask import Flask, Response
from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from ..db.models import GameSession
from ..db.storage import RETRY_AFTER
from ..extensions import db
from ..http.doors import Answers
from ..http.headers import security_headers
from ..services.errors import NotFoundError
from ..services.sessions import Stamp, listen_for_moves, on_moved, stamp_by_token
from . import bp

Scope = MutableMapping[str, Any]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]

#: Seconds between two readings of the followed sessions' revisions on SQLite.
EVERY_SQLITE = 0.15
#: The same where PostgreSQL's NOTIFY wakes the streams (a change by a bulk statement, or a
#: lost LISTEN connection, is still seen within this).
EVERY_LISTENING = 1.0
#: Seconds between two heartbeat comments on an idle stream (a proxy may close a
#: connection silent for a minute or less; granian does not, once an answer streams).
HEARTBEAT = 20.0
#: What ``retry:`` tells the browser: milliseconds before it reconnects a dropped stream.
RETRY_MS = 2000
#: Session ids per statement (well under SQLite's bound parameters).
CHUNK = 500

log = logging.getLogger(__name__)
_TAIL = "/stream"


@bp.get("/share/<token>/stream")
def share_stream(token: str) -> Response:
    """Under a server that holds no streams (the tests' client, ``flask run``): 204, which
    tells the browser's EventSource not to ask again (the page polls), or 404 for a share
    link that is no link. ``tonk serve`` answers before the app (:class:`Streams`)."""
    stamp_by_token(token, poll=True)
    return Response(status=204)


def seen_tag(value: str | None) -> str | None:
    """The state tag in an ETag (``"id.revision.ms.lang"``, quoted or weak) or in an event's
    id (the tag itself); None for anything else."""
    if not value:
        return None
    value = value.strip()
    if value.startswith("W/"):
        value = value[2:]
    parts = value.strip('"').split(".")
    if len(parts) < 3 or not all(p.isdigit() for p in parts[:3]):
        return None
    return ".".join(parts[:3])


def _tag(row: tuple[Any, ...]) -> str:
    session_id, revision, updated_at, created_at = row
    return Stamp(session_id, revision, updated_at or created_at).tag


_BY_IDS = (GameSession.id, GameSession.revision, GameSession.updated_at,
           GameSession.created_at)


class Watch:
    """The sessions this worker's streams follow, their last known state, and the
    streams waiting on each (an :class:`asyncio.Event` a stream)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"
        self.pool = None if self.sqlite else ThreadPoolExecutor(2, thread_name_prefix="stream")
        self.tags: dict[int, str] = {}
        self.waiting: dict[int, set[asyncio.Event]] = {}
        self.woken: set[int] = set()
        self.wake = asyncio.Event()
        self.listening = False
        self.task: asyncio.Task[None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.deafen: Callable[[], None] | None = None

    def start(self) -> None:
        """Start reading (once, in the worker's event loop), and hear this worker's own
        commits and PostgreSQL's word of everyone's."""
        if self.task is not None:
            return
        self.loop = asyncio.get_running_loop()
        self.task = self.loop.create_task(self.run())
        self.deafen = on_moved(self.heard)
        try:
            self.listening = listen_for_moves(self.engine, self.heard, self.deaf) is not None
        except Exception:  # (the database's own error, as its driver names it)
            log.warning("no LISTEN for live updates: reading revisions instead", exc_info=True)

    def stop(self) -> None:
        """Stop reading and hearing (a worker's watch runs as long as the worker)."""
        if self.deafen is not None:
            self.deafen()
        if self.task is not None:
            self.task.cancel()

    def heard(self, ids: set[int]) -> None:
        """Sessions moved on (called from any thread)."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._woken, ids)

    def deaf(self) -> None:
        self.listening = False

    def _woken(self, ids: set[int]) -> None:
        followed = ids & self.waiting.keys()
        if followed:
            self.woken |= followed
            self.wake.set()

    def follow(self, session_id: int, tag: str, waiter: asyncio.Event) -> None:
        self.waiting.setdefault(session_id, set()).add(waiter)
        known = self.tags.get(session_id)
        if known is None or _revision(tag) > _revision(known):  # (the newer reading)
            self.tags[session_id] = tag

    def leave(self, session_id: int, waiter: asyncio.Event) -> None:
        waiting = self.waiting.get(session_id)
        if waiting is not None:
            waiting.discard(waiter)
            if not waiting:
                del self.waiting[session_id]
                self.tags.pop(session_id, None)

    async def run(self) -> None:
        while True:
            every = EVERY_LISTENING if self.listening else EVERY_SQLITE
            try:
                await asyncio.wait_for(self.wake.wait(), every)
                ids = list(self.woken)
            except TimeoutError:
                ids = list(self.waiting)
            self.wake.clear()
            self.woken.clear()
            if not ids:
                continue
            try:
                rows = await self.read(ids)
            except SQLAlchemyError:
                log.warning("reading the followed sessions failed", exc_info=True)
                await asyncio.sleep(every)
                continue
            for row in rows:
                tag = _tag(row)
                if self.tags.get(row[0], tag) != tag:
                    self.tags[row[0]] = tag
                    for waiter in self.waiting.get(row[0], ()):
                        waiter.set()

    async def read(self, ids: list[int]) -> list[tuple[Any, ...]]:
        if self.pool is None:
            return self.rows(ids)
        return await asyncio.get_running_loop().run_in_executor(self.pool, self.rows, ids)

    def rows(self, ids: list[int]) -> list[tuple[Any, ...]]:
        found: list[tuple[Any, ...]] = []
        with self.engine.connect() as connection:
            for at in range(0, len(ids), CHUNK):
                found += [tuple(r) for r in connection.execute(
                    select(*_BY_IDS).where(GameSession.id.in_(ids[at:at + CHUNK])))]
        return found

    async def stamp(self, token: str) -> Stamp:
        if self.pool is None:
            return stamp_by_token(token, poll=True, engine=self.engine)
        return await asyncio.get_running_loop().run_in_executor(
            self.pool, lambda: stamp_by_token(token, poll=True, engine=self.engine))


class Streams:
    """ASGI: the share streams of this worker (see the module), everything else to ``app``.
    In front of :class:`app.http.doors.Doors`: a stream is not a request in flight (it
    would hold one of its places for as long as the page is open); streams have their own
    ``limit``."""

    def __init__(self, flask_app: Flask, app: Any, answers: Answers, *, limit: int) -> None:
        self.app, self.answers, self.limit = app, answers, limit
        self.prefix = f"{bp.url_prefix}/share/"
        with flask_app.app_context():
            self.watch = Watch(db.engine)
        self.headers = [(b"content-type", b"text/event-stream; charset=utf-8"),
                        (b"cache-control", b"no-cache, no-transform"),
                        (b"x-accel-buffering", b"no")]  # (nginx: pass each event at once)
        self.headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in
                         security_headers(https=bool(flask_app.config.get("TONK_HTTPS")))]
        self.open = 0
        self.refused = 0

    def token_of(self, scope: Scope) -> str | None:
        path = str(scope.get("path", ""))
        if (scope.get("type") != "http" or scope.get("method") != "GET"
                or not path.startswith(self.prefix) or not path.endswith(_TAIL)):
            return None
        token = path[len(self.prefix):-len(_TAIL)]
        return token if token and "/" not in token and token.isascii() else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = self.token_of(scope)
        if token is None:
            await self.app(scope, receive, send)
            return
        if self.open >= self.limit:
            self.refused += 1
            await self.answers.send(scope, send, 503, RETRY_AFTER)
            return
        self.watch.start()
        try:
            stamp = await self.watch.stamp(token)
        except (NotFoundError, SQLAlchemyError):  # the app answers it (404, or the fault)
            await self.app(scope, receive, send)
            return
        self.open += 1
        try:
            await self.stream(scope, receive, send, stamp)
        finally:
            self.open -= 1

    def seen(self, scope: Scope) -> str | None:
        for name, value in scope.get("headers", ()):
            if name == b"last-event-id":
                return seen_tag(value.decode("latin-1"))
        query = scope.get("query_string", b"").decode("latin-1")
        for pair in query.split("&"):
            key, _, value = pair.partition("=")
            if key == "seen":
                return seen_tag(unquote(value))
        return None

    async def stream(self, scope: Scope, receive: Receive, send: Send, stamp: Stamp) -> None:
        watch, waiter = self.watch, asyncio.Event()
        sent = self.seen(scope)
        watch.follow(stamp.session_id, stamp.tag, waiter)
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            await send({"type": "http.response.start", "status": 200,
                        "headers": self.headers})
            first = f"retry: {RETRY_MS}\n\n"
            tag = watch.tags.get(stamp.session_id, stamp.tag)
            if tag != sent:
                first += _event(tag)
                sent = tag
            await send({"type": "http.response.body", "body": first.encode(),
                        "more_body": True})
            beat = time.monotonic() + HEARTBEAT
            while not gone.done():
                woke = asyncio.ensure_future(waiter.wait())
                await asyncio.wait({woke, gone}, timeout=max(0.0, beat - time.monotonic()),
                                   return_when=asyncio.FIRST_COMPLETED)
                woke.cancel()
                if gone.done():
                    break
                waiter.clear()
                tag = watch.tags.get(stamp.session_id, sent)
                if tag != sent:
                    said = _event(tag).encode()
                    sent = tag
                elif time.monotonic() >= beat:
                    said = b":\n\n"
                else:
                    continue
                await send({"type": "http.response.body", "body": said, "more_body": True})
                beat = time.monotonic() + HEARTBEAT
        except (OSError, RuntimeError, asyncio.CancelledError):
            pass  # the phone went away mid-send: nothing to answer
        finally:
            gone.cancel()
            watch.leave(stamp.session_id, waiter)


def _revision(tag: str) -> int:
    return int(tag.split(".")[1])


def _event(tag: str) -> str:
    return f"id: {tag}\ndata: {tag}\n\n"


async def _disconnected(receive: Receive) -> None:
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            return
