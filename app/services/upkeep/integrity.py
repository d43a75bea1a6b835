"""What must always hold of the stored data, checked from the rows themselves: ``tonk check``,
and the test suite after every scenario.

- each seat's running total equals the sum of its player's current entries, and the sum of
  the hands' stored nets for that seat, plus its side-bet money;
- every session sums to zero (money and points; push-ups count pushes, which do not), its
  pots counted: totals + pots = 0; and the pots are what a replay of the hands' side bets
  leaves in them, each leaver's stake taken out after the last deal they played: nobody who
  left the table has money in a pot;
- hand numbers run 1, 2, … without a gap, up to the session's count;
- every hand has each of its versions, 1 to its current one, the first "recorded", the
  last one's facts and result the hand's own, voided exactly when the last is a void;
- a counted hand has one entry per player it was played by, a voided hand none;
- each player's session record counts what their entries do, and their records in a
  session add up to their money there (seat total and what the pots give back);
- payments never take anyone past what they owed or were owed (pot returns counted, undone
  payments counting for nothing), as the ledger checks each when it is made: once a hand
  is recorded, corrected or voided after a payment, what was paid may exceed the new total
  (the plan then has it paid back, which the plan's own check below verifies);
- who deals next sits at the table;
- the session's count of void hands is the number of its void hands;
- the settle-up plan in force agrees with the totals and payments: nothing paid along a
  planned transfer past its amount, each payment along one between its two players, and
  the plan less what was paid along it settling exactly what remains (of an open session;
  of a closed one, what remains is exactly its carried debts; a closed points table of an
  event is settled by the event's standings instead);
- an event's rounds run 1, 2, … up to its number of rounds, only the last one open; each
  round seats each of the event's players at most once, only players of the event; a closed
  round's tables are closed; its tables play the event's scoring in its league and count
  no more hands than a round allows; each fee recorded is the event's fee or nothing;
- a player's kept payment handles are what the handles form or API would keep (an IBAN
  with a good checksum, each name as its service writes it).

Each problem is one sentence naming the session (and hand, and player) it is about.
"""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterator
from datetime import datetime
from decimal import Decimal

from sqlalchemy import and_, case, func, select

from ...core.errors import TonkError
from ...core.money import from_minor, to_minor
from ...core.names import name_key
from ...core.night import minor_totals
from ...core.parts import STAT_FIELDS
from ...db.models import (
    CarriedDebt,
    Event,
    EventTable,
    GameSession,
    Hand,
    HandEntry,
    HandVersion,
    PlannedTransfer,
    Player,
    PlayerSessionStat,
    SessionPlayer,
    SettlePayment,
)
from ...extensions import db
from ..pay import handle_problems
from ..sessions import (
    counted_hands,
    dump_pots,
    remaining,
    rules_of,
    session_rules,
    stored_night,
    trimmed,
)

MAX_LISTED = 200
_NONE = Decimal(0)
Where = Callable[[int], str]  # a session's id → how a problem names it


def problems(limit: int = MAX_LISTED) -> list[str]:
    """Every broken invariant, one sentence each (at most ``limit``, then how many more)."""
    found: list[str] = []
    more = 0
    for problem in _all():
        if len(found) < limit:
            found.append(problem)
        else:
            more += 1
    if more:
        found.append(f"… and {more} more")
    return found


def _all() -> Iterator[str]:
    names: dict[int, str] = {i: n for i, n in db.session.execute(
        select(GameSession.id, GameSession.name))}

    def where(session_id: int) -> str:
        return f"session {session_id} ({names.get(session_id, '?')})"

    yield from _totals(where)
    yield from _numbers(where)
    yield from _versions(where)
    yield from _entries(where)
    yield from _records(where)
    yield from _payments(where)
    yield from _pots(where)
    yield from _nights(where)
    yield from _dealers(where)
    yield from _voids(where)
    yield from _plans(where)
    yield from _events()
    yield from _handles()


