"""Names and short texts a person types, one rule for the whole app (the core, the ledger,
leagues, import): NFC-normalised, trimmed, inner runs of spaces folded; no control,
format (zero-width, direction marks) or surrogate characters; and a key that compares
names the way people do, whatever their case or Unicode form.

:func:`name_key` is computed here, in Python, and stored in its own column, so SQLite
(whose ``lower()`` folds ASCII only) and PostgreSQL find the same player.
"""
from __future__ import annotations

import unicodedata
from typing import Any

from .errors import TonkError
from .messages import Message, as_sent

#: The longest name of a player.
MAX_NAME = 40
#: The longest name of a session.
MAX_SESSION_NAME = 80
#: The longest reason given for a change (a correction, a void, a payment undone).
MAX_REASON = 500
#: Categories no typed name needs: controls, format characters (zero-width spaces and
#: joiners, direction marks, soft hyphens), surrogates (half a character), private use.
_REFUSED = {"Cc": "text.control", "Cf": "text.invisible", "Cs": "text.surrogate",
            "Co": "text.private_use"}
#: Zero-width non-joiner and joiner: invisible, but part of how some names are written
#: (Persian, Indic scripts, emoji sequences), so allowed between two visible characters;
#: :func:`name_key` ignores them, so they make no lookalike.
JOINERS = "\u200c\u200d"


def _joins(text: str, i: int) -> bool:
    """Whether the joiner at ``i`` stands between two visible characters."""
    if not 0 < i < len(text) - 1:
        return False
    return all(not n.isspace() and unicodedata.category(n) not in _REFUSED
               for n in (text[i - 1], text[i + 1]))


def clean_text(value: Any, error: type[TonkError], field: str, what: str | Message,
               limit: int, *, multiline: bool = False) -> str:
    """Typed text → NFC, trimmed text (one line: inner runs of spaces folded), or
    ``error``: empty, longer than ``limit``, holding a character no typed text needs, or
    (one line) a line break or a tab inside it: a name that reads as two lines is refused
    with a sentence about the name, not folded into one that no longer matches what the
    rest of a file says (an import's settle-up plan). What is not text (a number, true, a
    list) is refused as such, not as empty."""
    if value is None or isinstance(value, str) and not value.strip():
        raise error(Message("text.empty", what=what), field)
    if not isinstance(value, str):
        raise error(Message("text.not_text", what=what, value=as_sent(value)[:40]), field)
    text = value.strip()
    if not multiline:
        inner = next((c for c in text if c.isspace() and unicodedata.category(c) != "Zs"),
                     None)
        if inner is not None:  # a line break or a tab inside a name: refused, not folded
            raise error(Message("text.one_line", what=what, code=f"U+{ord(inner):04X}"),
                        field)
        text = " ".join(text.split())  # runs of spaces fold
    allowed = "\n\t\r" if multiline else ""
    for i, c in enumerate(text):
        kind = unicodedata.category(c)
        if kind in _REFUSED and c not in allowed and not (c in JOINERS and _joins(text, i)):
            raise error(Message(_REFUSED[kind], what=what, code=f"U+{ord(c):04X}"), field)
    text = unicodedata.normalize("NFC", text)
    if len(text) > limit:
        raise error(Message("text.too_long", what=what, limit=limit), field)
    return text


def name_key(name: str) -> str:
    """What makes two names the same person: case-folded, NFC, spaces folded, joiners
    dropped ("Zoë" in either Unicode form, "ZOË" and " zoë " share one key)."""
    visible = "".join(c for c in name if c not in JOINERS)
    folded = unicodedata.normalize("NFC", " ".join(visible.split())).casefold()
    return unicodedata.normalize("NFC", folded)


def session_name(value: Any, error: type[TonkError] = TonkError) -> str:
    """A session's name as typed → the name kept (:func:`clean_text`), or ``error`` naming
    the ``name`` field: the server's rule, and the phone's for a night it starts offline."""
    return clean_text(value, error, "name", Message("session.what_name"), MAX_SESSION_NAME)


def player_name(value: Any, seat: int, error: type[TonkError] = TonkError) -> str:
    """The name at seat ``seat`` (from 0) of a table's players as typed → the name kept
    (:func:`clean_text`, at most :data:`MAX_NAME`), or ``error`` naming ``players[seat]``."""
    return clean_text(value, error, f"players[{seat}]", Message("players.name", n=seat + 1),
                      MAX_NAME)


def seat_name(value: Any, field: str, error: type[TonkError] = TonkError) -> str:
    """The name of a player who joins the table or leaves it, as typed → the name kept
    (:func:`clean_text`, at most :data:`MAX_NAME`), or ``error`` naming ``field``: the
    server's rule (the seats form, the API), and the phone's for a night it keeps."""
    return clean_text(value, error, field, Message("seats.name"), MAX_NAME)


def session_currency(value: Any, error: type[TonkError] = TonkError) -> str:
    """A session's currency as typed (a short code or sign) → the code kept ("" or none:
    USD), or ``error`` naming the ``currency`` field: the server's rule, and the phone's
    for a night it starts offline."""
    if value is None or value == "":
        return "USD"
    return clean_text(value, error, "currency", Message("session.what_currency"), 8)


def change_reason(value: Any, error: type[TonkError] = TonkError) -> str:
    """Why a hand is corrected or voided or a payment undone, as typed → the reason kept (it
    is required; several lines may be), or ``error`` naming the ``reason`` field: the
    server's rule, and the phone's for a night it keeps."""
    if value is None or isinstance(value, str) and not value.strip():
        raise error(Message("change.no_reason"), "reason")
    return clean_text(value, error, "reason", Message("session.what_reason"), MAX_REASON,
                      multiline=True)
