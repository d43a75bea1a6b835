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
import secrets
from collections.abc import Callable, Mapping
from datetime import datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, event, insert, inspect, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import (
    InstanceState,
    Session,
    SessionTransaction,
    joinedload,
    make_transient_to_detached,
)
from sqlalchemy.sql import ClauseElement

from ...core import Rules, TonkError, parse_hand, resolve_rules, settle
from ...core.hand import PlayedHand, parse_players
from ...core.messages import Message, in_english
from ...core.money import (
    parse_stake,
    stake_of,
    to_minor,
)
from ...core.names import name_key
from ...core.parts import seat_nets
from ...core.settle import Result
from ...core.versions import check_action
from ...db.ids import is_id, row_by_id
from ...db.models import (
    Author,
    CarriedDebt,
    GameSession,
    Hand,
    HandVersion,
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
from .entries import apply_nets
from .inputs import parse_amount, parse_currency, parse_reason, parse_session_name
from .pots import read_plays, replay, side_bets_text
from .settleup import Ledger, keep_plan, planned_transfer, read_ledger

# -- reading ---------------------------------------------------------------------------------

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


def replace_share_link(gs: GameSession) -> str:
    """A new read-only link for the session: the old one stops working at once (anyone
    who had it sees "not found"). Returns the new token."""
    gs.share_token = new_share_token()
    db.session.commit()
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


def known_player_names(user: User) -> list[str]:
    """Names this account has played with, for suggestions."""
    return list(db.session.scalars(select(Player.name).where(Player.owner_id == user.id)
                                   .order_by(Player.name)))


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
    """Start a session (:func:`start_session`) and commit it."""
    gs = start_session(user, **settings)
    db.session.commit()
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


def change_rules(gs: GameSession, user: User, *, rules: Any, stake: Any = None) -> None:
    """New house rules (and stake) for the hands recorded from now on."""
    gs = locked(gs)
    check_open(gs)
    resolved = resolve_rules(rules)
    kept = str(session_stake(gs)) if gs.stake_minor else None  # from push-ups: default 1
    amount = parse_stake(stake if stake is not None else kept, resolved, gs.currency)
    if gs.side_bets_json:  # the side bets must still be playable (their stakes as set)
        side_bets_text(gs.side_bets_spec, stake=amount, rules=resolved, currency=gs.currency)
    gs.rules_json = json.dumps(resolved.to_json())
    gs.stake_minor = to_minor(amount)
    db.session.add(RulesChange(session_id=gs.id, from_hand=gs.hand_count + 1,
                               rules_json=gs.rules_json, stake_minor=gs.stake_minor,
                               created_by_id=user.id))
    _keep_plan(gs)  # money, points or push-ups: what settle-up moves may change
    db.session.commit()


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


#: The rows :func:`_write_changes` writes, by their model: their columns, and the UPDATE of
#: one (built once; it sets the columns its parameters name).
_COLUMNS = {model: frozenset(model.__table__.c.keys()) for model in (GameSession, Hand)}
_UPDATES = {model: update(model.__table__).where(model.__table__.c.id == bindparam("row_id"))
            for model in (GameSession, Hand)}


def _write_changes(*rows: GameSession | Hand) -> None:
    """Write what a hand's change moved of loaded rows (the session's revision, hand count,
    dealer, plan number and pots; a hand's version and facts) by one plain UPDATE of those
    columns each, under the session's lock: the ORM's flush of the objects cost more than
    the statements. Each row is then as written, clean, as a flush leaves it (nothing is
    left for the commit to flush); a row with a change of anything but its columns, or one
    set to an SQL expression, is left to the flush, as it is."""
    if db.session().get_nested_transaction() is not None:
        return  # a savepoint's rollback restores only what its flushes wrote: left to them
    connection = db.session.connection()
    for row in rows:
        state: InstanceState[Any] = inspect(row)
        changed = {key: state.dict[key] for key in state.committed_state}
        if not changed or not changed.keys() <= _COLUMNS[type(row)] or any(
                isinstance(value, ClauseElement) for value in changed.values()):
            continue
        connection.execute(_UPDATES[type(row)], {**changed, "row_id": row.id})
        # what a flush does to the rows it wrote (SQLAlchemy's own step): committed, clean
        state._commit_all(state.dict, db.session.identity_map)


def _check_version(hand: Hand, expected: Any) -> None:
    """A correction or void made from version ``expected`` (None: from whatever is there)."""
    if expected is None or expected == "":
        return
    try:
        version = int(expected)
    except (TypeError, ValueError):
        raise LedgerError(Message("change.version", value=repr(expected)),
                          "version") from None
    if isinstance(expected, bool) or version != hand.version:
        raise VersionConflictError(hand, version)


def check_open(gs: GameSession) -> None:
    if gs.is_closed:
        raise SessionClosedError(Message("session.closed"))


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


def _settle_for(gs: GameSession, data: Any, table: Mapping[str, Any] | None) -> tuple[
        PlayedHand, Result, str]:
    """Validate ``data`` under the session's rules and the players seated now (or a stored
    hand's own table facts and players): the hand, its result, and the hand as stored
    (docs/rules.md §1, with its side bets)."""
    if not isinstance(data, Mapping):
        raise LedgerError(Message("hand.not_object"))
    data = dict(data)
    side_bets = data.pop("side_bets", None)
    default_dealer: Any
    if table is None:
        rules, stake = session_rules(gs), session_stake(gs)
        default_dealer, players = gs.dealer, seated_names(gs)
    else:
        rules, stake = rules_of(json.dumps(table["rules"])), Decimal(table["stake"])
        default_dealer, players = table.get("dealer"), tuple(table["players"])
    if data.get("dealer") in (None, ""):
        data["dealer"] = default_dealer
    hand = parse_hand(data, rules=rules, stake=stake, players=players)
    stored = hand.to_json()
    plays = read_plays(gs, rules, side_bets, players)
    if plays:
        stored["side_bets"] = plays
    return hand, settle(hand), json.dumps(stored)


_HANDS = Hand.__table__
_INSERT_HAND = insert(_HANDS).returning(_HANDS.c.id)
_INSERT_VERSION = insert(HandVersion.__table__)


def _inserted(row: dict[str, Any], version: dict[str, Any]) -> Hand:
    """A new hand and its first version, inserted by two plain statements built once (the
    ORM's flush of the two objects cost more than the statements, under the session's
    lock): the hand as the session's own object, loaded and clean, as if just read."""
    connection = db.session.connection()
    hand_id = connection.execute(_INSERT_HAND, row).scalar_one()
    connection.execute(_INSERT_VERSION, {**version, "hand_id": hand_id})
    hand = Hand(id=hand_id, **row)
    make_transient_to_detached(hand)
    db.session.add(hand)
    return hand


def _add_version(hand: Hand, action: str, hand_json: str, result_json: str, reason: str | None,
                 by_id: int, by_name: str, now: datetime) -> None:
    """A hand's new version (``hand.version``), inserted by the plain statement built once,
    beside its hand: the versions before are not read for it."""
    db.session.connection().execute(_INSERT_VERSION, {
        "hand_id": hand.id, "version": hand.version, "action": action, "hand_json": hand_json,
        "result_json": result_json, "reason": reason, "created_by_id": by_id,
        "by_name": by_name, "created_at": now})


def record_hand(gs: GameSession, user: Author, data: Any) -> Hand:
    """Record the next hand under the session's current rules; the dealer defaults to the
    next seat after the last hand's dealer. Two scorekeepers saving at the same moment both
    get their hand, numbered in the order they were saved."""
    by_id, by_name = user.id, user.name  # (read before the lock expires what was loaded)
    gs = locked(gs)
    check_open(gs)
    check_room(gs)
    with in_english():  # stored in one language; pages show it in the reader's
        core, result, hand_json = _settle_for(gs, data, None)
        result_json = json.dumps(result.to_json())
    nets = _nets(gs, result)
    now = utcnow()
    hand = _inserted({
        "session_id": gs.id, "number": gs.hand_count + 1, "version": 1, "voided": False,
        "outcome": result.outcome, "hand_json": hand_json, "result_json": result_json,
        "nets_json": json.dumps(nets), "side_nets_json": "[]", "side_result_json": "[]",
        "created_at": now, "updated_at": now}, {
        "version": 1, "action": "recorded", "hand_json": hand_json, "result_json": result_json,
        "reason": None, "created_by_id": by_id, "by_name": by_name, "created_at": now})
    gs.hand_count = hand.number  # (the session's row is written once, at commit)
    seated = gs.seated
    gs.next_dealer = seated[(core.dealer + 1) % len(seated)].seat
    _change_nets(gs, hand, [], nets, result, new_hand=True)  # (nets_json stays: no UPDATE)
    return hand


def correct_hand(gs: GameSession, user: Author, number: int, data: Any, reason: Any,
                 version: Any = None) -> Hand:
    """Replace a hand's facts, under the rules it was first settled under. The old version
    stays in the history; totals follow at once. Correcting a voided hand restores it.
    ``version``: the version the correction was made from; another one is a conflict."""
    by_id, by_name = user.id, user.name  # (read before the lock expires them)
    gs = locked(gs)
    check_open(gs)
    why = parse_reason(reason)
    hand = get_hand(gs, number)
    _check_version(hand, version)
    if hand.voided:
        check_room(gs, restoring=number)
    with in_english():
        _core, result, hand_json = _settle_for(gs, data, hand.data)
        result_json = json.dumps(result.to_json())
    old = [] if hand.voided else hand.nets
    gs.voided_hands -= hand.voided  # a voided hand corrected counts again
    hand.version += 1
    now = utcnow()
    _add_version(hand, "corrected", hand_json, result_json, why, by_id, by_name, now)
    hand.voided, hand.outcome = False, result.outcome
    hand.hand_json, hand.result_json, hand.updated_at = hand_json, result_json, now
    _change_nets(gs, hand, old, _nets(gs, result), result)
    return hand


def void_hand(gs: GameSession, user: Author, number: int, reason: Any,
              version: Any = None) -> Hand:
    """Void a hand: it stays in the history but no longer counts."""
    by_id, by_name = user.id, user.name  # (read before the lock expires them)
    gs = locked(gs)
    check_open(gs)
    why = parse_reason(reason)
    hand = get_hand(gs, number)
    _check_version(hand, version)
    try:
        check_action(hand.version + 1, "voided", hand.voided)
    except TonkError as exc:
        raise LedgerError(Message("change.of_hand", number=number, error=exc.said),
                          "number") from None
    hand.version += 1
    now = utcnow()
    _add_version(hand, "voided", hand.hand_json, hand.result_json, why, by_id, by_name, now)
    old = hand.nets
    hand.voided, hand.updated_at = True, now
    gs.voided_hands += 1
    _change_nets(gs, hand, old, [0] * len(old), None)
    return hand


def history(hand: Hand) -> list[dict[str, Any]]:
    """Every version of a hand, oldest first, with when (``at``, an aware UTC time), by whom
    and why."""
    return [{"version": v.version, "action": v.action, "at": v.created_at,
             "by": v.by_name, "reason": v.reason, "hand": json.loads(v.hand_json),
             "result": json.loads(v.result_json)} for v in hand.versions]


# -- totals and settle-up --------------------------------------------------------------------

def _change_nets(gs: GameSession, hand: Hand, old: list[int], new: list[int],
                 result: Result | None, *, new_hand: bool = False) -> None:
    """The rest of a hand's change, once the hand says what it is now: totals, entries and
    records moved from ``old`` to ``new``, the side bets settled again, the settle-up plan
    kept (made again if the totals moved), the changed rows written, committed."""
    before = _totals(gs)
    apply_nets(gs, hand, old, new, result, new_hand=new_hand)
    replay(gs, session_rules(gs), player_names(gs), appended=hand if new_hand else None)
    _keep_plan(gs, payments_changed=False, totals_moved=_totals(gs) != before)
    _write_changes(gs, hand)
    db.session.commit()


def _totals(gs: GameSession) -> list[int]:
    """The seats' running totals as loaded (kept up to date by the writes that move them)."""
    return [seat.total_minor for seat in gs.seats]


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
                                      most=along.open), "amount")
    else:
        owes, owed = -state.open[payer], state.open[payee]
        if owes <= 0:
            raise LedgerError(Message("payment.owes_nothing", payer=payer), "payer")
        if owed <= 0:
            raise LedgerError(Message("payment.owed_nothing", payee=payee), "payee")
        if value > min(owes, owed):
            raise LedgerError(Message("payment.more_than_open", payer=payer, payee=payee,
                                      most=min(owes, owed)), "amount")
    payment = SettlePayment(session_id=gs.id, payer_seat=names.index(payer),
                            payee_seat=names.index(payee), amount_minor=to_minor(value),
                            created_by_id=user.id, by_name=user.name,
                            transfer_id=along.id if along else None,
                            created_at=utcnow())
    db.session.add(payment)
    _keep_plan(gs)  # outside the plan: what remains is planned again
    db.session.commit()
    return payment.id