def _seats() -> dict[int, list[tuple[int, int, str, int]]]:
    """Each session's seats in order: (seat, player id, name, total)."""
    seats: dict[int, list[tuple[int, int, str, int]]] = defaultdict(list)
    for row in db.session.execute(select(
            SessionPlayer.session_id, SessionPlayer.seat, SessionPlayer.player_id,
            SessionPlayer.name, SessionPlayer.total_minor).order_by(
            SessionPlayer.session_id, SessionPlayer.seat)):
        seats[row.session_id].append((row.seat, row.player_id, row.name, row.total_minor))
    return seats


def _totals(at: Where) -> Iterator[str]:
    seats = _seats()
    by_entries: dict[tuple[int, int], int] = {}
    zero_sum: dict[int, int] = defaultdict(int)
    pushed: dict[int, int] = defaultdict(int)
    for session_id, player_id, scoring, amount in db.session.execute(select(
            HandEntry.session_id, HandEntry.player_id, HandEntry.scoring,
            func.sum(HandEntry.amount_minor)).group_by(
            HandEntry.session_id, HandEntry.player_id, HandEntry.scoring)):
        amount = int(amount or 0)
        key = (session_id, player_id)
        by_entries[key] = by_entries.get(key, 0) + amount
        if scoring == "push_ups":
            pushed[session_id] += amount
        else:
            zero_sum[session_id] += amount
    by_nets: dict[int, list[int]] = {}
    by_side: dict[int, list[int]] = {}
    for session_id, voided, nets_json, side_json in db.session.execute(select(
            Hand.session_id, Hand.voided, Hand.nets_json, Hand.side_nets_json)):
        n = len(seats.get(session_id, ()))
        for kept, text, counted in ((by_nets, nets_json, not voided), (by_side, side_json, True)):
            sums = kept.setdefault(session_id, [0] * n)
            nets = json.loads(text)
            if len(nets) > n:
                yield f"{at(session_id)}: a hand has {len(nets)} nets for {n} seats"
                continue
            if counted:
                for i, amount in enumerate(nets):
                    sums[i] += amount
    for session_id, seated in seats.items():
        total = 0
        side = by_side.get(session_id, [0] * len(seated))
        for seat, player_id, name, total_minor in seated:
            total += total_minor
            entries = by_entries.get((session_id, player_id), 0) + side[seat]
            if entries != total_minor:
                yield (f"{at(session_id)}: {name}'s total is {from_minor(total_minor)} but "
                       f"their hands add up to {from_minor(entries)}")
            nets = by_nets.get(session_id, [0] * len(seated))[seat] + side[seat]
            if nets != total_minor:
                yield (f"{at(session_id)}: {name}'s total is {from_minor(total_minor)} but "
                       f"the hands' nets for that seat add up to {from_minor(nets)}")
        if zero_sum.get(session_id, 0) != 0:
            yield (f"{at(session_id)}: the hands do not sum to zero (they sum to "
                   f"{from_minor(zero_sum[session_id])})")
        if total != zero_sum.get(session_id, 0) + pushed.get(session_id, 0) + sum(side):
            yield (f"{at(session_id)}: the totals sum to {from_minor(total)}, not to what "
                   "the hands add up to")


def _numbers(at: Where) -> Iterator[str]:
    for session_id, hand_count, count, low, high in db.session.execute(select(
            GameSession.id, GameSession.hand_count, func.count(Hand.id), func.min(Hand.number),
            func.max(Hand.number)).outerjoin(Hand, Hand.session_id == GameSession.id)
            .group_by(GameSession.id, GameSession.hand_count)):
        if count != hand_count or (count and (low != 1 or high != count)):
            yield (f"{at(session_id)}: it says {hand_count} hands, but holds {count} "
                   f"numbered {low} to {high}" if count else
                   f"{at(session_id)}: it says {hand_count} hands but holds none")


