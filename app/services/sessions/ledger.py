"""The ledger of a night at the table: start a session, record, correct and void hands,
change the house rules, keep running totals, settle up and close.

The centre of the night's money, beside its parts in this package: seats
(:mod:`~app.services.sessions.seats`: who joins or leaves keeps their seat row), side-bet
pots (:mod:`~app.services.sessions.pots`, replayed after every change of a hand), the kept
settle-up plan (:mod:`~app.services.sessions.settleup`), debts carried over
(:mod:`~app.services.sessions.debts`) and archiving (:mod:`~app.services.sessions.archive`);
who may keep a session is decided in :mod:`~app.services.sessions.access`, what people type
is read in :mod:`~app.services.sessions.inputs`.
Pages, API and CLI all call these functions, so they validate the same way (through the
domain core) and keep the same invariants: every change of a hand writes a new
:class:`HandVersion` (nothing is erased), and each seat's running total moves by exactly
the change in that seat's net, in the same transaction. Errors are
:class:`~app.core.errors.TonkError` subclasses with messages for a person; their HTTP status
is :data:`app.services.errors.STATUS` (not found 404; closed, or a hand changed meanwhile,
409).

Every change of a session's money (record, correct, void, payment, rules, close) runs under
the session's lock (:func:`locked`): it reads the session afresh once no other change of it
can be under way, so two scorekeepers saving at once are applied one after the other, hand
numbers are allocated without gaps or duplicates, and a payment is checked against what is
still open.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import bindparam, event, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import (
    Session,
    SessionTransaction,
    joinedload,
)

from ...core import resolve_rules
from ...core.hand import parse_players
from ...core.messages import Message, in_english
from ...core.money import (
    parse_stake,
    said_amount,
    to_minor,
)
from ...core.names import name_key
from ...core.night import Night, apply
from ...core.parts import seat_nets
from ...core.settle import Result
from ...core.versions import made_from
from ...db.ids import is_id, row_by_id
from ...db.models import (
    Author,
    CarriedDebt,
    GameSession,
    Hand,
    Player,
    RulesChange,
    SessionPlayer,
    SettlePayment,
    User,
    utcnow,
)
from ...db.storage import begin_write
from ...extensions import db
from ..errors import (
    HandLimitError,
    LedgerError,
    NotFoundError,
    SessionClosedError,
    VersionConflictError,
)
from .access import is_league_admin, keeps_score, kept_by
from .entries import replace_entries
from .folded import running_totals as running_totals
from .inputs import parse_amount, parse_currency, parse_reason, parse_session_name
from .kept import keep, kept_night, night_from, plays_side_bets
from .pots import side_bets_text
from .reading import (
    counted_hands,
    new_share_token,
)

# (re-exported: the package's seats and the tests reach these through this module)
from .reading import history as history
from .reading import player_names as player_names
from .reading import seated_names as seated_names
from .reading import session_rules as session_rules
from .reading import session_stake as session_stake
from .settleup import Ledger, keep_plan, planned_transfer, read_ledger
from .writes import add_version, insert_hand

# -- reading (the rest of it: :mod:`.reading`) ------------------------------------------------


def owned_session(user: User, session_id: int, *, to_change: bool = False) -> GameSession:
    """The session ``session_id`` if ``user`` keeps its score (:func:`keeps_score`), else
    :class:`NotFoundError`. ``to_change``: the caller is about to change its money: the
    session is read once, under its lock, with its seats (:func:`locked`, which then has
    nothing left to do), not read a first time and again under the lock."""
    if not to_change:
        gs = row_by_id(GameSession, session_id)
    else:
        gs = _lock(session_id, user) if is_id(session_id) else None
    if gs is None or not keeps_score(user, gs):
        raise NotFoundError(Message("session.not_yours", session_id=session_id))
    if to_change:
        _move_on(gs)
    return gs


def replace_share_link(gs: GameSession) -> str:
    """A new read-only link for the session: the old one stops working at once (anyone
    who had it sees "not found"). Returns the new token."""
    gs.share_token = new_share_token()
    db.session.flush()
    return gs.share_token


_HAND = select(Hand).where(Hand.session_id == bindparam("session_id"),
                           Hand.number == bindparam("number"))


def get_hand(gs: GameSession, number: int) -> Hand:
    """The session's hand ``number``, or :class:`NotFoundError`. Nothing pending is flushed
    for it (a hand is written only by the change that reads it: the session's row, moved
    on under its lock, is written once, at commit). Under the session's lock a hand is read
    once (the API's view checks it is there, the change then reads it): no other change
    can move it meanwhile."""
    read = db.session.info.get(_HANDS_READ) if db.session.info.get(_LOCKED) is gs else None
    if read is not None and number in read:  # read under the session's lock: as it is now
        return read[number]
    with db.session.no_autoflush:
        hand = None if not is_id(number) else db.session.scalar(
            _HAND, {"session_id": gs.id, "number": number})
    if hand is None:
        raise NotFoundError(Message("hand.not_found", number=number))
    if read is not None:
        read[number] = hand
    return hand


# -- sessions --------------------------------------------------------------------------------

def player_named(user: User, name: str, league_id: int | None = None) -> Player:
    """The player called ``name``: among the league's members for a league session (a new
    name becomes a member), else among the account's own players."""
    scope = (Player.league_id == league_id if league_id is not None
             else (Player.owner_id == user.id) & Player.league_id.is_(None))
    query = select(Player).where(scope, Player.name_key == name_key(name))
    found = db.session.scalar(query)
    if found is None:
        try:
            with db.session.begin_nested():  # another session may add the name meanwhile
                found = Player(owner_id=user.id, league_id=league_id, name=name)
                db.session.add(found)
        except IntegrityError:
            found = db.session.scalar(query)
            if found is None:
                raise
    return found


