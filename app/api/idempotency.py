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
from ..db.storage import one_commit
from ..extensions import db
from .errors import BadRequest, known_error

HEADER = "Idempotency-Key"
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def idempotent(user: User, run: Callable[[], Response]) -> Response:
    """Run a write once per ``Idempotency-Key`` (when the request carries one)."""
    key = request.headers.get(HEADER)
    if request.method not in WRITES or key is None:
        return run()
    idempotency.check_key(key, HEADER)
    held = idempotency.claim(user.id, key, idempotency.fingerprint(
        request.method, request.path, request.get_data(cache=True)))
    if isinstance(held, idempotency.Replay):
        response = Response(held.body, status=held.status, mimetype="application/json")
        if held.location:
            response.headers["Location"] = held.location
        response.headers["Idempotent-Replayed"] = "true"
        return response
    try:
        with one_commit():  # the change commits once, below, with its key and its answer
            try:
                response = run()
            except (TonkError, BadRequest) as exc:
                db.session.rollback()
                response = known_error(exc)
        if response.status_code >= 500:
            idempotency.release(held)
        else:
            idempotency.finish(held, response.status_code, response.get_data(as_text=True),
                               response.headers.get("Location"))
    except BaseException:
        idempotency.release(held)
        raise
    return response
