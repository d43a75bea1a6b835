"""Writes the network may repeat are carried out once: a retried API call with the same
``Idempotency-Key``, a double-tapped or re-sent form with the same one-time token.

:func:`claim` takes a key for an account before the write runs. The first request with the
key goes ahead; the same request again gets the first one's answer (:class:`Replay`) and
changes nothing, waiting for it if the first is still under way; another request with the
same key is refused (:class:`KeyReusedError`). The claim is marked *applied* in the same
transaction as the change it guards (a listener on the database session), so a request
that died before its change committed can be tried again, and one whose change committed
is never carried out twice. :func:`finish` keeps the answer; :func:`release` lets a key be
used again when nothing was changed (a form shown again with its errors, a fault).
"""
from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, event, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .core.errors import TonkError
from .extensions import db
from .models import RequestKey, utcnow
from .storage import begin_write

MAX_KEY = 255
#: How long an answer is kept for a retry.
KEEP = timedelta(hours=24)
#: A claim still pending after this long belongs to a request that died (gunicorn ends a
#: request after 30 s): its change never committed, so the key may be taken again.
ABANDONED = timedelta(seconds=60)
#: How long a repeat waits for the first request's answer before it says "still under way".
WAIT_SECONDS = 8.0
_INFO = "tonk_request_claim"
_WROTE = "tonk_request_wrote"


class KeyReusedError(TonkError):
    """The key was used before for another request."""


class InProgressError(TonkError):
    """The first request with this key has not finished yet."""


@dataclass(frozen=True)
class Replay:
    """The answer the first request with the key got."""

    status: int
    body: str | None
    location: str | None


@dataclass(frozen=True)
class Claim:
    """This request holds the key: its change is the one that counts."""

    id: int


def fingerprint(*parts: bytes | str) -> str:
    """What makes two requests the same request (method, path, body)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()


def check_key(key: str, field: str) -> str:
    if not key or len(key) > MAX_KEY or not key.isprintable() or not key.isascii():
        raise TonkError(f"the {field} must be 1 to {MAX_KEY} printable ASCII characters",
                        field)
    return key


def claim(user_id: int, key: str, print_: str, field: str = "Idempotency-Key"
          ) -> Claim | Replay:
    """Take ``key`` for this request, or the answer of the first request that took it."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        begin_write()
        now = utcnow()
        if random.random() < 0.01:  # noqa: S311 - forget old answers now and then
            db.session.execute(delete(RequestKey).where(RequestKey.created_at < now - KEEP))
        row = db.session.scalar(select(RequestKey).where(
            RequestKey.user_id == user_id, RequestKey.key == key).with_for_update())
        if row is None:
            row = RequestKey(user_id=user_id, key=key, fingerprint=print_, state="pending",
                             applied=False, created_at=now)
            db.session.add(row)
            try:
                db.session.commit()
            except IntegrityError:  # the same key at the same moment: look again
                db.session.rollback()
                continue
            return _hold(row.id)
        if row.fingerprint != print_:
            db.session.rollback()
            raise KeyReusedError(f"this {field} was already used for another request: "
                                 "use a new key for a new request", field)
        if row.state == "done":
            replay = Replay(row.status or 200, row.body, row.location)
            db.session.rollback()
            return replay
        if not row.applied and _aware(row.created_at) < now - ABANDONED:
            row.created_at = now  # the first request died before its change: take over
            db.session.commit()
            return _hold(row.id)
        applied = row.applied
        db.session.rollback()
        if time.monotonic() > deadline:
            if applied:
                raise InProgressError("this request was carried out, but its answer was "
                                      "lost: look at the session to see it", field)
            raise InProgressError("the first request with this key is still under way: try "
                                  "again in a moment", field)
        time.sleep(0.05)


def _aware(moment: Any) -> Any:
    from datetime import UTC

    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _hold(claim_id: int) -> Claim:
    db.session().info[_INFO] = claim_id
    return Claim(claim_id)


def finish(claim_: Claim, status: int, body: str | None, location: str | None) -> None:
    """Keep the answer of the request that held the key."""
    db.session().info.pop(_INFO, None)
    db.session.rollback()
    db.session.execute(update(RequestKey).where(RequestKey.id == claim_.id).values(
        state="done", status=status, body=body, location=location))
    db.session.commit()


def release(claim_: Claim) -> None:
    """Give the key back when the request changed nothing, so it can be sent again."""
    db.session().info.pop(_INFO, None)
    db.session.rollback()
    db.session.execute(delete(RequestKey).where(RequestKey.id == claim_.id,
                                                RequestKey.applied.is_(False)))
    db.session.commit()


# -- marking the claim applied with the change it guards -------------------------------------

@event.listens_for(Session, "after_flush")
def _wrote(session: Session, _context: Any) -> None:
    if _INFO in session.info:
        session.info[_WROTE] = True


@event.listens_for(Session, "before_commit")
def _applied(session: Session) -> None:
    claim_id = session.info.get(_INFO)
    if claim_id is None:
        return
    if session.new or session.dirty or session.deleted:
        session.flush()
    if session.info.pop(_WROTE, False):
        session.execute(update(RequestKey).where(RequestKey.id == claim_id)
                        .values(applied=True))


@event.listens_for(Session, "after_rollback")
def _forget(session: Session) -> None:
    session.info.pop(_WROTE, None)
