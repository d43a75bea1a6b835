"""A night started on a phone with no signal, sent when the signal is back:
``PUT /api/v1/nights/{uid}/events`` takes its events in order, each once
(:func:`app.services.sessions.send_night`), and answers the night's session and its money as
the session's page shows it, for the phone to compare to the cent.

A refused event stops the list: the answer is its error (``{"error", "field"}``, the status
of the error) naming the ``event`` and what was taken before it, which stays. A list that
takes nothing (all of it held already, or refused at its first new event) changes nothing,
not even the session's revision.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, Union

from flask import Response, json, jsonify, url_for
from pydantic import Field, SkipValidation, WithJsonSchema, create_model
from pydantic.fields import FieldInfo

from ..db.models import User
from ..db.unit import take_back
from ..services import sessions
from ..services.leagues import session_table
from .answers import NightSentJson, money_json
from .door import ABSENT, Body, api, needed
from .errors import known_error
from .kinds import Flag, Id, Name, ref
from .params import path
from .sessions import Correction, NewPayment, NewSession, TableHand, ledger_json, session_json

#: Each kind's required fields (besides id, seq and kind), and what each means.
_REQUIRED = {"started": ("name", "players"), "hand": ("hand",),
             "corrected": ("number", "hand", "reason"), "voided": ("number", "reason"),
             "joined": ("player",), "left": ("player",), "paid": ("payer", "payee", "amount"),
             "undone": ("payment", "reason")}
_KINDS = {
    "started": "The night starts: a session of the account (in a league it runs, when it names "
               "one: its defaults fill in what is not sent). Always number 1.",
    "hand": "A hand recorded under the night's rules, with the players seated now.",
    "corrected": "Hand number (the night's n-th hand) corrected, under the rules it was "
                 "settled under.",
    "voided": "Hand number (the night's n-th hand) voided.",
    "joined": "A player sits down at the dealer's right, or after a seated player.",
    "left": "A seated player leaves.",
    "rules": "The house rules (absent or null: pagat) and stake (absent: as it is) from the "
             "next hand on.",
    "paid": "A payment at settle-up; an undone event names it by this event's id.",
    "undone": "The payment of the paid event with id payment undone.",
    "closed": "The night closes (carry_over: what is open is kept as debts).",
}
_EventId = SkipValidation[Annotated[str, Field(pattern=f"^{sessions.NIGHT_EVENT_ID.pattern}$",
                                               examples=["e1"])]]
_Said = SkipValidation[str]
_Seated = SkipValidation[Name | None]
_Seq = SkipValidation[int]


def _field(model: type[Body], name: str, **more: Any) -> tuple[Any, FieldInfo]:
    """A field of another body, as an event carries it."""
    found = model.model_fields[name]
    return found.annotation, FieldInfo.merge_field_infos(found, **more)


def _event_fields() -> dict[str, tuple[Any, Any]]:
    """Every field an event may carry: the session's, the hand's, the payment's."""
    new = {k: _field(NewSession, k) for k in NewSession.model_fields if k != "first_dealer"}
    return {
        **new,
        "dealer": _field(NewSession, "first_dealer", description="Who deals first; default "
                         "(null or empty): the first player."),
        "hand": (Annotated[Any, WithJsonSchema(ref(TableHand.__name__))], ABSENT),
        "number": (Id, Field(ABSENT, description="The hand's number in the night, from 1.")),
        "reason": _field(Correction, "reason"), "version": _field(Correction, "version"),
        "player": (Name, ABSENT), "after": (_Seated, ABSENT),
        "payer": (_Said, ABSENT), "payee": (_Said, ABSENT),
        "amount": _field(NewPayment, "amount"),
        "payment": (_EventId, Field(
            ABSENT, description="The id of the paid event.")),
        "carry_over": (Flag, ABSENT),
        "share_token": (_Said, Field(
            ABSENT, pattern=f"^{sessions.NIGHT_SHARE_TOKEN.pattern}$",
            description="The session's share token, made on the phone (16 or more random "
                        "bytes, base64url) so that its share QR could be shown before the "
                        "night was sent; refused if another session has it. Absent: the "
                        "server makes one.")),
    }


