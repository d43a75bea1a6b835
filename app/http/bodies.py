"""Whole requests before the app: the ASGI side of ``tonk serve``, which reads a request's
body in the server's event loop and hands the app (a WSGI app, in a thread) only a request
that has fully arrived.

A WSGI app reads its body from a thread: a phone that sends its body a byte at a time would
hold that thread for as long as it trickles, and a few such phones would hold them all. Here
the body is read first, without a thread, within ``seconds`` (else 408) and up to ``limit``
bytes: past it, reading stops and the app is told the body's size, so that it refuses it as
it refuses any body too large (413 with its JSON error and its headers).
"""
from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[..., Awaitable[None]]


def whole_requests(wsgi_app: Any, threads: int, limit: int, seconds: float) -> WholeBodies:
    """``wsgi_app`` (Flask's) served to an ASGI server: run in ``threads`` threads
    (a2wsgi), each request handed over once its whole body is in."""
    from a2wsgi import WSGIMiddleware

    return WholeBodies(WSGIMiddleware(wsgi_app, workers=threads), limit, seconds)


class WholeBodies:
    """ASGI middleware: ``app`` sees a request once its whole body is in (see the module)."""

    def __init__(self, app: ASGIApp, limit: int, seconds: float) -> None:
        self.app: Any = app
        self.limit, self.seconds = limit, seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.seconds):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return  # nobody is waiting for an answer
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.limit:
                        break
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            await _refuse(send, 408, "The request took too long to arrive.")
            return
        if size > self.limit:
            chunks = []
            scope = {**scope, "headers": [
                (name, value) for name, value in scope["headers"]
                if name.lower() not in (b"content-length", b"transfer-encoding")
            ] + [(b"content-length", str(size).encode())]}
        await self.app(scope, _replay(b"".join(chunks), receive), send)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` whole, then waits for the client to go."""
    given = False

    async def replayed() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()
    return replayed


async def _refuse(send: Send, status: int, error: str) -> None:
    body = json.dumps({"error": error, "field": None}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
