"""The app's threads under ``tonk serve``: a2wsgi's, but a thread whose worker stopped while
it still answered gives up instead of waiting for the worker's event loop forever.

a2wsgi runs the WSGI app in threads that hand each piece of the answer to the event loop
and wait for it to be taken. A client that goes before its answer (a phone that gives up, a
load tool's end) leaves its thread answering; when the worker is told to stop just then,
its loop stops first, the thread waits for it without end, and Python waits for the thread
before the worker may exit: the worker ended only when granian killed it
(``app.cli.serving.STOP_SECONDS`` later). Here a thread that has waited ``CHECK`` seconds
looks whether the loop still runs, and gives up if it does not; a request still queued for
a thread when the loop stopped is not run at all (Python runs what is queued before it
exits).
"""
from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

from a2wsgi.asgi_typing import Receive, Scope, Send
from a2wsgi.wsgi import WSGIMiddleware, WSGIResponder

#: How often, in seconds, a thread waiting for the loop looks whether it still runs.
CHECK = 0.25


class LoopStopped(Exception):
    """The worker's event loop stopped while a thread of the app waited for it."""


def waited(future: concurrent.futures.Future[Any], loop: asyncio.AbstractEventLoop) -> Any:
    """``future``'s result (a coroutine run in ``loop`` from a thread), waited for as long
    as ``loop`` runs; :class:`LoopStopped` once it does not."""
    while True:
        if not loop.is_running() and not future.done():
            future.cancel()
            raise LoopStopped
        try:
            return future.result(timeout=CHECK)
        except concurrent.futures.TimeoutError:
            pass


class _Responder(WSGIResponder):
    def wsgi(self, environ: Any, start_response: Any) -> None:
        if not self.loop.is_running():  # taken from the queue once the worker stopped:
            raise LoopStopped  # nobody waits for its answer
        super().wsgi(environ, start_response)

    def send(self, message: Any) -> None:
        waited(asyncio.run_coroutine_threadsafe(self.send_queue.put(message), self.loop),
               self.loop)


class AppThreads(WSGIMiddleware):
    """a2wsgi's ``WSGIMiddleware`` whose threads give up on a stopped loop (see the
    module). The request's body is read before (:class:`app.http.bodies.WholeBodies`), so
    a thread reads it from the loop at its start, not while the worker stops."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await _Responder(self.app, self.executor, self.send_queue_size)(
                scope, receive, send)
        else:
            await super().__call__(scope, receive, send)
