"""The one rule of a hand's history, for the ledger (which writes it a change at a time) and
the importer (which reads a whole history back): version 1 records the hand; every later
version corrects it (a voided hand too: that restores it) or voids it (not a hand that is
void already); a void keeps the hand's facts and result as they were. And what a correction
or a void says of the version it was made from (:func:`made_from`), for the ledger and the
phone's night alike."""
from __future__ import annotations

from .errors import TonkError
from .messages import Message, as_sent

#: What a version does, in the order a history may hold them.
ACTIONS = ("recorded", "corrected", "voided")


class VersionError(TonkError):
    """A version that cannot follow the hand's history so far, or one that is not a whole
    number."""


def check_action(version: int, action: object, voided: bool) -> str:
    """``action`` if version ``version`` (from 1) may be it, the hand being ``voided`` now;
    else :class:`VersionError`."""
    if not isinstance(action, str) or action not in ACTIONS or \
            (action == "recorded") != (version == 1):
        raise VersionError(Message("version.order", action=as_sent(action)), "action")
    if action == "voided" and voided:
        raise VersionError(Message("version.void_twice"), "action")
    return action


def voided_after(action: str) -> bool:
    """Whether the hand is void once a version with ``action`` is its last."""
    return action == "voided"


def made_from(version: object) -> int | None:
    """The version a correction or a void says it was made from: None when it says none
    (absent, null), else a whole number as sent (not true or false, not text, not 2.0) from
    1, as versions are numbered; anything else is :class:`VersionError` naming ``version``,
    whatever the hand's version (0 or -1 are not "changed meanwhile": no hand had them).
    A form's hidden field is read as a number first (:func:`app.core.handform.form_whole`)."""
    if version is None:
        return None
    if type(version) is not int:
        raise VersionError(Message("change.version", value=as_sent(version)[:40]), "version")
    if version < 1:
        raise VersionError(Message("change.version_from_one", value=version), "version")
    return version
