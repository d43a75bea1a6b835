"""Payment handles: where a player takes payment, checked, kept and read.

A handle is kept on the :class:`~app.db.models.Player`, so a league member's handles serve the
league's later sessions and a personal player's the account's. Each is checked as its
service writes it (an IBAN by its ISO 13616 checksum and its country's length, with
``schwifty``); a bad one is refused with a message naming its field, and nothing changes.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from schwifty import BIC, IBAN
from schwifty.exceptions import SchwiftyException
from sqlalchemy import select, update

from ...core.errors import TonkError
from ...core.messages import Message, as_sent
from ...db.models import GameSession, Player, SessionPlayer, utcnow
from ...db.storage import begin_write
from ...extensions import db

MAX_NOTE = 200


class PayError(TonkError):
    """A payment handle that is not written as its service writes it."""


@dataclass(frozen=True)
class Handles:
    """A player's payment handles, each as its service writes it ("" when not kept)."""

    paypal: str = ""
    venmo: str = ""
    cashapp: str = ""
    revolut: str = ""
    iban: str = ""
    bic: str = ""
    note: str = ""

    def to_json(self) -> dict[str, str]:
        """The handles kept, by service (the API's answer and what is stored)."""
        return {k: v for k, v in asdict(self).items() if v}

    def __bool__(self) -> bool:
        return bool(self.to_json())


FIELDS = tuple(Handles.__dataclass_fields__)

#: service → (how a name may be written, after its prefixes are taken off; what to strip)
_NAMES: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "paypal": (re.compile(r"[A-Za-z0-9]{1,20}"),
               re.compile(r"^(https?://)?(www\.)?paypal\.me/|^@", re.I)),
    "venmo": (re.compile(r"[A-Za-z0-9_-]{5,30}"),
              re.compile(r"^(https?://)?(www\.|account\.)?venmo\.com/(u/)?|^@", re.I)),
    "cashapp": (re.compile(r"(?=[0-9]*[A-Za-z])[A-Za-z0-9]{1,20}"),
                re.compile(r"^(https?://)?(www\.)?cash\.app/\$?|^\$", re.I)),
    "revolut": (re.compile(r"[A-Za-z0-9._-]{3,32}"),
                re.compile(r"^(https?://)?(www\.)?revolut\.me/|^@", re.I)),
}


def read_handles(data: Any) -> Handles:
    """``{"paypal": "annpays", "iban": "DE89 3704 …", …}`` (any of them; "" removes one)
    → :class:`Handles`, each written as its service writes it; :class:`PayError` naming the
    field of the first one that is not."""
    if not isinstance(data, Mapping):
        raise PayError(Message("pay.not_object"), None)
    for key in data:
        if key not in FIELDS:
            raise PayError(Message("pay.unknown", field=as_sent(key), fields=", ".join(FIELDS)),
                           str(key))
    said: dict[str, str] = {}
    for key in FIELDS:
        value = data.get(key) or ""
        if not isinstance(value, str):
            raise PayError(Message("pay.not_text", field=key), key)
        value = " ".join(value.split())
        if value:
            said[key] = _checked(key, value)
    if said.get("bic") and not said.get("iban"):
        raise PayError(Message("pay.bic_without_iban"), "bic")
    return Handles(**said)


def _checked(key: str, value: str) -> str:
    if key in _NAMES:
        pattern, prefix = _NAMES[key]
        name = prefix.sub("", value).strip("/")
        if not pattern.fullmatch(name):
            raise PayError(Message(f"pay.{key}", value=value[:40]), key)
        return name
    if key == "iban":
        try:
            return str(IBAN(value).compact)
        except SchwiftyException:
            raise PayError(Message("pay.iban", value=value[:40]), "iban") from None
    if key == "bic":
        try:
            return str(BIC(value).compact)
        except SchwiftyException:
            raise PayError(Message("pay.bic", value=value[:40]), "bic") from None
    if len(value) > MAX_NOTE:
        raise PayError(Message("pay.note", most=MAX_NOTE), "note")
    return value


def stored_handles(pay_json: str | None) -> Handles:
    """What a player's ``pay_json`` holds (none for None)."""
    return Handles(**json.loads(pay_json)) if pay_json else Handles()


def session_handles(gs: GameSession) -> dict[str, Handles]:
    """The handles of everyone who sat at the session, by their name in it."""
    rows = db.session.execute(select(SessionPlayer.name, Player.pay_json).join(
        Player, Player.id == SessionPlayer.player_id).where(
        SessionPlayer.session_id == gs.id)).all()
    return {name: stored_handles(pay) for name, pay in rows}


def set_handles(gs: GameSession, name: str, data: Any) -> Handles:
    """Keep ``data`` (checked by :func:`read_handles`) as the handles of the player called
    ``name`` at ``gs``: all of them, replacing what was kept. Every session the player sat
    at moves on a revision, so its pages and its ledger show the new handles at once."""
    handles = read_handles(data)
    begin_write()
    seat = db.session.scalar(select(SessionPlayer).where(
        SessionPlayer.session_id == gs.id, SessionPlayer.name == name))
    if seat is None:
        raise PayError(Message("payment.not_at_table", who=name), "name")
    player = db.session.get(Player, seat.player_id)
    assert player is not None
    player.pay_json = json.dumps(handles.to_json()) if handles else None
    sessions = select(SessionPlayer.session_id).where(SessionPlayer.player_id == player.id)
    db.session.execute(update(GameSession).where(GameSession.id.in_(sessions)).values(
        revision=GameSession.revision + 1, updated_at=utcnow()))
    db.session.flush()
    return handles


def handle_problems(pay_json: str) -> list[str]:
    """What is wrong with a stored ``pay_json`` (for ``tonk check``): nothing, or why."""
    try:
        data = json.loads(pay_json)
        read_handles(data)
    except (ValueError, TypeError) as exc:  # PayError is one; so is a JSONDecodeError
        return [str(exc)]
    if not data:
        return ["an empty set of handles is kept as none"]
    return []
