"""A session's settle-up plan, kept: made when the totals change, not when money moves.

Each player's money comes from one function, :func:`money_of` (the seat totals, their
side-bet part and what the pots give back, made into parts by
:func:`app.core.night.player_money`); the settle-up balance is its total. What each still has
to get (+) or give (−) is that balance moved by every payment not undone
(:func:`remaining`). The plan (the fewest transfers, :func:`app.core.transfers.fewest_transfers`)
is stored as :class:`~app.db.models.PlannedTransfer` rows under the session's ``plan_no``;
a payment along a planned transfer names it and shrinks it alone.

The one rule of when a plan is re-made (:func:`keep_plan`): the open planned transfers
(planned minus what was paid along them) must settle exactly what remains. A hand recorded,
corrected or voided moves the totals, a payment outside the plan or the undoing of one moves
what remains without touching a planned transfer: then, and only then, a new plan is made
from what remains. A payment along the plan, or undoing one, keeps it.

No Flask here; the caller holds the session's lock (``ledger.locked``) when it writes.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, NamedTuple

from sqlalchemy import bindparam, insert, select

from ...core.money import from_minor, to_minor
from ...core.night import Money, left_open, player_money
from ...core.transfers import Transfer, fewest_transfers
from ...db.models import CarriedDebt, GameSession, PlannedTransfer, SettlePayment, User
from ...extensions import db
from .kept import plays_side_bets
from .pots import pot_returns, pot_totals

_ZERO = Decimal(0)
_INSERT_PLAN = insert(PlannedTransfer.__table__)  # (Core: no ORM object is made for a row)


@dataclass(frozen=True)
class PaymentMade:
    """A payment made at settle-up (a :class:`~app.db.models.SettlePayment` row) as the
    history shows it; :class:`Planned` is a transfer of the plan. Not the rules' payments
    within one hand (:class:`app.core.Payment`)."""

    id: int
    payer: str
    payee: str
    amount: Decimal
    at: datetime
    by: str
    planned: bool  # along a planned transfer (False: outside the plan)
    undone_at: datetime | None
    undone_by: str | None
    undo_reason: str | None

    @property
    def undone(self) -> bool:
        return self.undone_at is not None


@dataclass(frozen=True)
class Planned:
    """One transfer of the plan in force: planned, paid along it, still open."""

    id: int
    payer: str
    payee: str
    amount: Decimal
    paid: Decimal

    @property
    def open(self) -> Decimal:
        return self.amount - self.paid


@dataclass(frozen=True)
class Ledger:
    """A session's standing: totals, what has been paid, and what is still open.
    ``totals``: each player's total as every screen shows it (:attr:`money`'s, the pots'
    returns in it: they sum to zero)."""

    scoring: str
    totals: dict[str, Decimal]
    hands: int
    open: dict[str, Decimal]
    transfers: tuple[Transfer, ...]
    plan: tuple[Planned, ...] = ()
    payments: tuple[PaymentMade, ...] = ()
    #: Money waiting in each side bet's pot, and what of it goes back to each player at
    #: settle-up (already in ``totals``, ``open`` and ``transfers``).
    pots: dict[str, Decimal] = field(default_factory=dict)
    returns: dict[str, Decimal] = field(default_factory=dict)
    #: Each player's money by part (hands, side bets, pots back) and its total: what every
    #: screen shows of a player (:func:`money_of`).
    money: dict[str, Money] = field(default_factory=dict)

    @property
    def all_paid(self) -> bool:
        return not any(self.open.values())


def _names(gs: GameSession) -> dict[int, str]:
    """Player id → the name at this table."""
    return {s.player_id: s.name for s in gs.seats}


def _totals(gs: GameSession) -> dict[str, Decimal]:
    return {s.name: from_minor(s.total_minor) for s in gs.seats}


def money_of(gs: GameSession, *, parts: bool = True) -> dict[str, Money]:
    """Each player's money in the session as kept (:mod:`.kept`): the seat totals (hands and
    side bets), the side bets' part of them and what is left in the pots going back to who
    paid it in (docs/rules.md §9). ``parts``: the side bets apart (without it they are counted
    in ``hands``, the total the same; a night that never played one has no part for them)."""
    side = {s.name: from_minor(s.side_minor) for s in gs.seats} \
        if parts and plays_side_bets(gs) else {}
    return player_money(_totals(gs), side, pot_returns(gs))


def settle_balances(gs: GameSession) -> dict[str, Decimal]:
    """What each player is to get (+) or give (−) at settle-up: the one function the plan is
    made from: each player's total (:func:`money_of`)."""
    return {name: m.total for name, m in money_of(gs, parts=False).items()}


