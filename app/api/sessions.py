"""The session endpoints of the JSON API: start a session, record, correct and void hands,
read a hand's history, the ledger, settle-up payments, house-rule changes and closing.

Every endpoint needs a personal token (``auth.py``) and sees only the caller's own
sessions; another account's session is "not found". The views are thin: read the body,
call :mod:`app.services.sessions`, answer JSON. Errors are raised, and answered in
``errors.py``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, ClassVar, cast, overload

from flask import Response, json, jsonify, url_for
from flask_babel import get_locale
from pydantic import Field, SkipValidation, WithJsonSchema
from werkzeug.routing import BuildError

from ..core.errors import TonkError
from ..core.messages import Message, as_sent
from ..core.money import CENT_PLACES, amount_formatter, currency_places, money_places
from ..core.restate import reworded, reworded_side_bets
from ..core.stored import own_facts
from ..db.models import GameSession, Hand, User
from ..services import sessions
from ..services.leagues import session_table
from ..services.pay import session_handles, transfer_links
from ..services.sessions import (
    Debt,
    PaymentMade,
    StateCache,
    debts_of_session,
    mark_paid,
    open_debts_of,
    owned_stamp,
    set_archived,
)
from .answers import (
    DebtJson,
    DeletedJson,
    HandVersionJson,
    LedgerJson,
    PaymentMadeJson,
    RecordedHandJson,
    ResultJson,
    SessionJson,
    SessionSummaryJson,
    SettledJson,
    TransferJson,
    money_json,
    pay_link_json,
    transfer_json,
)
from .door import ABSENT, Body, api, needed
from .events import session_event
from .kinds import (
    AMOUNT_TEXT,
    Currency,
    DealBody,
    Flag,
    Id,
    Name,
    Players,
    Reason,
    Rules,
    SideBetPlay,
    SideBets,
    Stake,
    Text,
    Version,
)
from .params import DEBT_ID, NUMBER, PAYMENT_ID, SESSION_ID
from .routes import created

SHARE_PATH = "/s/{token}"  # the read-only page of a session (web.shared), for the table
PAYMENT_FIELDS = {"from": "payer", "to": "payee", "amount": "amount"}
S, H = (SESSION_ID,), (SESSION_ID, NUMBER)


# -- the bodies ------------------------------------------------------------------------------

class NewSession(Body):
    """A session to start."""

    what: ClassVar[str] = "a session"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"name": "Friday", "players": ["Ann", "Bob", "Cy"], "rules": "pagat", "stake": "0.25",
         "currency": "USD", "first_dealer": "Bob"},)
    name: Text = needed()
    players: Players = needed()
    rules: Rules = ABSENT
    stake: Stake = ABSENT
    currency: Currency = ABSENT
    first_dealer: SkipValidation[str | None] = Field(
        ABSENT, description="Default (null or empty): the first player.")
    league: SkipValidation[Id | None] = Field(
        ABSENT, description="A league you run: the players are its members (a new name "
                            "becomes one), and its default rules, stake and currency fill in "
                            "what is not sent.")
    side_bets: SkipValidation[SideBets | None] = ABSENT


class RulesChangeBody(Body):
    """Applies to the hands recorded from now on."""

    what: ClassVar[str] = "a change of rules"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"rules": {"preset": "pagat", "catch": "alt3"}, "stake": "0.50"},)
    rules: Rules = ABSENT
    stake: Stake = ABSENT


class Close(Body):
    """Closing a session; the body may be empty."""

    what: ClassVar[str] = "closing a session"
    optional: ClassVar[bool] = True
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"carry_over": True},)
    carry_over: Flag = Field(False, json_schema_extra={"default": False}, description=(
        "Close even though transfers are open, keeping them as debts until marked paid "
        "(without it: 422)."))


class SeatsChange(Body):
    """One change: join (at the dealer's right, so dealing last in the rotation, or after a
    seated player), or leave (taking back what the leaver has in the side bets' pots:
    nothing dealt after can move their total)."""

    what: ClassVar[str] = "a change of seats"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"join": "Fay"}, {"join": "Fay", "after": "Bob"}, {"leave": "Bob"})
    join: Name = ABSENT
    after: Name = ABSENT
    leave: Name = ABSENT


class Archive(Body):
    """Put a session away off the home page, or bring it back."""

    what: ClassVar[str] = "archiving a session"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"archived": True},)
    archived: Flag = Field(True, json_schema_extra={"default": True},
                           description="true: off the home page; false: back.")


class TableHand(DealBody):
    """A hand of a session: its players, rules and stake are the session's. The dealer
    defaults to the next one."""

    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"end": {"kind": "tonk_out", "player": "Ann"}, "multiplier": 2},)
    dealer: SkipValidation[str | None] = Field(
        ABSENT, description="Default (null or empty): who deals next.")
    side_bets: SkipValidation[list[SideBetPlay] | None] = Field(
        ABSENT, description="This deal's side bets (docs/rules.md §9).")


class Correction(TableHand):
    """A hand corrected: the hand as it should have been, and why."""

    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"end": {"kind": "run_out", "player": "Cy"}, "reason": "it was Cy"},)
    required: ClassVar[tuple[str, ...] | None] = ("end", "reason")
    reason: Reason = Field(ABSENT, description="Why: kept in the hand's history.")
    version: Version = ABSENT


class Void(Body):
    """A hand voided: it no longer counts."""

    what: ClassVar[str] = "voiding a hand"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"reason": "never played"},)
    reason: Reason = needed(description="Why: kept in the hand's history.")
    version: Version = ABSENT


class NewPayment(Body):
    """Money paid at settle-up."""

    what: ClassVar[str] = "a payment"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"from": "Ann", "to": "Cy", "amount": "0.25"},)
    payer: SkipValidation[str] = needed(alias="from")
    payee: SkipValidation[str] = needed(alias="to")
    amount: Annotated[Any, WithJsonSchema({"anyOf": [AMOUNT_TEXT, {"type": "number"}],
                       "description": "Along a planned transfer: at most what is open on "
                                      "it. Outside the plan: at most what both still have "
                                      "open."})] = needed()


class UndoPayment(Body):
    """A payment undone: it stays in the history, marked undone."""

    what: ClassVar[str] = "undoing a payment"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"reason": "mis-tap"},)
    reason: Reason = needed(description="Why: kept beside it.")


# -- answers ---------------------------------------------------------------------------------

@overload
def iso_time(moment: datetime) -> str: ...
@overload
def iso_time(moment: datetime | None) -> str | None: ...


def iso_time(moment: datetime | None) -> str | None:
    """A stored time (aware UTC, :class:`app.db.types.UTCDateTime`) as ISO 8601."""
    return None if moment is None else moment.isoformat()


def _share_path(gs: GameSession) -> str:
    """The path of the session's read-only page: the pages' own route when it is there."""
    try:
        return url_for("web.shared", token=gs.share_token)
    except BuildError:
        return SHARE_PATH.format(token=gs.share_token)


def _stake(gs: GameSession) -> str | None:
    """The stake as the table plays it; push-ups play for none (null)."""
    rules = sessions.session_rules(gs)
    if rules.scoring == "push_ups":
        return None
    stake = sessions.session_stake(gs)
    return amount_formatter(rules, gs.currency)(stake) if currency_places(gs.currency) < \
        CENT_PLACES else str(stake)


def session_summary(gs: GameSession) -> SessionSummaryJson:
    return {"id": gs.id, "name": gs.name, "players": list(sessions.seated_names(gs)),
            "currency": gs.currency, "closed": gs.is_closed,
            "hands": sessions.counted_hands(gs), "voided_hands": gs.voided_hands,
            "archived": gs.is_archived, "created_at": iso_time(gs.created_at)}


def session_json(gs: GameSession) -> SessionJson:
    """A session: the players at the table in seat order, who left, who deals next, its
    rules, stake and side bets as stored, and the money in each pot."""
    fmt = amount_formatter(sessions.session_rules(gs), gs.currency)
    return {"id": gs.id, "name": gs.name, "players": list(sessions.seated_names(gs)),
            "left": [s.name for s in gs.seats if s.left_at is not None],
            "dealer": gs.dealer, "rules": gs.rules_spec,
            "scoring": sessions.session_rules(gs).scoring,
            "stake": _stake(gs), "currency": gs.currency,
            "side_bets": gs.side_bets_spec,
            "pots": {bet: fmt(amount) for bet, amount in sessions.pot_totals(gs).items()},
            "closed": gs.is_closed, "closed_at": iso_time(gs.closed_at),
            "hands": sessions.counted_hands(gs), "voided_hands": gs.voided_hands,
            "archived": gs.is_archived, "archived_at": iso_time(gs.archived_at),
            "share_url": _share_path(gs), "league": gs.league_id,
            "created_at": iso_time(gs.created_at), **session_event(gs)}


def _split(stored: Mapping[str, Any], result: Mapping[str, Any],
           side_bets: Mapping[str, Any]) -> SettledJson:
    """A stored hand → the hand as a client sends it (no table facts, no suit of a side bet
    whose suit the table fixes: ``side_bets``, the session's; so it can be sent back
    corrected), the rules and stake it was settled under beside it, and its result."""
    return {"hand": own_facts(stored, side_bets), "rules": stored["rules"],
            "stake": stored["stake"],
            "result": cast(ResultJson, result)}  # (the core's: :meth:`app.core.Result.to_json`)


def _worded(hand: Mapping[str, Any], result: Mapping[str, Any],
            currency: str | None = None) -> Mapping[str, Any]:
    """A stored result (in English, amounts with two places) with its words in the reader's
    language and its amounts with the currency's places (a yen table's ``5``, not
    ``5.00``)."""
    places = currency_places(currency)
    if places == CENT_PLACES:
        return result if str(get_locale() or "en") == "en" else reworded(hand, result)
    with money_places(places):
        out = reworded(hand, result)

    def fmt(value: Any) -> Any:
        try:
            return f"{Decimal(str(value)):.{places}f}"
        except InvalidOperation:
            return value

    if isinstance(out.get("net"), dict):
        out["net"] = {name: fmt(v) for name, v in out["net"].items()}
    if isinstance(out.get("payments"), list):
        out["payments"] = [{**p, "amount": fmt(p.get("amount"))} if isinstance(p, dict)
                           else p for p in out["payments"]]
    return out


def hand_json(hand: Hand) -> RecordedHandJson:
    """A hand's current version; its result adds how its side bets were settled (apart from
    the hand's own lines), if it had any."""
    result = dict(_worded(hand.data, hand.result, hand.session.currency))
    if hand.side_result_json not in ("", "[]"):
        scoring = sessions.rules_of(json.dumps(hand.data["rules"])).scoring
        result["side_bets"] = reworded_side_bets(hand.side_result, hand.session.side_bets_spec,
                                                 scoring)
    return {"number": hand.number, "version": hand.version, "voided": hand.voided,
            **_split(hand.data, result, hand.session.side_bets_spec)}