def _versions(at: Where) -> Iterator[str]:
    last = HandVersion.__table__.alias("last")
    rows = db.session.execute(select(
        Hand.session_id, Hand.number, Hand.version, Hand.voided,
        func.count(HandVersion.id), func.min(HandVersion.version), func.max(HandVersion.version),
        func.sum(case((and_(HandVersion.version == 1, HandVersion.action == "recorded"), 1),
                      else_=0)))
        .outerjoin(HandVersion, HandVersion.hand_id == Hand.id)
        .group_by(Hand.id, Hand.session_id, Hand.number, Hand.version, Hand.voided))
    for session_id, number, version, _voided, count, low, high, recorded in rows:
        if count != version or low != 1 or high != version:
            yield (f"{at(session_id)}, hand {number}: it is at version {version} but has "
                   f"{count} versions ({low} to {high})")
        elif recorded != 1:
            yield f"{at(session_id)}, hand {number}: its first version is not \"recorded\""
    rows = db.session.execute(select(
        Hand.session_id, Hand.number, Hand.voided, Hand.hand_json, Hand.result_json,
        last.c.action, last.c.hand_json, last.c.result_json)
        .join(last, and_(last.c.hand_id == Hand.id, last.c.version == Hand.version)))
    for session_id, number, voided, hand_json, result_json, action, v_hand, v_result in rows:
        if hand_json != v_hand or result_json != v_result:
            yield (f"{at(session_id)}, hand {number}: its facts or result differ from its "
                   "last version's")
        if voided != (action == "voided"):
            yield (f"{at(session_id)}, hand {number}: it is {'void' if voided else 'counted'} "
                   f"but its last version was {action}")


def _entries(at: Where) -> Iterator[str]:
    for session_id, number, voided, hand_json, count in db.session.execute(select(
            Hand.session_id, Hand.number, Hand.voided, Hand.hand_json,
            func.count(HandEntry.id))
            .outerjoin(HandEntry, HandEntry.hand_id == Hand.id)
            .group_by(Hand.id, Hand.session_id, Hand.number, Hand.voided, Hand.hand_json)):
        want = 0 if voided else len(json.loads(hand_json).get("players", ()))
        if count != want:
            yield (f"{at(session_id)}, hand {number}: {count} entries where there should be "
                   f"{want}")


def _records(at: Where) -> Iterator[str]:
    """Each record counts what its player's entries under its scoring count, and a player's
    records in a session add up to their money there as its page shows it: their seat's
    total (hands and side bets) and what the pots give back (the side bets and the pots'
    returns go to the record of the scoring the night played when they moved)."""
    counted = {
        (row[0], row[1], row[2]): tuple(int(v or 0) for v in row[3:])
        for row in db.session.execute(select(
            HandEntry.session_id, HandEntry.player_id, HandEntry.scoring,
            func.sum(HandEntry.amount_minor), func.count(HandEntry.id),
            func.sum(case((HandEntry.won, 1), else_=0)),
            func.sum(case((HandEntry.tonked_out, 1), else_=0)),
            func.sum(case((HandEntry.drop_won, 1), else_=0)),
            func.sum(case((HandEntry.caught, 1), else_=0)))
            .group_by(HandEntry.session_id, HandEntry.player_id, HandEntry.scoring))}
    kept = {(s.session_id, s.player_id, s.scoring):
            tuple(getattr(s, name) for name in STAT_FIELDS)
            for s in db.session.scalars(select(PlayerSessionStat))}
    zero = (0,) * len(STAT_FIELDS)
    for key in sorted(set(counted) | set(kept)):
        if counted.get(key, zero)[1:] != kept.get(key, zero)[1:]:
            session_id, player_id, scoring = key
            yield (f"{at(session_id)}: player {player_id}'s {scoring} record says "
                   f"{dict(zip(STAT_FIELDS, kept.get(key, zero), strict=True))} but the "
                   f"hands say {dict(zip(STAT_FIELDS, counted.get(key, zero), strict=True))}")
    nets: dict[tuple[int, int], int] = defaultdict(int)
    for (session_id, player_id, _scoring), numbers in kept.items():
        nets[(session_id, player_id)] += numbers[0]
    returns = {session_id: _returns(pots_json) for session_id, pots_json in
               db.session.execute(select(GameSession.id, GameSession.pots_json))}
    for session_id, seated in _seats().items():
        for seat, player_id, name, total in seated:
            money = total + returns.get(session_id, {}).get(seat, 0)
            if nets.get((session_id, player_id), 0) != money:
                yield (f"{at(session_id)}: {name}'s records add up to "
                       f"{from_minor(nets.get((session_id, player_id), 0))}, but their money "
                       f"in the session is {from_minor(money)}")


