"""The write boundary: the one place a change reaches the database.

Services change rows and flush; they never commit. Every web view, API view and command
that changes something runs its change inside :func:`unit_of_work` (or :func:`once`, the
same with a key that makes a repeat of the request change nothing): it begins the write
(on SQLite ``BEGIN IMMEDIATE``, the one write lock taken before anything is read; on
PostgreSQL the rows are locked as they are read, and a lock waited for past its timeout
answers 503), runs the change, and commits once. A domain error (or any other) rolls the
whole change back and goes on to the one error handler (:mod:`app.http.errors`).

:func:`once` is the boundary of a write the network may repeat (an API call's
``Idempotency-Key``, a form's one-time token, the phone's outbox): the key is claimed in the
change's transaction (:func:`app.db.idempotency.claim`), and the key, the change and the
answer kept for a retry commit together, or none of them.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

from flask import Flask, current_app, request
from sqlalchemy.exc import DBAPIError, IntegrityError

from ..extensions import db
from . import idempotency
from .storage import begin_write, changed_in_transaction

log = logging.getLogger(__name__)
R = TypeVar("R")
#: In a database session's info while a boundary is open: a boundary inside it (a page's
#: form run by a view that is itself a boundary) joins it, and its commit is the outer one's.
_OPEN = "tonk_unit_open"


@contextmanager
def unit_of_work(*, begin: bool = True) -> Iterator[None]:
    """Run the change inside as one transaction: begun to write, committed once at the end,
    rolled back (and the error raised on) if anything inside fails. Inside another
    boundary, it is that one's. ``begin`` false: the change takes the write lock itself
    when it comes to write (an import, which checks every hand first, meanwhile letting
    the scorekeepers record)."""
    session = db.session()
    if session.info.get(_OPEN):
        yield
        return
    if begin:
        begin_write()
    session.info[_OPEN] = True
    try:
        yield
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.info.pop(_OPEN, None)


def take_back() -> None:
    """Give up what the request has changed so far (a refusal shown beside its field, a
    form's token refused, a night the server did not take): nothing of it is kept, and the
    boundary around it commits nothing of it; the handlers of a database fault, before they
    answer. They call this, never the database session's rollback: the write boundary is the
    one place that ends a change."""
    db.session.rollback()


class Savepoint:
    """A part of the change under way that can be taken back alone (a savepoint): an
    import's rows, given up when the import is refused, and nothing else of the request."""

    def __init__(self) -> None:
        self._nested = db.session.begin_nested()

    def keep(self) -> None:
        """Keep it in the change under way (the boundary's commit keeps it)."""
        self._nested.commit()

    def take_back(self) -> None:
        """Give up what was written since it began, and nothing before."""
        self._nested.rollback()


def changed() -> bool:
    """Whether the transaction under way has changed something (a row inserted, updated or
    deleted, by the ORM's flush or a plain statement) besides a key's own row."""
    session = db.session()
    if not session.in_transaction():
        return False
    session.flush()
    return changed_in_transaction(session.connection())


#: What :func:`once` keeps of a request's answer for a retry: (status, body, location).
Answer = tuple[int, "str | None", "str | None"]


def once(owner: Callable[[], int], key: str, print_: str, field: str, run: Callable[[], R],
         answer: Callable[[R], Answer | None]) -> R | idempotency.Replay:
    """Run ``run`` once per ``key`` of an account (``owner()``, its id, asked once the write
    has begun): the first request with the key claims it,
    runs the change and keeps ``answer(result)`` for a retry, all in one commit (None: the
    request failed: nothing is kept, and the key can be sent again). A repeat gets the
    first one's :class:`~app.db.idempotency.Replay` and changes nothing; the key used for
    another request raises :class:`~app.db.idempotency.KeyReusedError`.

    When the change saved nothing (a refusal), its answer is kept all the same, on a row of
    its own after the change is rolled back."""
    session = db.session()
    begin_write()
    held = idempotency.claim(owner(), key, print_, field)
    if isinstance(held, idempotency.Replay):
        return held
    session.info[_OPEN] = True
    try:
        result = run()
        kept = answer(result)
        if kept is None:
            session.rollback()
        elif changed():  # the change waits in the transaction: kept with it
            idempotency.keep(held, *kept)
            session.commit()
        else:
            session.rollback()
            _keep_alone(held, kept)
    except BaseException:
        session.rollback()
        raise
    finally:
        session.info.pop(_OPEN, None)
    return result


def _keep_alone(held: idempotency.Claim, kept: Answer) -> None:
    """Keep the answer of a request that changed nothing, on its key's row of its own."""
    try:
        begin_write()
        idempotency.keep(held, *kept, alone=True)
        db.session.commit()
    except IntegrityError:  # a repeat got in meanwhile and carried it out: its answer stands
        db.session.rollback()


def note(change: Callable[[], None]) -> bool:
    """A small change of its own beside a request that reads (a token's last use, the
    language chosen by a link), committed at once: whether it was."""
    try:
        with unit_of_work():
            change()
    except DBAPIError:  # a busy or read-only database: the read goes on without it
        return False
    return True


def writes(view: Callable[..., R]) -> Callable[..., R]:
    """Run a view that changes something inside the write boundary (when it is sent a
    change: a GET or HEAD only reads): what it changes commits once, when it returns;
    nothing of it if it raises."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> R:
        if request.method in ("GET", "HEAD"):
            return view(*args, **kwargs)
        with unit_of_work():
            return view(*args, **kwargs)

    return wrapper


class ChangeOutsideBoundary(RuntimeError):
    """A request changed rows outside the write boundary: they were never saved."""


def guard(app: Flask) -> None:
    """A request that leaves a change outside the write boundary has lost it (nothing
    commits it): say so in the log, and fail the request under test."""
    app.teardown_request(_lost_change)


def _lost_change(_exc: BaseException | None) -> None:
    session = db.session()
    if not session.in_transaction() or session.info.get(_OPEN):
        return
    if not (session.new or session.dirty or session.deleted
            or changed_in_transaction(session.connection())):
        return
    message = f"a change outside the write boundary, not saved: {request.method} {request.path}"
    log.error(message)
    if current_app.testing:
        raise ChangeOutsideBoundary(message)
