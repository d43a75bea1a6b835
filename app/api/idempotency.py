"""``Idempotency-Key`` for the API: a POST, PUT or DELETE sent again with the same key and
body gets the first answer again (with ``Idempotent-Replayed: true``) and changes nothing;
the same key with another request is a 422 naming the header. How keys are kept is
:mod:`app.db.idempotency`; this is the HTTP side of it."""
from __future__ import annotations

from collections.abc import Callable

from flask import Response, request

from ..core.errors import TonkError
from ..db import idempotency
from ..db.models import User
from ..db.unit import once, take_back, unit_of_work
from .errors import BadRequest, known_error

HEADER = "Idempotency-Key"
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def idempotent(user: User, run: Callable[[], Response]) -> Response:
    """Run a write inside the write boundary, once per ``Idempotency-Key`` (when the request
    carries one)."""
    key = request.headers.get(HEADER)
    if key is None:
        with unit_of_work():
            return run()
    idempotency.check_key(key, HEADER)
    done = once(lambda: user.id, key, idempotency.fingerprint(
        request.method, request.path, request.get_data(cache=True)), HEADER, lambda: _answered(run),
        _kept)
    if isinstance(done, idempotency.Replay):
        response = Response(done.body, status=done.status, mimetype="application/json")
        if done.location:
            response.headers["Location"] = done.location
        response.headers["Idempotent-Replayed"] = "true"
        return response
    return done


def _answered(run: Callable[[], Response]) -> Response:
    """The view's answer, a refusal's included (its change rolled back): a refusal is kept for
    a retry too."""
    try:
        return run()
    except (TonkError, BadRequest) as exc:
        take_back()
        return known_error(exc)


def _kept(response: Response) -> tuple[int, str | None, str | None] | None:
    """What is kept of an answer for a retry (nothing of a server's failure)."""
    if response.status_code >= 500:
        return None
    return response.status_code, response.get_data(as_text=True), response.headers.get(
        "Location")
