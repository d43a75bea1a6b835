"""Links that carry their own data (a hand on /check, a rule set on its card) and the link of
a rule set's card, which the session, league and card pages share."""
from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from flask import url_for

from ..core import Rules
from ..core.money import loads

MAX_LINK = 6000  # characters of ?hand= or ?rules=: far more than eight players' cards need


def encode_data(data: Any) -> str:
    """JSON data as a link's argument: compact JSON, base64url without padding."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_data(token: str) -> Any:
    """A link's argument back to JSON-like data; ValueError when it is not such a link."""
    if len(token) > MAX_LINK:
        raise ValueError("too long")
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        return loads(raw.decode())
    except (binascii.Error, UnicodeDecodeError, RecursionError) as exc:
        raise ValueError(str(exc)) from None


def rules_arg(rules: Rules) -> str | None:
    """``?rules=`` of a rule set: its changes to the preset only (None: the preset as is),
    so that a preset's card has the shortest link, ``/rules/pagat``."""
    changes = rules.overrides()
    return encode_data(changes) if changes else None


def card_url(rules: Rules, external: bool = True) -> str:
    """The link of the house-rule card of ``rules``."""
    return url_for("web.rule_card", preset=rules.preset, rules=rules_arg(rules),
                   _external=external)