def _payments(at: Where) -> Iterator[str]:
    moved: dict[tuple[int, int], int] = defaultdict(int)
    first_paid: dict[int, datetime] = {}
    for session_id, payer, payee, amount, at_time in db.session.execute(select(
            SettlePayment.session_id, SettlePayment.payer_seat, SettlePayment.payee_seat,
            SettlePayment.amount_minor, SettlePayment.created_at)
            .where(SettlePayment.undone_at.is_(None))):
        moved[(session_id, payer)] += amount
        moved[(session_id, payee)] -= amount
        first_paid[session_id] = min(first_paid.get(session_id, at_time), at_time)
    changed = {session_id: last for session_id, last in db.session.execute(
        select(Hand.session_id, func.max(HandVersion.created_at))
        .join(HandVersion, HandVersion.hand_id == Hand.id).group_by(Hand.session_id))}
    returns, betting = {}, set()
    for session_id, pots_json, bets in db.session.execute(
            select(GameSession.id, GameSession.pots_json, GameSession.side_bets_json)):
        returns[session_id] = _returns(pots_json)
        if bets:
            betting.add(session_id)
    for session_id, seated in _seats().items():
        if session_id not in first_paid or session_id in changed and \
                changed[session_id] > first_paid[session_id] or session_id in betting:
            # nothing paid, or the totals moved after a payment (a hand changed; or, with
            # side bets, a player left or sat down again and the pots gave their stake back,
            # which no hand's version dates): the plan's check holds them
            continue
        for seat, _player, name, total in seated:
            total += returns.get(session_id, {}).get(seat, 0)  # what settle-up gives back
            paid = moved.get((session_id, seat), 0)
            if paid and (total + paid) * total < 0 or (total == 0 and paid):
                yield (f"{at(session_id)}: {name} has paid or been paid "
                       f"{from_minor(abs(paid))} against a total of {from_minor(total)}")


def _dealers(at: Where) -> Iterator[str]:
    """Who deals next sits at the table (a leaver passes the deal on)."""
    for session_id, next_dealer, left_at in db.session.execute(select(
            GameSession.id, GameSession.next_dealer, SessionPlayer.left_at)
            .outerjoin(SessionPlayer, (SessionPlayer.session_id == GameSession.id)
                       & (SessionPlayer.seat == GameSession.next_dealer))):
        if left_at is not None:
            yield f"{at(session_id)}: the next dealer (seat {next_dealer}) has left the table"


def _returns(pots_json: str | None) -> dict[int, int]:
    """What each seat gets back from the pots at settle-up, in minor units."""
    back: dict[int, int] = defaultdict(int)
    for paid in json.loads(pots_json or "{}").values():
        for seat, minor in paid:
            back[seat] += minor
    return back


def _pots(at: Where) -> Iterator[str]:
    """Totals + pots = 0 in every session with side bets, and nobody who left the table has
    money in a pot."""
    sessions = db.session.scalars(select(GameSession).where(
        GameSession.side_bets_json.is_not(None) | (GameSession.pots_json != "{}")))
    for gs in sessions:
        in_pot = _returns(gs.pots_json)
        in_pots = sum(in_pot.values())
        total = sum(s.total_minor for s in gs.seats)
        if rules_of(gs.rules_json).scoring != "push_ups" and total + in_pots != 0:
            yield (f"{at(gs.id)}: the totals ({from_minor(total)}) and the pots "
                   f"({from_minor(in_pots)}) do not sum to zero")
        # a leaver took theirs back as they left (docs/rules.md §9, the house's reading)
        for seat in gs.seats:
            kept = in_pot.get(seat.seat, 0)
            if seat.left_at is not None and kept:
                yield (f"{at(gs.id)}: {seat.name} has left the table but still has "
                       f"{from_minor(kept)} in the side-bet pots")