def history_json(hand: Hand) -> list[HandVersionJson]:
    """Every version of a hand, oldest first, with when, by whom and why."""
    spec = hand.session.side_bets_spec
    return [{"version": v["version"], "action": v["action"],
             "at": iso_time(v["at"]), "by": v["by"],
             "reason": v["reason"],
             **_split(v["hand"], _worded(v["hand"], v["result"], hand.session.currency), spec)}
            for v in sessions.history(hand)]


def payment_json(p: PaymentMade, fmt: Callable[[Decimal], str]) -> PaymentMadeJson:
    return {"id": p.id, "from": p.payer, "to": p.payee, "amount": fmt(p.amount),
            "planned": p.planned, "at": iso_time(p.at), "by": p.by, "undone": p.undone,
            "undone_at": iso_time(p.undone_at), "undone_by": p.undone_by,
            "undo_reason": p.undo_reason}


def debt_json(d: Debt) -> DebtJson:
    fmt = amount_formatter(d, d.currency)
    return {"id": d.id, "session": d.session_id, "session_name": d.session,
            "from": d.payer, "to": d.payee, "amount": fmt(d.amount), "currency": d.currency,
            "created_at": iso_time(d.created_at), "paid": d.paid_at is not None,
            "paid_at": iso_time(d.paid_at), "paid_by": d.paid_by}


