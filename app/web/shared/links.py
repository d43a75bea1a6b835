"""Links that carry their own data (a hand on /check, a rule set on its card), the link of a
rule set's card, which the session, league and card pages share, and a link's QR code (a
session's share link, a tournament table's)."""
from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import segno
from flask import url_for
from flask_babel import gettext as _
from markupsafe import Markup

from ...core import Rules
from ...core.money import loads
from ...services.sessions import StateCache

#: A link's QR code, kept per process (made once per link: a session's page asks again and
#: again).
QR_CODES: StateCache[Markup] = StateCache(256)
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


def qr_code(url: str) -> Markup:
    """A link's QR code as inline SVG drawn to its viewBox, so that the page's style sizes
    it (``.share-qr svg``): small beside a session's link, large on a table's sheet."""
    return QR_CODES.get(url, lambda: Markup(segno.make(url, error="m").svg_inline(
        scale=3, omitsize=True, title=_("QR code of the share link"))))
