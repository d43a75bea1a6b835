"""``GET /api/v1/share/{token}/stream`` and ``GET /board/{token}/stream``: the live view's and
the tournament board's changes pushed as server-sent events, in ``tonk serve``'s event loop
(no thread of the app's, none held by an open stream).

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
no word). A board's state is its event's revision and every table's, read in a thread of
its own every :data:`EVERY_SQLITE` seconds on any database (boards are few).
Past ``limit`` open streams a worker answers 503 with ``Retry-After``: the page
polls instead. When the worker is told to stop (Ctrl+C, SIGTERM) its streams end at once,
each with the end of its answer (the page comes back after ``retry:``, to whatever serves
then): granian ends a worker only once its connections have, and a stream's never does by
itself. Under a server that is not ``tonk serve`` the app's own route answers 204 (no stream
here; a board's stream 404): the browser does not ask again and the page polls.
"""
from __future__ import annotations

import asyncio
import logging
import signal
import time
from collections.abc import Awaitable, Callable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import unquote

from flask import Flask, Response
from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from ..db.models import GameSession
from ..db.storage import RETRY_AFTER
from ..extensions import db
from ..http.doors import Answers
from ..http.headers import security_headers
from ..services.errors import NotFoundError
from ..services.events import EventNotFoundError, board_event
from ..services.events import board_state as state_of_board
from ..services.sessions import Stamp, listen_for_moves, on_moved, stamp_by_token
from . import bp
from .answers import ErrorJson
from .door import api
from .params import SHARE_TOKEN, query

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
#: Where a tournament's board is (its stream: ``/board/<token>/stream``).
BOARDS = "/board/"
#: What a stream follows: a session by its id, or a board by its link's token.
Key = int | str


@api.get("/share/<token>/stream", "The same state's changes pushed (server-sent events, under "
         "`tonk serve`): each event's `id` and `data` are the session's state tag (the start "
         "of the ETag); fetch the state when one comes. A reconnect with Last-Event-ID (or "
         "?seen=) is told of a change since at once, once; a heartbeat comment every 20 s.", {
             "200": {"description": "The stream (text/event-stream).", "content": {
                 "text/event-stream": {"schema": {"type": "string"}}}},
             "204": ("This server holds no streams: poll instead.", None),
             "404": ("No session behind this link (or it was replaced).", ErrorJson),
             "503": ("The server holds as many streams as it can: poll (Retry-After says "
                     "when to try a stream again).", None)},
         (SHARE_TOKEN, query("seen", {"type": "string"}, "The state tag (or ETag) the page has."),
          {"name": "Last-Event-ID", "in": "header", "required": False,
           "schema": {"type": "string"},
           "description": "The last event's id, sent by a reconnecting browser."}))
def share_stream(token: str) -> Response:
    """Under a server that holds no streams (the tests' client, ``flask run``): 204, which
    tells the browser's EventSource not to ask again (the page polls), or 404 for a share
    link that is no link. ``tonk serve`` answers before the app (:class:`Streams`)."""
    stamp_by_token(token, poll=True)
    return Response(status=204)