def create_session(user: User, **settings: Any) -> GameSession:
    """Start a session (:func:`start_session`), flushed (the write boundary commits it)."""
    gs = start_session(user, **settings)
    db.session.flush()
    return gs


def start_session(user: User, *, name: Any, players: Any, rules: Any = "pagat",
                  stake: Any = None, currency: Any = None, first_dealer: Any = None,
                  league_id: int | None = None, side_bets: Any = None) -> GameSession:
    """Start a session: players in seat order, the first dealer, stake, house rules and
    side bets; in a league (whose admins may start sessions), its players are the league's
    members. Flushed, not committed: a caller starting several (a tournament round's
    tables) commits them together or not at all."""
    if league_id is not None and not is_league_admin(user, league_id):
        raise NotFoundError(Message("league.not_yours", league_id=league_id), "league")
    name = parse_session_name(name)
    resolved = resolve_rules(rules)
    currency = parse_currency(currency)
    amount = parse_stake(stake, resolved, currency)
    seats = parse_players(players)
    side_bets_json = side_bets_text(side_bets, stake=amount, rules=resolved,
                                    currency=currency)
    if first_dealer in (None, ""):
        dealer = 0
    elif first_dealer in seats:
        dealer = seats.index(first_dealer)
    else:
        raise LedgerError(Message("session.first_dealer", first_dealer=first_dealer),
                          "first_dealer")
    gs = GameSession(owner_id=user.id, name=name, currency=currency,
                     stake_minor=to_minor(amount), rules_json=json.dumps(resolved.to_json()),
                     share_token=new_share_token(), next_dealer=dealer, hand_count=0,
                     league_id=league_id, created_at=utcnow(), side_bets_json=side_bets_json,
                     pots_json="{}")
    members = [player_named(user, p, league_id) for p in seats]
    gs.seats = [SessionPlayer(seat=i, position=i, name=m.name, player=m, total_minor=0)
                for i, m in enumerate(members)]
    db.session.add(gs)
    db.session.flush()
    return gs