def _event(kind: str, names: tuple[str, ...], fields: dict[str, tuple[Any, Any]]) -> Any:
    """The schema of one kind of event."""
    seq = Field(ABSENT, ge=1, le=sessions.MAX_NIGHT_SEQ,
                description="The event's place in the night, from 1.",
                json_schema_extra={"const": 1} if kind == "started" else {"minimum": 2})
    head: dict[str, Any] = {
        "id": (_EventId, Field(ABSENT, description="Made on the phone: names this event.")),
        "seq": (_Seq, seq), "kind": (SkipValidation[Literal[kind]], ABSENT),  # type: ignore[misc,valid-type]
        **{name: fields[name] for name in names}}
    model: Any = create_model(f"Night{kind.title()}", __base__=Body, __doc__=_KINDS[kind],
                              **head)
    model.required = ("id", "seq", "kind", *_REQUIRED.get(kind, ()))
    return model


_EVENTS = [_event(kind, names, _event_fields())
           for kind, names in sessions.NIGHT_FIELDS.items()]
_Event: Any = Union[tuple(_EVENTS)]  # noqa: UP007  (made of the kinds: no | to write)


class NightEvents(Body):
    """The events of a night kept on a phone."""

    what: ClassVar[str] = "a night's events"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"events": [
        {"id": "e1", "seq": 1, "kind": "started", "name": "Basement",
         "players": ["Ann", "Bob", "Cy"], "rules": "pagat", "stake": "0.25"},
        {"id": "e2", "seq": 2, "kind": "hand",
         "hand": {"end": {"kind": "tonk_out", "player": "Ann"}}}]},)
    events: SkipValidation[list[_Event]] = needed(
        min_length=1, max_length=sessions.MAX_NIGHT_EVENTS,
        description="Events of the night in order, their seqs one after another, each id "
                    "once: from the first the server does not hold (any before it are "
                    "skipped, as held).")


_UID = path("uid", "The night's uid, made on the phone (a UUID's 32 hex digits): the "
            "session's own once sent.",
            {"type": "string", "pattern": f"^{sessions.NIGHT_UID.pattern}$"},
            example="0f8e6c1d2b3a49e5a7c6d5e4f3a2b1c0")


@api.put("/nights/<uid>/events", "Send the events of a night kept on a phone, in order, each "
         "once: the first (started) makes the night's session; events the server holds are "
         "skipped. A refused event stops the list: its error (404, 409 or 422) names the "
         "event and index, with what the server holds (taken, held, next, and the session "
         "and its money as here); the events before it stay taken.", {
             "200": ("What the server holds now.", NightSentJson),
             "201": ("The night's session was made now.", NightSentJson)}, (_UID,))
def send_night(user: User, uid: str, body: NightEvents) -> Response:
    def table(started: Mapping[str, Any]) -> dict[str, Any]:
        return session_table(user, started)

    sent = sessions.send_night(user, uid, body.events, table=table)
    if not sent.taken:  # nothing of the list is kept, not even the session's revision moved
        take_back()  # on by its lock (a tab that waited for another's send)
    about = _night_json(uid, sent)
    if sent.refused is None:
        response = jsonify(about)
        response.status_code = 201 if sent.created else 200
        if sent.created and sent.session is not None:
            response.headers["Location"] = about["url"]
        return response
    response = known_error(sent.refused.error)
    response.set_data(json.dumps({**about, **(response.get_json() or {}),
                                  "event": sent.refused.event, "index": sent.refused.index}))
    return response


def _night_json(uid: str, sent: sessions.NightSent) -> NightSentJson:
    """What the server holds of the night: the events taken now and those it had, how many
    it holds (the next to send is ``next``), and its session with its money, if started."""
    gs = sent.session
    about: NightSentJson = {"night": uid, "taken": sent.taken, "already": sent.already,
                            "held": sent.held, "next": sent.held + 1, "session": None,
                            "url": None}
    if gs is None:
        return about
    return {**about, "session": session_json(gs),
            "url": url_for("api.get_session", session_id=gs.id),
            "page": url_for("web.session", session_id=gs.id),
            "money": {name: money_json(m) for name, m in sessions.money_of(gs).items()},
            "ledger": ledger_json(gs)}