@bp.app_template_filter("stream_of")
def stream_of(poll: str) -> str | None:
    """The stream a live page follows, from the address it polls (a share link's state, or
    a board's): what the page's ``<html data-stream>`` says (shared API.md, fifth part)."""
    if poll.startswith(f"{bp.url_prefix}/share/"):
        return poll + _TAIL
    if poll.startswith(BOARDS) and poll.endswith("/state"):
        return poll.removesuffix("/state") + _TAIL
    return None


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
    """What this worker's streams follow (a session by its id, a tournament's board by its
    link), its last known state, and the streams waiting on each (an
    :class:`asyncio.Event` a stream)."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        with app.app_context():
            self.engine = db.engine
        self.sqlite = self.engine.dialect.name == "sqlite"
        self.pool = None if self.sqlite else ThreadPoolExecutor(2, thread_name_prefix="stream")
        self.boards_pool = ThreadPoolExecutor(1, thread_name_prefix="boards")
        self.tags: dict[Key, str] = {}
        self.waiting: dict[Key, set[asyncio.Event]] = {}
        self.woken: set[Key] = set()
        self.wake = asyncio.Event()
        self.listening = False
        self.task: asyncio.Task[None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.deafen: Callable[[], None] | None = None
        self.stopping = False

    def start(self) -> None:
        """Start reading (once, in the worker's event loop), and hear this worker's own
        commits and PostgreSQL's word of everyone's."""
        if self.task is not None:
            return
        self.loop = asyncio.get_running_loop()
        self.task = self.loop.create_task(self.run())
        on_stop(self.loop, self.end_streams)
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

    def end_streams(self) -> None:
        """The worker stops: every stream ends (the ones still to open are answered 503)."""
        self.stopping = True
        for waiters in self.waiting.values():
            for waiter in waiters:
                waiter.set()

    def _woken(self, ids: set[int]) -> None:
        followed: set[Key] = set(ids & self.waiting.keys())
        if followed:
            self.woken |= followed
            self.wake.set()

    def follow(self, key: Key, tag: str, waiter: asyncio.Event) -> None:
        self.waiting.setdefault(key, set()).add(waiter)
        known = self.tags.get(key)
        if known is None or isinstance(key, str) or _revision(tag) > _revision(known):
            self.tags[key] = tag  # (of a session: the newer reading)

    def leave(self, key: Key, waiter: asyncio.Event) -> None:
        waiting = self.waiting.get(key)
        if waiting is not None:
            waiting.discard(waiter)
            if not waiting:
                del self.waiting[key]
                self.tags.pop(key, None)

    async def run(self) -> None:
        every = EVERY_SQLITE
        whole = boards = time.monotonic() + every  # when everything followed is read again
        while True:
            try:
                await asyncio.wait_for(self.wake.wait(), max(
                    0.0, min(whole, boards) - time.monotonic()))
            except TimeoutError:
                pass
            keys = set(self.woken)
            now = time.monotonic()
            if now >= whole:  # (however often this worker is woken)
                keys |= {k for k in self.waiting if isinstance(k, int)}
                every = EVERY_LISTENING if self.listening else EVERY_SQLITE
                whole = now + every
            if now >= boards:  # (a board's tables are not known here: read as often)
                keys |= {k for k in self.waiting if isinstance(k, str)}
                boards = now + EVERY_SQLITE
            self.wake.clear()
            self.woken.clear()
            if not keys:
                continue
            try:
                found = await self.read(keys)
            except (SQLAlchemyError, EventNotFoundError):
                log.warning("reading what the streams follow failed", exc_info=True)
                await asyncio.sleep(every)
                continue
            for key, tag in found.items():
                if self.tags.get(key, tag) != tag:
                    self.tags[key] = tag
                    for waiter in self.waiting.get(key, ()):
                        waiter.set()

    async def read(self, keys: set[Key]) -> dict[Key, str]:
        ids = [k for k in keys if isinstance(k, int)]
        boards = [k for k in keys if isinstance(k, str)]
        loop = asyncio.get_running_loop()
        found: dict[Key, str] = {}
        if ids:
            found.update(self.rows(ids) if self.pool is None else
                         await loop.run_in_executor(self.pool, self.rows, ids))
        if boards:
            found.update(await loop.run_in_executor(self.boards_pool, self.boards, boards))
        return found

    def rows(self, ids: list[int]) -> dict[Key, str]:
        found: dict[Key, str] = {}
        with self.engine.connect() as connection:
            for at in range(0, len(ids), CHUNK):
                for row in connection.execute(
                        select(*_BY_IDS).where(GameSession.id.in_(ids[at:at + CHUNK]))):
                    found[row[0]] = _tag(tuple(row))
        return found

    def boards(self, tokens: list[str]) -> dict[Key, str]:
        found: dict[Key, str] = {}
        with self.app.app_context():
            try:
                for token in tokens:
                    try:
                        found[token] = board_state(token)
                    except EventNotFoundError:
                        pass  # (a board gone: its streams hear nothing more)
            finally:
                db.session.remove()
        return found

    async def stamp(self, token: str) -> Stamp:
        if self.pool is None:
            return stamp_by_token(token, poll=True, engine=self.engine)
        return await asyncio.get_running_loop().run_in_executor(
            self.pool, lambda: stamp_by_token(token, poll=True, engine=self.engine))

    async def board(self, token: str) -> str:
        return (await asyncio.get_running_loop().run_in_executor(
            self.boards_pool, self.boards, [token]))[token]


#: How long a worker told to stop by a signal of its own waits for its server to tell it
#: too before it stops by itself (see :func:`on_stop`).
STOP_WAIT = 0.5


def on_stop(loop: asyncio.AbstractEventLoop, then: Callable[[], None]) -> None:
    """Call ``then`` in ``loop`` when the worker is told to stop (SIGINT, SIGTERM), before
    the handler its server put there (granian's, which stops taking connections and waits
    for the open ones to end). asyncio keeps one handler a signal and does not say which:
    read from the loop's own table (``_signal_handlers``, asyncio's Unix loop); with none
    there (another loop, or no handler), nothing is added.

    A Ctrl+C, or a service manager's SIGTERM to the whole group, reaches the worker and its
    server at once; a worker that stopped before its server told it is one granian counts as
    crashed (``tonk serve`` then exits 1). So the first signal runs granian's handler only
    :data:`STOP_WAIT` seconds later, and the server's own (the next) at once."""
    table = getattr(loop, "_signal_handlers", None)
    waiting: list[asyncio.TimerHandle] = []
    for number in (signal.SIGINT, signal.SIGTERM):
        theirs = table.get(number) if isinstance(table, dict) else None
        if not isinstance(theirs, asyncio.Handle) or theirs.cancelled():
            continue

        def both(theirs: asyncio.Handle = theirs) -> None:
            then()
            if not waiting:
                waiting.append(loop.call_later(STOP_WAIT, theirs._run))
            elif not waiting[0].cancelled():
                waiting[0].cancel()
                theirs._run()
        loop.add_signal_handler(number, both)