def change_rules(gs: GameSession, user: User, *, rules: Any, stake: Any = None) -> bool:
    """New house rules (and stake) for the hands recorded from now on. No stake keeps the
    session's. Rules and stake the session plays already are no change: nothing is stored
    and the answer is False (the pages say nothing changed)."""
    gs = locked(gs)
    check_open(gs)
    resolved = resolve_rules(rules)
    kept = str(session_stake(gs)) if gs.stake_minor else None  # from push-ups: default 1
    amount = parse_stake(stake if stake is not None else kept, resolved, gs.currency)
    if resolved == session_rules(gs) and to_minor(amount) == gs.stake_minor:
        return False
    if gs.side_bets_json:  # the side bets must still be playable (their stakes as set)
        side_bets_text(gs.side_bets_spec, stake=amount, rules=resolved, currency=gs.currency)
    gs.rules_json = json.dumps(resolved.to_json())
    gs.stake_minor = to_minor(amount)
    db.session.add(RulesChange(session_id=gs.id, from_hand=gs.hand_count + 1,
                               rules_json=gs.rules_json, stake_minor=gs.stake_minor,
                               created_by_id=user.id))
    _keep_plan(gs)  # money, points or push-ups: what settle-up moves may change
    db.session.flush()
    return True


def locked(gs: GameSession) -> GameSession:
    """The session again, read afresh under its lock: no other change of its money can be
    under way until this transaction ends (PostgreSQL: its row ``FOR NO KEY UPDATE``, then the
    row and its seats read; SQLite: the write lock, taken before anything is read). A
    session this transaction has locked already (``owned_session(..., to_change=True)``)
    is the one returned, as it is.

    Its revision moves on and ``updated_at`` is now, in the same transaction: whoever
    watches the session (the share view) sees every change, and only changes. They are
    written with the change's own write of the session's row, in its one UPDATE at
    commit."""
    if db.session.info.get(_LOCKED) is gs:
        return gs
    session_id = gs.id
    fresh = _lock(session_id)
    if fresh is None:
        raise NotFoundError(Message("session.not_yours", session_id=session_id))
    _move_on(fresh)
    return fresh


#: In a database session's info: the game session its transaction holds the lock of, and
#: its hands read since (by number).
_LOCKED, _HANDS_READ = "tonk_locked_session", "tonk_hands_read"
#: The session's row locked (its id read, nothing more), then the row read afresh with its
#: seats, by a statement begun once the lock is held (built once).
_LOCK = select(GameSession.id).where(GameSession.id == bindparam("session_id")).with_for_update(
    key_share=True)
#: The same, of a session only if the account keeps its score: another account's session is
#: "not found" without its row locked, or waited for while its owner changes it.
_LOCK_KEPT = select(GameSession.id).where(
    GameSession.id == bindparam("session_id"), kept_by(bindparam("user_id"))).with_for_update(
    key_share=True)
_READ = select(GameSession).where(GameSession.id == bindparam("session_id")).options(
    joinedload(GameSession.seats)).execution_options(populate_existing=True)


def _lock(session_id: int, user: User | None = None) -> GameSession | None:
    """Lock the session's row, then read it afresh with its seats (None: there is none).
    What was loaded before is expired: it may have changed before the lock was taken. The
    read is a statement of its own, begun once the lock is held: the statement that waits
    for the lock reads the other tables (the seats) as they were when it began, before the
    change it waited for committed."""
    begin_write()
    for row in list(db.session.identity_map.values()):
        if not isinstance(row, User):  # who writes holds no money: kept as read (no SELECT
            db.session.expire(row)     # of it again for the answer's language)
    found = db.session.connection().execute(_LOCK, {"session_id": session_id}) if user is None \
        else db.session.connection().execute(_LOCK_KEPT, {"session_id": session_id,
                                                         "user_id": user.id})
    if found.first() is None:
        return None
    return db.session.scalars(_READ, {"session_id": session_id}).unique().first()


def _move_on(gs: GameSession) -> None:
    """The session's revision moves on with the change (written at commit): and it is the
    one locked in this transaction until it ends."""
    gs.revision += 1
    gs.updated_at = utcnow()
    db.session.info[_LOCKED] = gs
    db.session.info[_HANDS_READ] = {}


@event.listens_for(Session, "after_transaction_end")
def _unlocked(session: Session, transaction: SessionTransaction) -> None:
    """The lock is held until the database transaction ends (committed, rolled back or
    closed), not a savepoint inside it."""
    if transaction.parent is None:
        session.info.pop(_LOCKED, None)
        session.info.pop(_HANDS_READ, None)



def _check_version(hand: Hand, expected: Any) -> None:
    """A correction or void made from version ``expected`` (None: from whatever is there;
    else a whole number, :func:`app.core.versions.made_from`)."""
    version = made_from(expected)
    if version is not None and version != hand.version:
        raise VersionConflictError(hand, version)