def _payment_rows(gs: GameSession) -> list[SettlePayment]:
    return list(db.session.scalars(select(SettlePayment).where(
        SettlePayment.session_id == gs.id).order_by(SettlePayment.id)))


_PAY = SettlePayment.__table__
#: What the plan reads of a session's payments (:func:`remaining`, :func:`_planned`), as
#: plain rows of a statement built once: no ORM object is made for them, and nothing
#: pending is flushed (a change of a payment flushes before the plan is kept).
_MOVES = select(_PAY.c.payer_seat, _PAY.c.payee_seat, _PAY.c.amount_minor, _PAY.c.transfer_id,
                _PAY.c.undone_at).where(_PAY.c.session_id == bindparam("session_id")
                                        ).order_by(_PAY.c.id)


def _payment_moves(gs: GameSession) -> list[Any]:
    return list(db.session.connection().execute(_MOVES, {"session_id": gs.id}))


def _plan_rows(gs: GameSession) -> list[PlannedTransfer]:
    return list(db.session.scalars(select(PlannedTransfer).where(
        PlannedTransfer.session_id == gs.id, PlannedTransfer.plan == gs.plan_no)
        .order_by(PlannedTransfer.id)))


def remaining(gs: GameSession, payments: Sequence[Any]) -> dict[str, Decimal]:
    """Each player's balance moved by every payment not undone."""
    return _moved(settle_balances(gs), [s.name for s in gs.seats], payments)


def _moved(left: dict[str, Decimal], seats: Sequence[str], payments: Sequence[Any]
           ) -> dict[str, Decimal]:
    return left_open(left, ((seats[p.payer_seat], seats[p.payee_seat],
                             from_minor(p.amount_minor))
                            for p in payments if p.undone_at is None))


def _planned(gs: GameSession, rows: list[PlannedTransfer],
             payments: Sequence[Any]) -> tuple[Planned, ...]:
    names = _names(gs)
    paid: dict[int, int] = {}
    for p in payments:
        if p.undone_at is None and p.transfer_id is not None:
            paid[p.transfer_id] = paid.get(p.transfer_id, 0) + p.amount_minor
    return tuple(Planned(r.id, names[r.payer_id], names[r.payee_id], from_minor(r.amount_minor),
                         from_minor(paid.get(r.id, 0))) for r in rows)


def settles(plan: tuple[Planned, ...], left: dict[str, Decimal]) -> bool:
    """Whether the open planned transfers bring exactly what remains to zero."""
    moved = dict.fromkeys(left, _ZERO)
    for t in plan:
        if t.open < 0:
            return False
        moved[t.payer] -= t.open
        moved[t.payee] += t.open
    return moved == {name: amount for name, amount in left.items()}


