"""Writes the network may repeat are carried out once: a retried API call with the same
``Idempotency-Key``, a double-tapped or re-sent form with the same one-time token.

:func:`claim` takes a key for an account in the write transaction of the change it guards:
the key's row commits together with the change and the answer kept for a retry
(:func:`keep`), or not at all; the write boundary (:func:`app.db.unit.once`) does that, in
one commit. So a request that dies half-way leaves no trace and may simply be sent again,
while one whose change committed is never carried out twice. Meanwhile a repeat waits:
on PostgreSQL on the key's unique index, on SQLite for the write lock. The same request
again gets the first one's answer (:class:`Replay`); another request with the same key is
refused (:class:`KeyReusedError`). :func:`release` gives the key back when the request
failed.
"""
from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update

from ..core.errors import TonkError
from ..core.messages import Message
from ..extensions import db
from .models import RequestKey, utcnow
from .storage import KEY_ROW, begin_write, conflict_insert

_KEYS = RequestKey.__table__
#: Asked on every write with a key: its row, the key's claim, the answer kept, as plain
#: statements built once, run on the session's connection (no ORM object is made for a key:
#: nothing reads one but these).
_FIND = select(_KEYS.c.fingerprint, _KEYS.c.state, _KEYS.c.status, _KEYS.c.body,
               _KEYS.c.location).where(_KEYS.c.user_id == bindparam("who"),
                                       _KEYS.c.key == bindparam("which"))
_CLAIM = insert(_KEYS).execution_options(**KEY_ROW)
_KEEP = update(_KEYS).where(_KEYS.c.user_id == bindparam("who"),
                            _KEYS.c.key == bindparam("which")).values(
    state="done", status=bindparam("answer_status"), body=bindparam("answer_body"),
    location=bindparam("answer_location")).execution_options(**KEY_ROW)

MAX_KEY = 255
#: How long an answer that changed nothing (a refusal, 4xx) is kept for a retry. A key whose
#: request changed something (a hand, a payment, …) is kept as long as the account: as long
#: as what it made, so a phone offline for days that sends again gets the first answer.
KEEP = timedelta(hours=24)
#: How long a repeat waits for the answer of a first request whose change has committed.
WAIT_SECONDS = 8.0


class KeyReusedError(TonkError):
    """The key was used before for another request."""


class InProgressError(TonkError):
    """The first request with this key has not finished yet, or its answer was lost."""


@dataclass(frozen=True)
class Replay:
    """The answer the first request with the key got."""

    status: int
    body: str | None
    location: str | None


@dataclass(frozen=True)
class Claim:
    """This request holds the key: its change is the one that counts."""

    user_id: int
    key: str
    fingerprint: str


def fingerprint(*parts: bytes | str) -> str:
    """What makes two requests the same request (method, path, body)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()


def check_key(key: str, field: str) -> str:
    if not key or len(key) > MAX_KEY or not key.isprintable() or not key.isascii():
        raise TonkError(Message("request_key.format", field=field, most=MAX_KEY),
                        field)
    return key


def forget_refusals() -> None:
    """Forget the answers older than :data:`KEEP` of requests that changed nothing (in the
    caller's transaction). Keys that made something, or may have (``pending``: committed
    with their change, answer lost), stay: forgetting one would let a late retry make it
    twice."""
    db.session.execute(delete(RequestKey).where(
        RequestKey.created_at < utcnow() - KEEP, RequestKey.state == "done",
        RequestKey.status >= 400))


def _row(user_id: int, key: str) -> Any:
    return db.session.connection().execute(_FIND, {"who": user_id, "which": key}).first()


@cache
def _take(dialect: str) -> Any:
    """The claim of a key: its row inserted unless the account has one with that key
    already (then nothing, and no error: :func:`claim` reads the one there; what tells
    which is the id it returns, not the row count, which the driver does not give for
    it), built once for a database (PostgreSQL or SQLite)."""
    return conflict_insert(dialect, _KEYS).on_conflict_do_nothing(
        index_elements=[_KEYS.c.user_id, _KEYS.c.key]).returning(_KEYS.c.id).execution_options(
        **KEY_ROW)


def claim(user_id: int, key: str, print_: str, field: str = "Idempotency-Key"
          ) -> Claim | Replay:
    """Take ``key`` for this request (uncommitted: it commits with the change), or the
    answer of the first request that took it. A key nobody holds is taken by one
    statement; a repeat under way holds the key (on PostgreSQL the insert waits for its
    end, on SQLite the write lock does), and its row is read once it has ended."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        begin_write()
        if random.random() < 0.01:  # noqa: S311 - forget old refusals now and then
            forget_refusals()
        connection = db.session.connection()
        if connection.execute(_take(connection.dialect.name), {
                "user_id": user_id, "key": key, "fingerprint": print_,
                "state": "pending", "created_at": utcnow()}).first() is not None:
            return Claim(user_id, key, print_)
        row = _row(user_id, key)
        if row is None:  # … which gave it back meanwhile (or it was forgotten): again
            db.session.rollback()
            continue
        if row.fingerprint != print_:
            db.session.rollback()
            raise KeyReusedError(Message("request_key.reused", field=field), field)
        if row.state == "done":
            replay = Replay(row.status or 200, row.body, row.location)
            db.session.rollback()
            return replay
        db.session.rollback()  # its change committed; its answer is on its way
        if time.monotonic() > deadline:
            raise InProgressError(Message("request_key.lost"), field)
        time.sleep(0.05)


def keep(held: Claim, status: int, body: str | None, location: str | None, *,
         alone: bool = False) -> None:
    """Keep the answer of the request that held the key, on the key's row, in the
    transaction of its change (the write boundary commits them together). ``alone``: the
    request changed nothing and its transaction was rolled back, its claim with it: the
    answer is kept on a row of its own (its commit the boundary's)."""
    answer = {"who": held.user_id, "which": held.key, "answer_status": status,
              "answer_body": body, "answer_location": location}
    done = db.session.connection().execute(_KEEP, answer)
    if alone and not done.rowcount:
        db.session.connection().execute(_CLAIM, {
            "user_id": held.user_id, "key": held.key, "fingerprint": held.fingerprint,
            "state": "done", "status": status, "body": body, "location": location,
            "created_at": utcnow()})


def release(held: Claim) -> None:
    """The request failed: whatever it had not committed, its claim included, is undone,
    so the key can be sent again (a claim that committed with its change stays)."""
    db.session.rollback()
