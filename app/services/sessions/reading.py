"""Reading a night at the table: its rules and stake, its players, the hands that count,
its share link, a hand's history and the running totals for the chart. Nothing here
changes a session (the changes are :mod:`.ledger`'s)."""
from __future__ import annotations

import json
import secrets
from decimal import Decimal
from functools import lru_cache
from typing import Any

from sqlalchemy import select

from ...core import Rules, resolve_rules
from ...core.messages import Message
from ...core.money import stake_of
from ...db.models import GameSession, Hand, Player, User
from ...extensions import db
from ..errors import NotFoundError


@lru_cache(maxsize=1024)
def rules_of(rules_json: str) -> Rules:
    """Stored rules (JSON text) → :class:`Rules`, resolved once per distinct text (the
    core keeps its own bounded cache of rules by their options; this one saves reading
    the text again, and is bounded like it)."""
    return resolve_rules(json.loads(rules_json))


def session_rules(gs: GameSession) -> Rules:
    return rules_of(gs.rules_json)


def session_stake(gs: GameSession) -> Decimal:
    return stake_of(gs.stake_minor, session_rules(gs))


def player_names(gs: GameSession) -> tuple[str, ...]:
    """Every player who sat at the session, by seat (their identity in it): who left too."""
    return tuple(s.name for s in gs.seats)


def seated_names(gs: GameSession) -> tuple[str, ...]:
    """The players at the table now, in table order: who the next hand is played by."""
    return tuple(s.name for s in gs.seated)


def counted_hands(gs: GameSession) -> int:
    """How many hands count: every hand but the void ones. The one hand count every page,
    card and answer shows (``hand_count`` numbers them all, voids included)."""
    return gs.hand_count - gs.voided_hands


#: The longest a link's token can be (the columns' length: share, board and table links).
TOKEN_LENGTH = 43


def findable_token(token: str) -> bool:
    """Whether a link's token (a share, TV board or table scorekeeping link, all made by
    :func:`new_share_token`) could be one at all: of a token's length, with no NUL, which
    PostgreSQL refuses to compare with an error rather than finding nothing, nor any other
    control character."""
    return 0 < len(token) <= TOKEN_LENGTH and token.isprintable()


def shared_session(token: str) -> GameSession:
    """The session behind a share link."""
    gs = db.session.scalar(select(GameSession).where(GameSession.share_token == token)) \
        if findable_token(token) else None
    if gs is None:
        raise NotFoundError(Message("share.not_found"))
    return gs


def new_share_token() -> str:
    return secrets.token_urlsafe(16)



def known_player_names(user: User) -> list[str]:
    """Names this account has played with, for suggestions."""
    return list(db.session.scalars(select(Player.name).where(Player.owner_id == user.id)
                                   .order_by(Player.name)))


def history(hand: Hand) -> list[dict[str, Any]]:
    """Every version of a hand, oldest first, with when (``at``, an aware UTC time), by whom
    and why."""
    return [{"version": v.version, "action": v.action, "at": v.created_at,
             "by": v.by_name, "reason": v.reason, "hand": json.loads(v.hand_json),
             "result": json.loads(v.result_json)} for v in hand.versions]