def check_open(gs: GameSession) -> None:
    if gs.is_closed:
        raise SessionClosedError(Message("session.closed"), "session")


#: Asked for the most hands a session may count (None: no limit): what sets one (a
#: tournament round's hands per table) hangs here, so the ledger imports nothing above it.
hand_limits: list[Callable[[GameSession], int | None]] = []


def hand_limit(gs: GameSession) -> int | None:
    """The most hands ``gs`` may count (:data:`hand_limits`), or None. Nothing pending is
    flushed for it (under the session's lock its row is written once, at commit)."""
    with db.session.no_autoflush:
        found = [most for limit in hand_limits if (most := limit(gs)) is not None]
    return min(found, default=None)


def check_room(gs: GameSession, restoring: int | None = None) -> None:
    """Refuse a hand that would count past the session's limit: a new one, or void hand
    ``restoring`` corrected back. Checked under the session's lock, so two phones saving the
    last hand at once get one hand and a refusal."""
    most = hand_limit(gs)
    if most is None or counted_hands(gs) < most:
        return
    if restoring is None:
        raise HandLimitError(Message("hand.limit", most=most), "round")
    raise HandLimitError(Message("hand.limit_restore", number=restoring, most=most), "round")


# -- hands -----------------------------------------------------------------------------------

def _nets(gs: GameSession, result: Result) -> list[int]:
    """The hand's effect on each seat's total in minor units (0 for who did not play it)."""
    return seat_nets(player_names(gs), result)


def record_hand(gs: GameSession, user: Author, data: Any) -> Hand:
    """Record the next hand under the session's current rules; the dealer defaults to the
    next seat after the last hand's dealer. Two scorekeepers saving at the same moment both
    get their hand, numbered in the order they were saved."""
    by_id, by_name = user.id, user.name  # (read before the lock expires what was loaded)
    gs = locked(gs)
    check_open(gs)
    check_room(gs)
    before, rows = (kept_night(gs), {}) if not _pots_of_leavers(gs) else night_from(gs, 1)
    with in_english():  # stored in one language; pages show it in the reader's
        after = apply(before, {"kind": "hand", "hand": data})
        deal = after.hands[-1]
        result = deal.result
        assert result is not None  # (a deal just settled keeps its result)
        hand_json, result_json = json.dumps(dict(deal.data)), json.dumps(result.to_json())
    nets = _nets(gs, result)
    now = utcnow()
    hand = insert_hand({
        "session_id": gs.id, "number": gs.hand_count + 1, "version": 1, "voided": False,
        "outcome": result.outcome, "hand_json": hand_json, "result_json": result_json,
        "nets_json": json.dumps(nets), "side_nets_json": "[]", "side_result_json": "[]",
        "created_at": now, "updated_at": now}, {
        "version": 1, "action": "recorded", "hand_json": hand_json, "result_json": result_json,
        "reason": None, "created_by_id": by_id, "by_name": by_name, "created_at": now})
    gs.hand_count = hand.number  # (the session's row is written once, at commit)
    replace_entries(gs, hand, nets, result, new_hand=True)  # (nets_json stays: no UPDATE)
    _kept(gs, before, after, {**rows, hand.number: hand})
    return hand


def _to_change(gs: GameSession, user: Author, number: int, reason: Any, version: Any
               ) -> tuple[GameSession, Hand, str, tuple[int, str]]:
    """Hand ``number`` of ``gs`` to be corrected or voided: the session read again under its
    lock (open), the hand (at ``version``, if given), the reason checked, and who changes
    it (read before the lock expires them)."""
    by = (user.id, user.name)
    gs = locked(gs)
    check_open(gs)
    why = parse_reason(reason)
    hand = get_hand(gs, number)
    _check_version(hand, version)
    return gs, hand, why, by


