"""The hot inserts of a hand's change, as plain statements built once: a new hand and its
first version, and a hand's next version (the ORM's flush of these new objects cost more
than the statements, under the session's lock). What a change moves of rows already loaded
(the session's revision, hand count, dealer, plan and pots; a hand's facts) is written by
the ORM's flush: every column it changed, none left out."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import make_transient_to_detached

from ...db.models import Hand, HandVersion
from ...extensions import db

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
