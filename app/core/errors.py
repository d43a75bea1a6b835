"""The domain's exceptions: each says, in words a person at the table understands, what is wrong.

Every one is a ``ValueError`` and carries ``field``: where in the input the problem is
(``"counts.Bob"``, ``"rules.catch"``), or ``None`` when it is about the whole input. Only the
web layer turns them into HTTP answers or form errors, in one place.

The core's own errors carry a :class:`~app.core.messages.Message` (an id of the catalogue and
its values), rendered only when read, so that it can be read in the reader's language; the
services above the core may still pass plain text.
"""
from __future__ import annotations

from .messages import Message


class TonkError(ValueError):
    """Base of every domain error: bad input, named by field."""

    def __init__(self, message: str | Message, field: str | None = None) -> None:
        super().__init__(message)
        self.said = message
        self.field = field

    @property
    def message(self) -> str:
        """What is wrong, for a person, in the language the catalogue renders."""
        return str(self.said)

    def __str__(self) -> str:
        return self.message


class RulesError(TonkError):
    """A house-rule set that cannot be played: a bad option value or a rule that does not fit."""


class UnknownPresetError(RulesError):
    """A preset name that is not in the registry."""


class UnknownOptionError(RulesError):
    """A rule option that does not exist."""


class CardError(TonkError):
    """A card that is not written right, or that the deck does not hold (that often)."""


class HandError(TonkError):
    """A hand that cannot be settled as given: a missing, impossible or contradictory fact."""