def _nights(at: Where) -> Iterator[str]:
    """Every session's kept night (totals and their side bets' part, pots, each hand's
    side-bet money, the next dealer) is what the core's fold of its stored night gives."""
    for gs in db.session.scalars(select(GameSession).order_by(GameSession.id)):
        yield from _folded(gs, at)


def _folded(gs: GameSession, at: Where) -> Iterator[str]:
    """What ``gs`` keeps against the core's fold of its stored night."""
    names = [s.name for s in gs.seats]
    try:
        night, hands = stored_night(gs)
    except TonkError as exc:
        yield f"{at(gs.id)}: its stored hands do not fold into a night: {exc.message}"
        return
    if gs.pots_json != dump_pots(night.pots, names):
        yield (f"{at(gs.id)}: the pots hold {gs.pots_json}, but its hands' side bets "
               f"leave {dump_pots(night.pots, names)}")
    for hand, deal in zip(hands, night.hands, strict=True):
        new = [to_minor(deal.side.get(n, _NONE)) for n in names]
        if trimmed(new) != trimmed(hand.side_nets):
            yield (f"{at(gs.id)}, hand {hand.number}: its side-bet money is "
                   f"{hand.side_nets}, but a replay of the side bets says {new}")
    money = night.money()
    folded = minor_totals(money)
    for seat in gs.seats:
        if folded.get(seat.name, 0) != seat.total_minor:
            yield (f"{at(gs.id)}: {seat.name}'s total is {from_minor(seat.total_minor)} but "
                   f"the night's hands fold to {from_minor(folded.get(seat.name, 0))}")
        side = money[seat.name].side_bets if seat.name in money else _NONE
        if to_minor(side) != seat.side_minor:
            yield (f"{at(gs.id)}: {seat.name}'s side bets keep {from_minor(seat.side_minor)} "
                   f"but the night's hands fold to {side}")
    if night.dealer != gs.dealer:
        yield f"{at(gs.id)}: {gs.dealer} is to deal next, but the night's hands say {night.dealer}"


def _voids(at: Where) -> Iterator[str]:
    for session_id, kept, count in db.session.execute(select(
            GameSession.id, GameSession.voided_hands,
            func.count(Hand.id).filter(Hand.voided.is_(True)))
            .outerjoin(Hand, Hand.session_id == GameSession.id)
            .group_by(GameSession.id, GameSession.voided_hands)):
        if kept != count:
            yield f"{at(session_id)}: it says {kept} hands are void, but {count} are"


def _plans(at: Where) -> Iterator[str]:
    planned: dict[int, list[PlannedTransfer]] = defaultdict(list)
    for row in db.session.scalars(select(PlannedTransfer)):
        planned[row.session_id].append(row)
    debts: dict[int, list[CarriedDebt]] = defaultdict(list)
    for debt in db.session.scalars(select(CarriedDebt)):
        debts[debt.session_id].append(debt)
        if debt.amount_minor <= 0 or debt.payer_id == debt.payee_id:
            yield f"{at(debt.session_id)}: carried debt {debt.id} is not a debt"
    payments: dict[int, list[SettlePayment]] = defaultdict(list)
    for p in db.session.scalars(select(SettlePayment).order_by(SettlePayment.id)):
        payments[p.session_id].append(p)
    event_tables = set(db.session.scalars(select(EventTable.session_id)))
    for gs in db.session.scalars(select(GameSession)):
        scoring = session_rules(gs).scoring
        if scoring == "push_ups" or (scoring == "points" and gs.is_closed
                                     and gs.id in event_tables):
            continue  # a closed points table of an event: the event's standings settle it
        yield from _plan_of(gs, planned[gs.id], payments[gs.id], debts[gs.id], at)