def keep_plan(gs: GameSession, scoring: str, *, totals_moved: bool = False) -> None:
    """Make a new plan from what remains if the one in force no longer settles it (under the
    session's lock, before the change commits). Push-ups move no money: no plan.

    ``totals_moved``: the change moved a seat's running total (a hand's), so it moved what
    remains: the plan in force settled what remained before (it is kept so), so it no
    longer does, and is not read to be sure."""
    if scoring == "push_ups":
        return
    payments = _payment_moves(gs)
    left = remaining(gs, payments)
    if not totals_moved and settles(_planned(gs, _plan_rows(gs), payments), left):
        return
    gs.plan_no += 1
    ids = {s.name: s.player_id for s in gs.seats}
    rows = [{"session_id": gs.id, "plan": gs.plan_no, "payer_id": ids[t.payer],
             "payee_id": ids[t.payee], "amount_minor": to_minor(t.amount)}
            for t in fewest_transfers(left)]
    if rows:  # one INSERT of many rows (no ids read back: nothing here uses them)
        db.session.connection().execute(_INSERT_PLAN, rows)


def read_ledger(gs: GameSession, scoring: str, hands: int) -> Ledger:
    """Totals, the plan in force with what was paid along it (and, once closed, the debts
    carried over marked paid since), and every payment."""
    if scoring == "push_ups":
        totals = _totals(gs)
        return Ledger(scoring, totals, hands, dict.fromkeys(totals, _ZERO), (),
                      money=player_money(totals, {}, {}))
    seats = [s.name for s in gs.seats]
    rows = _payment_rows(gs)
    users = {u.id: u.name for u in db.session.scalars(select(User).where(
        User.id.in_({p.created_by_id for p in rows})))} if rows else {}
    payments = tuple(PaymentMade(p.id, seats[p.payer_seat], seats[p.payee_seat],
                                 from_minor(p.amount_minor), p.created_at,
                                 p.by_name or users.get(p.created_by_id, ""),
                                 p.transfer_id is not None,
                                 p.undone_at, p.undone_by_name, p.undo_reason) for p in rows)
    money = money_of(gs)
    totals = {name: m.total for name, m in money.items()}
    plan_rows = _plan_rows(gs)
    moves: list[SettlePayment | _Move] = [*rows, *(
        _debts_paid(gs, plan_rows) if gs.closed_at is not None else ())]
    left = _moved(totals, seats, moves)
    plan = _planned(gs, plan_rows, moves)
    if not settles(plan, left):  # not kept yet (an old database): what would be kept
        plan = tuple(Planned(0, t.payer, t.payee, t.amount, _ZERO)
                     for t in fewest_transfers(left))
    transfers = tuple(Transfer(t.payer, t.payee, t.open) for t in plan if t.open)
    return Ledger(scoring, totals, hands, left, transfers, plan, payments, pot_totals(gs),
                  {n: m.pots_back for n, m in money.items() if m.pots_back}, money)


class _Move(NamedTuple):
    """A payment as the plan reads it (:data:`_MOVES`'s columns)."""

    payer_seat: int
    payee_seat: int
    amount_minor: int
    transfer_id: int | None
    undone_at: datetime | None = None


def _debts_paid(gs: GameSession, plan: Sequence[PlannedTransfer]) -> list[_Move]:
    """A closed session's carried debts marked paid (:mod:`.debts`), as payments along the
    transfers of the plan it closed with that they were: what was open, paid, so that its
    open transfers and balances say so as the debts do."""
    seat = {s.player_id: i for i, s in enumerate(gs.seats)}
    along = {(t.payer_id, t.payee_id): t.id for t in plan}
    return [_Move(seat[d.payer_id], seat[d.payee_id], d.amount_minor,
                  along.get((d.payer_id, d.payee_id)))
            for d in db.session.scalars(select(CarriedDebt).where(
                CarriedDebt.session_id == gs.id, CarriedDebt.paid_at.is_not(None))
                .order_by(CarriedDebt.id))]


def planned_transfer(gs: GameSession, payer: str, payee: str) -> Planned | None:
    """The open planned transfer from ``payer`` to ``payee``, if the plan has one."""
    for t in _planned(gs, _plan_rows(gs), _payment_moves(gs)):
        if t.payer == payer and t.payee == payee and t.open > 0:
            return t
    return None
