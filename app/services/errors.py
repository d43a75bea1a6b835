"""The services' errors that are not simply "this input is wrong", in one place, each with
the HTTP status pages and API answer it with (:data:`STATUS`, read through
:func:`status_of`). Any other :class:`~app.core.errors.TonkError` is a 422: the request was
understood, and refused, with a message for the person who sent it.
"""
from __future__ import annotations

from typing import Any

from ..core.errors import TonkError
from ..db.idempotency import InProgressError
from ..db.models import Hand


class LedgerError(TonkError):
    """A change the ledger cannot make."""


class NotFoundError(LedgerError):
    """No such session or hand, or not one this account may see."""


class SessionClosedError(LedgerError):
    """The session is closed: nothing in it (hands, seats, rules, payments) can change."""


class VersionConflictError(LedgerError):
    """The hand changed since the version a correction or void was made from."""

    def __init__(self, hand: Hand, expected: int) -> None:
        last = hand.versions[-1]
        super().__init__(f"hand {hand.number} was {last.action} by {last.by_name} at "
                         f"{_clock(last.created_at)} (now version {hand.version}) while you "
                         f"were looking at version {expected}: look at it again first",
                         "version")
        self.hand, self.expected = hand, expected


class HandLimitError(LedgerError):
    """The session has counted all the hands it may (a tournament table, its round's)."""


class NotEmptyError(LedgerError):
    """The session holds hands or payments: archive it instead of deleting it."""


class NightOrderError(LedgerError):
    """A night's event sent out of its order (one before it missing), or at a place another
    event holds: the phone sends again from the place the server names."""


class EventError(TonkError):
    """A change the event cannot take: bad settings or names."""


class EventSettingsError(EventError):
    """Settings of a new event refused: the first (its message and field, as the API
    answers), and every one by its field (``refused``), as the form shows them."""

    def __init__(self, refused: dict[str, TonkError]) -> None:
        first = next(iter(refused.values()))
        super().__init__(first.said, first.field)
        self.refused = refused


class EventConflictError(EventError):
    """A change that clashes with the event's state: a round open, a name checked in."""


def _clock(moment: Any) -> str:
    return f"{moment:%H:%M} UTC"


#: The errors that are not 422, most specific first. Another account's session or league is
#: a NotFoundError too: 404 says nothing about whether it exists.
STATUS: tuple[tuple[type[TonkError], int], ...] = (
    (NotFoundError, 404),
    (SessionClosedError, 409),
    (VersionConflictError, 409),
    (InProgressError, 409),
    (NotEmptyError, 409),
    (HandLimitError, 409),
    (NightOrderError, 409),
    (EventConflictError, 409),
)


def status_of(exc: TonkError) -> int:
    """The HTTP status of a service's error: :data:`STATUS`, else 422."""
    return next((code for kind, code in STATUS if isinstance(exc, kind)), 422)
