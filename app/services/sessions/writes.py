"""The hot writes of a hand's change, as plain statements built once: a new hand and its
first version, a hand's next version, and the changed columns of the session's and the
hand's rows (the ORM's flush of these objects cost more than the statements, under the
session's lock)."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, inspect, update
from sqlalchemy.orm import InstanceState, make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.sql import ClauseElement

from ...db.models import GameSession, Hand, HandVersion
from ...extensions import db

#: The rows :func:`write_changes` writes, by their model: their columns, and the UPDATE of
#: one (built once; it sets the columns its parameters name).
_COLUMNS = {model: frozenset(model.__table__.c.keys()) for model in (GameSession, Hand)}
_UPDATES = {model: update(model.__table__).where(model.__table__.c.id == bindparam("row_id"))
            for model in (GameSession, Hand)}


def write_changes(*rows: GameSession | Hand) -> None:
    """Write what a hand's change moved of loaded rows (the session's revision, hand count,
    dealer, plan number and pots; a hand's version and facts) by one plain UPDATE of those
    columns each, under the session's lock: the ORM's flush of the objects cost more than
    the statements. Each row is then as written, clean, as a flush leaves it (nothing is
    left for the commit to flush); a row with a change of anything but its columns, or one
    set to an SQL expression, is left to the flush, as it is."""
    if db.session().get_nested_transaction() is not None:
        return  # a savepoint's rollback restores only what its flushes wrote: left to them
    connection = db.session.connection()
    for row in rows:
        state: InstanceState[Any] = inspect(row)
        changed = {key: state.dict[key] for key in state.committed_state}
        if not changed or not changed.keys() <= _COLUMNS[type(row)] or any(
                isinstance(value, ClauseElement) for value in changed.values()):
            continue
        connection.execute(_UPDATES[type(row)], {**changed, "row_id": row.id})
        for key, value in changed.items():  # as written: nothing of it left to flush
            set_committed_value(row, key, value)


_HANDS = Hand.__table__
_INSERT_HAND = insert(_HANDS).returning(_HANDS.c.id)
_INSERT_VERSION = insert(HandVersion.__table__)


def insert_hand(row: dict[str, Any], version: dict[str, Any]) -> Hand:
    """A new hand and its first version, inserted by two plain statements built once (the
    ORM's flush of the two objects cost more than the statements, under the session's
    lock): the hand as the session's own object, loaded and clean, as if just read."""
    connection = db.session.connection()
    hand_id = connection.execute(_INSERT_HAND, row).scalar_one()
    connection.execute(_INSERT_VERSION, {**version, "hand_id": hand_id})
    hand = Hand(id=hand_id, **row)
    make_transient_to_detached(hand)
    db.session.add(hand)
    return hand


def add_version(hand: Hand, action: str, hand_json: str, result_json: str, reason: str | None,
                 by_id: int, by_name: str, now: datetime) -> None:
    """A hand's new version (``hand.version``), inserted by the plain statement built once,
    beside its hand: the versions before are not read for it."""
    db.session.connection().execute(_INSERT_VERSION, {
        "hand_id": hand.id, "version": hand.version, "action": action, "hand_json": hand_json,
        "result_json": result_json, "reason": reason, "created_by_id": by_id,
        "by_name": by_name, "created_at": now})