def board_state(token: str) -> str:
    """The state of a tournament's board (in an app context): the event's revision and
    every table session's, digested as its poll's ETag is before the language (any hand at
    any table, or any change to the event, moves it), or :class:`EventNotFoundError`."""
    return state_of_board(board_event(token))


class Streams:
    """ASGI: this worker's live streams (share links and boards, see the module), everything
    else to ``app``.
    In front of :class:`app.http.doors.Doors`: a stream is not a request in flight (it
    would hold one of its places for as long as the page is open); streams have their own
    ``limit``."""

    def __init__(self, flask_app: Flask, app: Any, answers: Answers, *, limit: int) -> None:
        self.app, self.answers, self.limit = app, answers, limit
        self.prefixes = (f"{bp.url_prefix}/share/", BOARDS)
        self.watch = Watch(flask_app)
        self.headers = [(b"content-type", b"text/event-stream; charset=utf-8"),
                        (b"cache-control", b"no-cache, no-transform"),
                        (b"x-accel-buffering", b"no")]  # (nginx: pass each event at once)
        self.headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in
                         security_headers(https=bool(flask_app.config.get("TONK_HTTPS")))]
        self.open = 0
        self.refused = 0

    def token_of(self, scope: Scope) -> tuple[str, str] | None:
        """(the path's prefix, the link's token) of a stream's request, or None."""
        path = str(scope.get("path", ""))
        if scope.get("type") != "http" or scope.get("method") != "GET" or not path.endswith(
                _TAIL):
            return None
        prefix = next((p for p in self.prefixes if path.startswith(p)), None)
        if prefix is None:
            return None
        token = path[len(prefix):-len(_TAIL)]
        return (prefix, token) if token and "/" not in token and token.isascii() else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        asked = self.token_of(scope)
        if asked is None:
            await self.app(scope, receive, send)
            return
        if self.open >= self.limit or self.watch.stopping:
            self.refused += 1
            await self.answers.send(scope, send, 503, RETRY_AFTER)
            return
        self.watch.start()
        prefix, token = asked
        key: Key
        try:
            if prefix == BOARDS:
                key, tag = token, await self.watch.board(token)
            else:
                stamp = await self.watch.stamp(token)
                key, tag = stamp.session_id, stamp.tag
        except (NotFoundError, EventNotFoundError, SQLAlchemyError):
            await self.app(scope, receive, send)  # the app answers it (404, or the fault)
            return
        self.open += 1
        try:
            await self.stream(scope, receive, send, key, tag)
        finally:
            self.open -= 1

    def seen(self, scope: Scope) -> str | None:
        """The state the page has: the last event's id, or the ETag it was drawn at."""
        for name, value in scope.get("headers", ()):
            if name == b"last-event-id":
                return _state(value.decode("latin-1"))
        query = scope.get("query_string", b"").decode("latin-1")
        for pair in query.split("&"):
            key, _, value = pair.partition("=")
            if key == "seen":
                return _state(unquote(value))
        return None

    async def stream(self, scope: Scope, receive: Receive, send: Send, key: Key,
                     tag: str) -> None:
        watch, waiter = self.watch, asyncio.Event()
        sent = self.seen(scope)
        watch.follow(key, tag, waiter)
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            await send({"type": "http.response.start", "status": 200,
                        "headers": self.headers})
            first = f"retry: {RETRY_MS}\n\n"
            tag = watch.tags.get(key, tag)
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
                if watch.stopping:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                    break
                waiter.clear()
                tag = watch.tags.get(key, sent)
                if tag != sent:
                    said = _event(tag).encode()
                    sent = tag
                elif time.monotonic() >= beat:
                    said = b":\n\n"
                else:
                    continue
                await send({"type": "http.response.body", "body": said, "more_body": True})
                beat = time.monotonic() + HEARTBEAT
        except asyncio.CancelledError:
            pass  # the worker stops
        except Exception:  # a send to a phone that went away meanwhile (granian's error)
            if not await _gone_soon(gone):
                log.warning("a stream ended in error", exc_info=True)
        finally:
            gone.cancel()
            watch.leave(key, waiter)


def _state(value: str) -> str:
    """A session's state tag in an ETag or event id (:func:`seen_tag`), else a board's
    state as given."""
    return seen_tag(value) or value.strip()


def _revision(tag: str) -> int:
    return int(tag.split(".")[1])


def _event(tag: str) -> str:
    return f"id: {tag}\ndata: {tag}\n\n"


async def _gone_soon(gone: asyncio.Future[None]) -> bool:
    """Whether the phone is found gone within a moment (its disconnection is read as the
    send that failed is)."""
    try:
        await asyncio.wait_for(asyncio.shield(gone), 1.0)
    except Exception:  # (the wait's timeout, or the receiving's own end)
        return gone.done()
    return True


async def _disconnected(receive: Receive) -> None:
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            return