def undo_payment(gs: GameSession, user: User, payment_id: int, reason: Any) -> SettlePayment:
    """Undo a payment (a mis-tap): it stays in the history, marked undone with who, when and
    why; what it paid is open again."""
    gs = locked(gs)
    check_open(gs)
    if not isinstance(reason, str) or not reason.strip():
        raise LedgerError(Message("payment.no_reason"), "reason")
    why = parse_reason(reason)
    payment = row_by_id(SettlePayment, payment_id)
    if payment is None or payment.session_id != gs.id:
        raise NotFoundError(Message("payment.not_found", payment_id=payment_id))
    if payment.undone_at is not None:
        raise LedgerError(Message("payment.undone", payment_id=payment_id), "payment")
    payment.undone_at, payment.undone_by_name, payment.undo_reason = utcnow(), user.name, why
    _keep_plan(gs)
    db.session.commit()
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
    db.session.commit()
    for listener in session_closed:
        listener(gs)


def running_totals(gs: GameSession) -> list[tuple[int, list[int | None]]]:
    """(hand number, each seat's running total in minor units) after every counted hand,
    for the chart: the one reader of every hand's nets, one small column a hand. A seat is
    None before the point it joined at (a player who sat down after hand 3 starts at 0
    there, not at the start of the night)."""
    rows = db.session.execute(select(Hand.number, Hand.nets_json, Hand.side_nets_json).where(
        Hand.session_id == gs.id, Hand.voided.is_(False)).order_by(Hand.number)).all()
    seats = len(gs.seats)
    running = [0] * seats
    series: list[tuple[int, list[int | None]]] = [(0, list(running))]
    first = [len(rows) + 1] * seats  # the first point a seat has a hand at (its join after)
    for number, nets_json, side_json in rows:
        hand_nets = json.loads(nets_json)
        for seat in range(min(len(hand_nets), seats)):
            first[seat] = min(first[seat], len(series))
        for nets in (hand_nets, json.loads(side_json)):
            for seat, amount in enumerate(nets):
                running[seat] += amount
        series.append((number, list(running)))
    for seat in range(seats):  # no line before a player sat down: it starts at their 0
        for _number, totals in series[:first[seat] - 1]:
            totals[seat] = None
    return series