def ledger_json(gs: GameSession) -> LedgerJson:
    """Totals, counted hands, the plan in force, the transfers still open, every payment
    (undone ones marked), what each player still has open, and any debts carried over."""
    state = sessions.ledger_of(gs)
    fmt = amount_formatter(sessions.session_rules(gs), gs.currency)
    transfers = [transfer_json(t, fmt) for t in state.transfers]
    handles = session_handles(gs)  # each open transfer: the payee's pay links (docs/api.md)
    open_: list[TransferJson] = [
        {**transfer_json(t, fmt), "pay": [pay_link_json(link) for link in transfer_links(
            gs, handles, t.payee, t.amount)]} for t in state.transfers]
    return {
        "totals": {name: fmt(amount) for name, amount in state.totals.items()},
        "money": {name: money_json(m, fmt) for name, m in state.money.items()},
        "hands": state.hands,
        "voided_hands": gs.voided_hands,
        "transfers": transfers,
        "open": open_,
        "plan": [{"from": t.payer, "to": t.payee, "amount": fmt(t.amount),
                  "paid": fmt(t.paid), "open": fmt(t.open)} for t in state.plan],
        "paid": [payment_json(p, fmt) for p in state.payments if not p.undone],
        "payments": [payment_json(p, fmt) for p in state.payments],
        "balances": {name: fmt(amount) for name, amount in state.open.items()},
        "all_paid": state.all_paid,
        "pots": {bet: fmt(amount) for bet, amount in state.pots.items()},
        "pot_returns": {name: fmt(amount) for name, amount in state.returns.items()},
        "carried_over": [debt_json(d) for d in debts_of_session(gs.id)]
        if gs.is_closed else [],
        "scoring": state.scoring,
        "currency": gs.currency,
    }