def correct_hand(gs: GameSession, user: Author, number: int, data: Any, reason: Any,
                 version: Any = None) -> Hand:
    """Replace a hand's facts, under the rules it was first settled under. The old version
    stays in the history; totals follow at once. Correcting a voided hand restores it.
    ``version``: the version the correction was made from; another one is a conflict."""
    gs, hand, why, (by_id, by_name) = _to_change(gs, user, number, reason, version)
    if hand.voided:
        check_room(gs, restoring=number)
    before, rows = night_from(gs, number)
    with in_english():
        after = apply(before, {"kind": "corrected", "number": number, "hand": data})
        deal = after.hand(number)
        result = deal.result
        assert result is not None  # (a deal just settled keeps its result)
        hand_json, result_json = json.dumps(dict(deal.data)), json.dumps(result.to_json())
    gs.voided_hands -= hand.voided  # a voided hand corrected counts again
    hand.version += 1
    now = utcnow()
    add_version(hand, "corrected", hand_json, result_json, why, by_id, by_name, now)
    hand.voided, hand.outcome = False, result.outcome
    hand.hand_json, hand.result_json, hand.updated_at = hand_json, result_json, now
    replace_entries(gs, hand, _nets(gs, result), result)
    _kept(gs, before, after, rows)
    return hand


def void_hand(gs: GameSession, user: Author, number: int, reason: Any,
              version: Any = None) -> Hand:
    """Void a hand: it stays in the history but no longer counts."""
    gs, hand, why, (by_id, by_name) = _to_change(gs, user, number, reason, version)
    before, rows = night_from(gs, number)
    with in_english():
        after = apply(before, {"kind": "voided", "number": number})
    hand.version += 1
    now = utcnow()
    add_version(hand, "voided", hand.hand_json, hand.result_json, why, by_id, by_name, now)
    hand.voided, hand.updated_at = True, now
    gs.voided_hands += 1
    replace_entries(gs, hand, [0] * len(hand.nets), None)
    _kept(gs, before, after, rows)
    return hand


# -- totals and settle-up --------------------------------------------------------------------

def _kept(gs: GameSession, before: Night, after: Night, rows: dict[int, Hand]) -> None:
    """The rest of a hand's change, once the hand says what it is now: the night kept as it
    is after the change (:func:`.kept.keep`: the seats' money, the pots, the dealer, the side
    bets of the hands it moved), the settle-up plan kept (made again if the totals moved),
    the changed rows flushed (the write boundary commits them)."""
    totals_moved = keep(gs, before, after, rows)
    _keep_plan(gs, payments_changed=False, totals_moved=totals_moved)
    db.session.flush()


def _pots_of_leavers(gs: GameSession) -> bool:
    """Whether a pot as kept holds money of a player who is not at the table (kept before
    leavers took theirs out, 28 November): then the next hand plays the pots again from the
    first deal, as the core does for a night holding all its hands."""
    if not plays_side_bets(gs):
        return False
    seated = {s.seat for s in gs.seated}
    return any(seat not in seated for paid in json.loads(gs.pots_json or "{}").values()
               for seat, _minor in paid)


def _keep_plan(gs: GameSession, *, payments_changed: bool = True,
               totals_moved: bool = False) -> None:
    """Re-make the settle-up plan if (and only if) what remains to settle has changed
    (``totals_moved``: a hand's change left a seat's total other than it was, so it has).

    A hand's change touches no payment and no planned transfer: what the plan reads of them
    is stored already, so nothing is flushed for it, and the change is written with the
    plan's in one flush at commit (one UPDATE of the session row, not three)."""
    if payments_changed:
        db.session.flush()
        keep_plan(gs, session_rules(gs).scoring)
        return
    with db.session.no_autoflush:
        keep_plan(gs, session_rules(gs).scoring, totals_moved=totals_moved)


def ledger_of(gs: GameSession) -> Ledger:
    """Totals from the running totals (never from all hands), the stored settle-up plan and
    what has been paid along it (:mod:`app.services.sessions.settleup`)."""
    return read_ledger(gs, session_rules(gs).scoring, counted_hands(gs))


