"""The database's integer ids: what may name a row, and the row it names. An id outside
the range names nothing (and is never sent to the database, whose integers it would
overflow), so every lookup by a number a person typed goes through here."""
from __future__ import annotations

from typing import Any, TypeVar

from ..extensions import db

#: The largest id the database's integer columns hold.
MAX_ID = 2**31 - 1

T = TypeVar("T")


def is_id(value: Any) -> bool:
    """Whether ``value`` is an int that can name a row (1 to :data:`MAX_ID`; not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_ID


def row_by_id(model: type[T], ident: Any) -> T | None:
    """The row of ``model`` with id ``ident``, or None (also for what is not an id)."""
    return db.session.get(model, ident) if is_id(ident) else None