# -- sessions --------------------------------------------------------------------------------

@api.post("/sessions", "Start a session.", {"201": ("The session.", SessionJson)})
def create_session(user: User, body: NewSession) -> Response:
    gs = sessions.create_session(  # in a league, its defaults fill in rules, stake, currency
        user, name=body.name, players=body.players, first_dealer=body.first_dealer,
        **session_table(user, body.sent()))
    return created(session_json(gs), url_for("api.get_session", session_id=gs.id))


@api.get("/sessions", "Your sessions, newest first.",
         {"200": ("Summaries.", list[SessionSummaryJson])})
def list_sessions(user: User) -> Response:
    return jsonify([session_summary(gs) for gs in sessions.sessions_of(user)])


@api.get("/sessions/<int:session_id>", "A session: players, dealer, rules, stake.",
         {"200": ("The session.", SessionJson)}, S)
def get_session(user: User, session_id: int) -> Response:
    return jsonify(session_json(sessions.owned_session(user, session_id)))


@api.post("/sessions/<int:session_id>/share", "Revoke the share link and make a new one: "
          "the old link stops working at once.",
          {"200": ("The session, with its new share_url.", SessionJson)}, S, change=False)
def replace_share(user: User, session_id: int) -> Response:
    gs = sessions.owned_session(user, session_id)
    sessions.replace_share_link(gs)
    return jsonify(session_json(gs))


@api.put("/sessions/<int:session_id>/rules", "Change the house rules or stake for the hands "
         "to come.", {"200": ("The session.", SessionJson)}, S)
def change_rules(user: User, session_id: int, body: RulesChangeBody) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    if not body.sent():
        raise TonkError(Message("api.rules_or_stake"), "rules")
    sessions.change_rules(gs, user, rules=gs.rules_spec if body.rules is None else body.rules,
                          stake=body.stake)
    return jsonify(session_json(gs))


@api.post("/sessions/<int:session_id>/close", "Close a session: once everything is paid, or "
          "with carry_over the open transfers are kept as debts. The body may be empty.",
          {"200": ("The session, closed.", SessionJson)}, S)
def close_session(user: User, session_id: int, body: Close) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    sessions.close_session(gs, body.carry_over)
    return jsonify(session_json(gs))


@api.post("/sessions/<int:session_id>/seats", "A player joins (at the dealer's right, or "
          "after a named player) or leaves; earlier hands keep their seats.",
          {"200": ("The session as it is now.", SessionJson)}, S)
def change_seats(user: User, session_id: int, body: SeatsChange) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    gs = sessions.change_seats(gs, user, join=body.join, after=body.after, leave=body.leave)
    return jsonify(session_json(gs))


@api.post("/sessions/<int:session_id>/archive", "Archive the session off the home page, or "
          "bring it back.", {"200": ("The session.", SessionJson)}, S)
def archive_session(user: User, session_id: int, body: Archive) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    return jsonify(session_json(set_archived(gs, body.archived)))


@api.delete("/sessions/<int:session_id>", "Delete a session with no hand and no payment (409 "
            "once it has one: archive it instead).",
            {"200": ("Deleted.", DeletedJson)}, S)
def delete_session(user: User, session_id: int) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    sessions.delete_session(gs)
    return jsonify(DeletedJson(deleted=session_id))


# -- hands -----------------------------------------------------------------------------------

@api.post("/sessions/<int:session_id>/hands", "Record the next hand under the session's rules.",
          {"201": ("The hand, its number and result.", RecordedHandJson)}, S)
def record_hand(user: User, session_id: int, body: TableHand) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    hand = sessions.record_hand(gs, user, body.sent())
    return created(hand_json(hand), url_for("api.get_hand", session_id=gs.id,
                                             number=hand.number))