def record_payment(gs: GameSession, user: User, payer: Any, payee: Any,
                   amount: Any) -> int:
    """Mark money handed over at settle-up, in full or in part, checked under the session's
    lock (eight taps of one debt record one payment). Along a planned transfer it shrinks
    that transfer alone, and never past it; outside the plan (cash goes where it goes) any
    player who owes may pay any player who is owed, up to what both still have open, and
    what remains is planned again. Returns the payment's id."""
    gs = locked(gs)
    check_open(gs)
    names = player_names(gs)
    for who, field in ((payer, "payer"), (payee, "payee")):
        if who not in names:
            raise LedgerError(Message("payment.not_at_table", who=who), field)
    if payer == payee:
        raise LedgerError(Message("payment.themselves", payer=payer), "payee")
    state = ledger_of(gs)
    value = parse_amount(amount, gs.currency if state.scoring == "money" else None)
    if state.scoring == "push_ups":
        raise LedgerError(Message("payment.push_ups"), "amount")
    along = planned_transfer(gs, payer, payee)
    if along is not None:
        if value > along.open:
            raise LedgerError(Message("payment.more_than_planned", payer=payer, payee=payee,
                                      most=said_amount(along.open, gs.currency,
                                                       state.scoring)), "amount")
    else:
        owes, owed = -state.open[payer], state.open[payee]
        if owes <= 0:
            raise LedgerError(Message("payment.owes_nothing", payer=payer), "payer")
        if owed <= 0:
            raise LedgerError(Message("payment.owed_nothing", payee=payee), "payee")
        if value > min(owes, owed):
            raise LedgerError(Message("payment.more_than_open", payer=payer, payee=payee,
                                      most=said_amount(min(owes, owed), gs.currency,
                                                       state.scoring)), "amount")
    payment = SettlePayment(session_id=gs.id, payer_seat=names.index(payer),
                            payee_seat=names.index(payee), amount_minor=to_minor(value),
                            created_by_id=user.id, by_name=user.name,
                            transfer_id=along.id if along else None,
                            created_at=utcnow())
    db.session.add(payment)
    _keep_plan(gs)  # outside the plan: what remains is planned again
    db.session.flush()
    return payment.id


def undo_payment(gs: GameSession, user: User, payment_id: int, reason: Any) -> SettlePayment:
    """Undo a payment (a mis-tap): it stays in the history, marked undone with who, when and
    why; what it paid is open again."""
    gs = locked(gs)
    check_open(gs)
    if reason is None or isinstance(reason, str) and not reason.strip():
        raise LedgerError(Message("payment.no_reason"), "reason")  # (not text: parse_reason)
    why = parse_reason(reason)
    payment = row_by_id(SettlePayment, payment_id)
    if payment is None or payment.session_id != gs.id:
        raise NotFoundError(Message("payment.not_found", payment_id=payment_id))
    if payment.undone_at is not None:
        raise LedgerError(Message("payment.undone", payment_id=payment_id), "payment")
    payment.undone_at, payment.undone_by_name, payment.undo_reason = utcnow(), user.name, why
    _keep_plan(gs)
    db.session.flush()
    return payment


#: Called with a session once its closing has committed: what builds on the ledger (the
#: league service's ratings) hangs here, so the ledger imports nothing above it.
session_closed: list[Callable[[GameSession], None]] = []


def close_session(gs: GameSession, carry_over: Any = False,
                  settled_elsewhere: bool = False) -> None:
    """Close the session once everything is paid or, with ``carry_over``, keep what is still
    open as debts (:class:`CarriedDebt`, shown on the players' and league's pages until marked
    paid); then tell :data:`session_closed` (a league session's result moves its players'
    ratings). ``settled_elsewhere``: a tournament table under points, whose totals the
    event's standings settle: nothing is paid at the table, and nothing is kept as a debt."""
    if carry_over not in (True, False):
        raise LedgerError(Message("session.carry_over"), "carry_over")
    gs = locked(gs)
    check_open(gs)
    state = ledger_of(gs)
    if not state.all_paid and not carry_over and not settled_elsewhere:
        raise LedgerError(Message("session.not_settled_carry"), "carry_over")
    ids = {s.name: s.player_id for s in gs.seats}
    db.session.add_all(CarriedDebt(session_id=gs.id, payer_id=ids[t.payer],
                                   payee_id=ids[t.payee], amount_minor=to_minor(t.amount))
                       for t in state.transfers if not settled_elsewhere)
    gs.closed_at = utcnow()
    db.session.flush()
    for listener in session_closed:
        listener(gs)