def _plan_of(gs: GameSession, rows: list[PlannedTransfer], payments: list[SettlePayment],
             debts: list[CarriedDebt], at: Where) -> Iterator[str]:
    seats = {s.seat: s.player_id for s in gs.seats}
    names = {s.player_id: s.name for s in gs.seats}
    by_id = {r.id: r for r in rows}
    paid: dict[int, int] = defaultdict(int)
    for p in payments:
        row = by_id.get(p.transfer_id) if p.transfer_id is not None else None
        if p.transfer_id is not None and (row is None or (row.payer_id, row.payee_id) != (
                seats.get(p.payer_seat), seats.get(p.payee_seat))):
            yield f"{at(gs.id)}: payment {p.id} is not along the transfer it names"
        elif row is not None and p.undone_at is None:
            paid[row.id] += p.amount_minor
    left = {name: to_minor(amount) for name, amount in remaining(gs, payments).items()}
    moved = dict.fromkeys(left, 0)
    for row in rows:
        if paid[row.id] > row.amount_minor:
            yield (f"{at(gs.id)}: {from_minor(paid[row.id])} was paid along a planned "
                   f"transfer of {from_minor(row.amount_minor)}")
        if row.plan == gs.plan_no and not gs.is_closed:
            moved[names[row.payer_id]] -= row.amount_minor - paid[row.id]
            moved[names[row.payee_id]] += row.amount_minor - paid[row.id]
    for debt in debts:
        if debt.payer_id in names and debt.payee_id in names:
            moved[names[debt.payer_id]] -= debt.amount_minor
            moved[names[debt.payee_id]] += debt.amount_minor
    if moved != left and (gs.plan_no or any(left.values())):
        what = "its carried debts" if gs.is_closed else "the plan less what was paid along it"
        yield (f"{at(gs.id)}: {what} settle "
               f"{ {n: str(from_minor(v)) for n, v in moved.items()} }, but what remains is "
               f"{ {n: str(from_minor(v)) for n, v in left.items()} }")


def _events() -> Iterator[str]:
    for event in db.session.scalars(select(Event).order_by(Event.id)):
        at = f"event {event.id} ({event.name})"
        keys = {p.name_key for p in event.players}
        for player in event.players:
            if player.paid_minor not in (0, event.fee_minor):
                yield f"{at}: {player.name} paid {from_minor(player.paid_minor)}, not the fee"
            if player.withdrawn_after is not None and not (
                    0 <= player.withdrawn_after <= len(event.round_rows)):
                yield f"{at}: {player.name} withdrew after a round that was never drawn"
        numbers = [r.number for r in event.round_rows]
        if numbers != list(range(1, len(numbers) + 1)) or len(numbers) > event.rounds:
            yield f"{at}: its rounds are numbered {numbers}"
        scoring = rules_of(event.rules_json).scoring
        for this in event.round_rows:
            if this.closed_at is None and this is not event.round_rows[-1]:
                yield f"{at}: round {this.number} is open, but a later round was drawn"
            seen: set[str] = set()
            for table in this.tables:
                gs = table.session
                for seat in gs.seats:
                    key = name_key(seat.name)
                    if key in seen:
                        yield f"{at}: {seat.name} sits twice in round {this.number}"
                    if key not in keys:
                        yield f"{at}: {seat.name} of round {this.number} is not checked in"
                    seen.add(key)
                if this.closed_at is not None and not gs.is_closed:
                    yield f"{at}: round {this.number} is closed, but table {table.number} not"
                if counted_hands(gs) > event.hands_per_round:
                    yield f"{at}: table {table.number} of round {this.number} counts " \
                          f"{counted_hands(gs)} hands, more than the round's " \
                          f"{event.hands_per_round}"
                if session_rules(gs).scoring != scoring or gs.league_id != event.league_id:
                    yield f"{at}: table {table.number} of round {this.number} does not play " \
                          "under the event's scoring and league"


def _handles() -> Iterator[str]:
    rows = db.session.execute(select(Player.id, Player.name, Player.pay_json).where(
        Player.pay_json.is_not(None)))
    for player_id, name, pay_json in rows:
        for problem in handle_problems(pay_json or ""):
            yield f"player {player_id} ({name}): payment handles {pay_json}: {problem}"