@api.get("/sessions/<int:session_id>/hands/<int:number>", "A hand's current version.",
         {"200": ("The hand.", RecordedHandJson)}, H)
def get_hand(user: User, session_id: int, number: int) -> Response:
    return jsonify(hand_json(sessions.get_hand(sessions.owned_session(user, session_id), number)))


@api.put("/sessions/<int:session_id>/hands/<int:number>", "Correct a hand; the old version "
         "stays in its history.", {"200": ("The new version.", RecordedHandJson)}, H)
def correct_hand(user: User, session_id: int, number: int, body: Correction) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    sessions.get_hand(gs, number)
    data = dict(body.sent())
    reason, version = data.pop("reason", None), data.pop("version", None)
    return jsonify(hand_json(sessions.correct_hand(gs, user, number, data, reason, version)))


@api.delete("/sessions/<int:session_id>/hands/<int:number>", "Void a hand: it no longer "
            "counts, and stays in the history.", {"200": ("The voided hand.", RecordedHandJson)},
            H)
def void_hand(user: User, session_id: int, number: int, body: Void) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    sessions.get_hand(gs, number)
    return jsonify(hand_json(sessions.void_hand(gs, user, number, body.reason, body.version)))


@api.get("/sessions/<int:session_id>/hands/<int:number>/history", "Every version of a hand, "
         "oldest first: when, by whom, why.",
         {"200": ("The versions.", list[HandVersionJson])}, H)
def hand_history(user: User, session_id: int, number: int) -> Response:
    gs = sessions.owned_session(user, session_id)
    return jsonify(history_json(sessions.get_hand(gs, number)))


# -- totals and settle-up --------------------------------------------------------------------

#: Ledger bodies by the session's state (app.services.sessions.live): made once per change,
#: per worker.
LEDGERS: StateCache[bytes] = StateCache(512)


@api.get("/sessions/<int:session_id>/ledger", "Totals, what is paid and the transfers still "
         "open.", {"200": ("The ledger.", LedgerJson)}, S)
def get_ledger(user: User, session_id: int) -> Response:
    stamp, share_token = owned_stamp(user, session_id)  # one row while nothing changed
    body = LEDGERS.get((stamp.tag, share_token), lambda: json.dumps(
        ledger_json(sessions.owned_session(user, session_id))).encode())
    return Response(body, mimetype="application/json")


@api.post("/sessions/<int:session_id>/payments", "Mark a transfer paid, in full or in part.",
          {"200": ("The ledger after the payment.", LedgerJson)}, S)
def record_payment(user: User, session_id: int, body: NewPayment) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    for field, what in (("from", "who paid"), ("to", "who was paid"), ("amount", "how much")):
        if body.sent().get(field) in (None, ""):
            raise TonkError(Message("api.payment_field", what=what), field)
    try:
        sessions.record_payment(gs, user, body.payer, body.payee, body.amount)
    except TonkError as exc:  # the ledger names payer/payee; the API says from/to
        exc.field = {v: k for k, v in PAYMENT_FIELDS.items()}.get(exc.field or "", exc.field)
        raise
    except InvalidOperation:  # an amount too large for two decimal places, like "1e999"
        raise TonkError(Message("api.payment_amount", value=as_sent(body.amount)),
                        "amount") from None
    return jsonify(ledger_json(gs))


@api.delete("/sessions/<int:session_id>/payments/<int:payment_id>", "Undo a payment with a "
            "reason: it stays in the history, marked undone; what it paid is open again.",
            {"200": ("The ledger after the undo.", LedgerJson)}, (SESSION_ID, PAYMENT_ID))
def undo_payment(user: User, session_id: int, payment_id: int, body: UndoPayment) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    sessions.undo_payment(gs, user, payment_id, body.reason)
    return jsonify(ledger_json(gs))


@api.get("/debts", "The unpaid debts carried over from your sessions.",
         {"200": ("The debts.", list[DebtJson])})
def list_debts(user: User) -> Response:
    return jsonify([debt_json(d) for d in open_debts_of(user)])


@api.post("/debts/<int:debt_id>/paid", "Mark a carried debt paid (who and when are kept).",
          {"200": ("The debt, paid.", DebtJson)}, (DEBT_ID,))
def mark_debt_paid(user: User, debt_id: int) -> Response:
    return jsonify(debt_json(mark_paid(user, debt_id)))
