"""Checking a document's sessions: every version of every hand settled again through the
domain core and compared with its stored result, with nothing but Python (no database), so
that it can run in other processes."""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from ...core import Rules, TonkError, parse_hand, resolve_rules, settle
from ...core.hand import TABLE_FIELDS, parse_players
from ...core.messages import Message, as_sent, in_english
from ...core.money import (
    amount_formatter,
    from_minor,
    parse_stake,
    to_minor,
)
from ...core.names import clean_text
from ...core.night import Deal, Money, Night, NightPayment, fold, left_open
from ...core.parts import parts_and_counts, seat_nets
from ...core.settle import Result
from ...core.sidebets import (
    SideBet,
    parse_plays,
    parse_side_bets,
    play_json,
    sent_plays,
    side_bets_json,
)
from ...core.stored import events_of, own_facts
from ...core.versions import check_action, voided_after
from ..sessions import (
    MAX_SESSION_NAME,
    dump_pots,
    parse_amount,
    parse_currency,
    parse_reason,
    seat_side,
)
from .checked import Checked, CheckedHand, CheckedSession, CheckedVersion, SeatMove
from .common import (
    MAX_BY,
    ExchangeError,
    fast_dumps,
    field_of,
    parse_time,
)
from .fields import (
    BadVersion,
    LastVersion,
    ReadHand,
    Terms,
    check_money,
    check_totals,
    compare_result,
    hand_stake,
    names_text,
    read_list,
    read_uid,
    seat_changes_of,
    seats_of,
    tallied,
    where_of,
    whole_number,
    with_money,
)
from .settling import parse_settle

#: A version's hand and result text until its hand's night is folded (compared by identity).
_LATER = "(not settled yet)"
_HAND_NUMBER = Message("import.what.hand_number")
_NONE = Decimal("0.00")
_NO_MONEY = Money(_NONE, _NONE, _NONE)  # who never played a hand


class Checker:
    """Checks sessions of a document, every version of every hand through the domain core,
    with nothing but Python: no database, so that it can run in another process."""

    def __init__(self) -> None:
        self._last_table: tuple[Any, Any, Terms] | None = None
        self._enabled: dict[str, SideBet] = {}
        self._last_by: tuple[Any, str] | None = None
        self._last_text: tuple[Terms, tuple[str, ...], str] | None = None
        self._problems: list[Message] = []
        self._minor: dict[Decimal, int] = {}

    def problem(self, where: Message, problem: str | Message) -> None:
        self._problems.append(Message("import.at", where=where, problem=problem))

    def check(self, index: int, doc: Any) -> Checked:
        """The session ``doc`` (the ``index``-th of its document), checked."""
        self._problems = []
        if not isinstance(doc, dict):
            where = Message("import.where.session_at", index=index)
            return Checked(index, None, where, 0, None,
                           [Message("import.at", where=where,
                                    problem=Message("import.session_object"))])
        uid = doc.get("uid")
        where = where_of(doc, index)
        hands = doc.get("hands")
        with in_english():  # hands are settled (and stored) in the language they were written
            session = self._session(doc, where)
        return Checked(index, uid if isinstance(uid, str) else None, where,
                        len(hands) if isinstance(hands, list) else 0,
                        None if self._problems else session, self._problems)

    def _session(self, doc: Mapping[str, Any], where: Message) -> CheckedSession | None:
        """The session checked in full, or None after noting each of its problems."""
        try:
            head = self._head(doc)
        except TonkError as exc:
            self.problem(where, exc.said)
            return None
        names = head.names
        read, stored = self._hands(head.hand_docs, names, where)
        if read is None:
            return None
        try:
            night = self._night(head, stored, [h.voided for h in read])
        except TonkError as exc:  # a stored result that is wrong is the problem to name first
            self._finished(read, (), names)
            if not self._problems:
                self.problem(where, exc.said)
            return None
        finished = self._finished(read, night.hands, names)
        if finished is None:
            return None
        hands, counted = finished
        try:
            kept = night.money()
            money = [kept.get(name, _NO_MONEY) for name in names]
            totals = [to_minor(m.hands + m.side_bets) for m in money]  # as seats keep them
            check_totals(doc.get("totals"), names, money)
            check_money(doc.get("money"), names, money)
            dealer = self._next_dealer(doc, names, night)
            if head.closed_at is not None and head.rules.scoring != "push_ups":
                _check_paid(names, _still_open(night, head))
        except TonkError as exc:
            self.problem(where, exc.said)
            return None
        records = with_money(tallied(hands, counted), head.rules.scoring,
                              [to_minor(m.side_bets + m.pots_back) for m in money])
        return CheckedSession(
            head.uid, head.name, head.played_at, head.closed_at, head.currency,
            to_minor(head.stake), json.dumps(head.rules.to_json()), dealer, names, totals,
            hands, records, head.payments, head.changes, head.positions, head.left_at,
            json.dumps(side_bets_json(self._enabled)) if self._enabled else None,
            [seat_side(deal, names) for deal in night.hands], dump_pots(night.pots, names),
            head.settle, [to_minor(m.side_bets) for m in money], head.moves)

    def _night(self, head: _Head, stored: list[dict[str, Any]], voided: list[bool]) -> Night:
        """The night the session's hands tell, folded by the core (who sits at the end from
        the document; its seat changes as given; who sat and left without playing a hand
        nor a seat change joins and leaves at the end)."""
        seated = [name for name, _p in sorted(
            ((n, p) for n, p, gone in zip(head.names, head.positions, head.left_at,
                                          strict=True) if gone is None),
            key=lambda seat: seat[1])]
        return fold(events_of({"rules": head.rules.to_json(), "stake": str(head.stake),
                               "players": seated, "currency": head.currency,
                               "side_bets": side_bets_json(self._enabled) or None},
                              list(zip(stored, voided, strict=True)), seated, head.names,
                              [(hands, {"kind": kind, "player": player, "after": after})
                               for hands, kind, player, after, _at in head.moves]))

    def _head(self, doc: Mapping[str, Any]) -> _Head:
        """What a session says of itself before its hands (a :class:`TonkError` if any of it
        is wrong); the side bets it plays are kept for its hands."""
        uid = read_uid(doc.get("uid"), Message("import.what.a_session"))
        name = clean_text(doc.get("name"), ExchangeError, "name",
                          Message("session.what_name"), MAX_SESSION_NAME)
        names = parse_players(doc.get("players"))
        rules = resolve_rules(doc.get("rules"))
        stake = parse_stake(doc.get("stake"), rules)
        self._enabled = parse_side_bets(doc.get("side_bets"), stake=stake,
                                        scoring=rules.scoring)
        positions, left_at = seats_of(doc, names)
        currency = parse_currency(doc.get("currency"))
        played_at = parse_time(doc.get("played_at"), "played_at")
        closed_at = (parse_time(doc["closed_at"], "closed_at")
                     if doc.get("closed_at") is not None else None)
        hand_docs = read_list(doc.get("hands"), "hands")
        payments = [self._payment(p, names, i)
                    for i, p in enumerate(read_list(doc.get("payments"), "payments"), 1)]
        changes = [self._change(c, i) for i, c in
                   enumerate(read_list(doc.get("rules_changes"), "rules_changes"), 1)]
        return _Head(uid, name, names, rules, stake, positions, left_at, currency, played_at,
                     closed_at, hand_docs, payments, changes, parse_settle(doc, names),
                     seat_changes_of(doc, names))

    def _hands(self, hand_docs: list[Any], names: tuple[str, ...], where: Message
               ) -> tuple[list[ReadHand] | None, list[dict[str, Any]]]:
        """Every hand read, in the order of their numbers (with no gap), and its facts as
        stored (its last version's that counted); (None, []) after noting a problem."""
        names_list = list(names)
        hands: list[ReadHand] = []
        numbers: set[int] = set()
        for i, hand_doc in enumerate(hand_docs, start=1):
            read = self._hand(hand_doc, i, names, names_list, where, numbers)
            if read is not None:
                hands.append(read)
        if self._problems:  # the others' stored results are checked too: every problem listed
            self._finished(hands, (), names)
            return None, []
        for expected, number in enumerate(sorted(h.number for h in hands), start=1):
            if number != expected:
                self.problem(where, Message("import.hand_gap", number=expected))
                return None, []
        if any(a.number > b.number for a, b in zip(hands, hands[1:], strict=False)):
            hands = sorted(hands, key=lambda h: h.number)
        return hands, [h.last.stored() for h in hands]

    def _finished(self, hands: list[ReadHand], deals: Sequence[Deal], names: tuple[str, ...]
                  ) -> tuple[list[CheckedHand], list[list[tuple[int, ...]] | None]] | None:
        """Every hand checked in full, each last version's result the one the night's fold
        settled it to (its ``deals``, in order; settled here when there is none) compared
        with the stored one; what each adds to its seats' records; None after noting a
        problem."""
        out: list[CheckedHand] = []
        counted: list[list[tuple[int, ...]] | None] = []
        for k, hand in enumerate(hands):
            result = self._settle(hand.last, deals[k] if k < len(deals) else None)
            checked = None if result is None else self._finish(hand, result, names)
            if checked is not None:
                out.append(checked[0])
                counted.append(checked[1])
        return None if self._problems else (out, counted)

    def _finish(self, hand: ReadHand, result: Result, names: tuple[str, ...]
                ) -> tuple[CheckedHand, list[tuple[int, ...]] | None] | None:
        """A hand, its last version settled to ``result``: checked, and what it adds to each
        seat's record (None if it is void); None after noting its problem."""
        versions = list(hand.versions)
        if not self._resolve(hand.last, result, versions):
            return None
        nets = self._nets(names, result)
        playing = result.hand.players
        if playing is names:  # everyone at the table played it (most hands)
            seats = tuple(range(len(names)))
            parts, counts = parts_and_counts(playing, nets, result)
        else:
            seats = tuple(names.index(p) for p in playing)
            parts, counts = parts_and_counts(playing, [nets[i] for i in seats], result)
        if hand.voided:
            return CheckedHand(hand.number, True, result.outcome, hand.scoring,
                               [0] * len(names), None, versions, seats), None
        return CheckedHand(hand.number, False, result.outcome, hand.scoring, nets, parts,
                           versions, seats), counts

    def _settle(self, last: LastVersion, deal: Deal | None) -> Result | None:
        """The version ``last`` settled: the night's fold's result when it read the same
        hand (``deal``), settled here otherwise; None after noting its problem."""
        if deal is not None and deal.result is not None and last.core is None and \
                last.plain and _same_table(deal.data, last):
            last.text, last.data = self._stored(last.table, last.seated,
                                                own_facts(deal.data))
            return deal.result
        if last.data is None:
            try:
                self._parse(last)
            except TonkError as exc:
                self.problem(last.at(), exc.said)
                return None
        if deal is not None and deal.result is not None and deal.data == last.data:
            return deal.result
        assert last.core is not None
        return settle(last.core)

    def _resolve(self, last: LastVersion, result: Result, versions: list[CheckedVersion]) -> bool:
        """The version ``last`` settled to ``result`` compared with its stored result, whose
        hand and result text it and the void versions after it keep (in ``versions``);
        False after noting its problem."""
        try:
            text = self._result_text(result, last.given, last.first)
        except TonkError as exc:  # BadVersion too
            self.problem(last.at(), exc.said)
            return False
        for k in range(last.index, len(versions)):
            if versions[k].result_text is _LATER:
                versions[k] = versions[k]._replace(hand_text=last.text, result_text=text)
        return True

    def _payment(self, doc: Any, names: tuple[str, ...], i: int
                 ) -> tuple[int, int, int, datetime]:
        if not isinstance(doc, Mapping):
            raise ExchangeError(Message("import.payment_object", number=i))
        payer, payee = doc.get("from"), doc.get("to")
        for who in (payer, payee):
            if who not in names:
                raise ExchangeError(Message("import.of_payment", number=i, problem=Message(
                    "payment.not_at_table", who=as_sent(who))))
        if payer == payee:
            raise ExchangeError(Message("import.of_payment", number=i, problem=Message(
                "payment.themselves", payer=payer)))
        try:
            amount = parse_amount(doc.get("amount"))
        except TonkError as exc:
            raise ExchangeError(Message("import.of_payment", number=i,
                                        problem=exc.said)) from None
        return (names.index(payer), names.index(payee), to_minor(amount),
                parse_time(doc.get("at"), field_of(Message("import.what.payment", number=i),
                                                   "at")))

    def _change(self, doc: Any, i: int) -> tuple[int, str, int, datetime]:
        if not isinstance(doc, Mapping):
            raise ExchangeError(Message("import.rules_change_object", number=i))
        rules = resolve_rules(doc.get("rules"))
        stake = parse_stake(doc.get("stake"), rules)
        change = Message("import.what.rules_change", number=i)
        return (whole_number(doc.get("from_hand"), field_of(change, "from_hand")),
                json.dumps(rules.to_json()), to_minor(stake),
                parse_time(doc.get("at"), field_of(change, "at")))

    @staticmethod
    def _next_dealer(doc: Mapping[str, Any], names: tuple[str, ...], night: Night) -> int:
        given = doc.get("next_dealer")
        if given is not None:
            if given not in names:
                raise ExchangeError(Message("import.next_dealer", player=as_sent(given)))
            return names.index(given)
        return names.index(night.dealer)

    # -- one hand ----------------------------------------------------------------------------

    def _hand(self, doc: Any, index: int, names: tuple[str, ...], names_list: list[str],
              where: Message, numbers: set[int]) -> ReadHand | None:
        """One hand read, every version but its last that counts settled again and compared
        (that one is settled by the night's fold: :meth:`_finished`); None after noting its
        problem."""
        # Where a problem is, named only when there is one (most hands have none).
        def at_index() -> Message:
            return Message("import.where.hand_at", where=where, index=index)

        if not isinstance(doc, dict):
            self.problem(at_index(), Message("import.hand_object"))
            return None
        try:
            number = whole_number(doc.get("number"), _HAND_NUMBER)
        except TonkError as exc:
            self.problem(at_index(), exc.said)
            return None

        def at_hand() -> Message:
            return Message("import.where.hand", where=where, number=number)

        if number in numbers:
            self.problem(at_hand(), Message("import.hand_twice", number=number))
            return None
        numbers.add(number)
        versions = doc.get("versions")
        if not isinstance(versions, list) or not versions:
            self.problem(at_hand(), Message("import.no_versions"))
            return None
        table: Terms | None = None
        done: list[CheckedVersion] = []
        given_hand: Any = None
        given_result: Any = None
        last: LastVersion | None = None  # the last version that counted, not settled yet
        void = False
        for i, v in enumerate(versions, start=1):
            if not isinstance(v, dict):
                self.problem(Message("import.where.version", where=at_hand(), number=i),
                             Message("import.version_object"))
                return None
            if v.get("version") != i or isinstance(v.get("version"), bool):
                self.problem(at_hand(), Message("import.version_gap", number=i,
                                              value=as_sent(v.get("version"))))
                return None
            try:
                action = check_action(i, v.get("action"), voided=i > 1 and void)
                at = parse_time(v.get("at"), "at")
                by = self._by(v.get("by"))
                reason = v.get("reason")
                if action == "recorded":
                    if reason not in (None, ""):
                        raise BadVersion(Message("import.recorded_reason"))
                    reason = None
                else:
                    reason = parse_reason(reason)
                if voided_after(action):
                    if v.get("hand", given_hand) != given_hand or \
                            v.get("result", given_result) != given_result:
                        raise BadVersion(Message("import.void_keeps"))
                    previous = done[-1]
                    done.append(CheckedVersion(i, action, previous.hand_text,
                                               previous.result_text, reason, by, at))
                    void = True
                    continue
                now = self._read(v.get("hand"), names, names_list, table, where, number)
                table = now.first
                now.index, now.given = len(done), v.get("result")
                if not now.plain:  # read here as the fold would not
                    self._parse(now)
            except TonkError as exc:  # BadVersion too
                self.problem(Message("import.where.version", where=at_hand(), number=i),
                             exc.said)
                return None
            if last is not None:  # an older version: settled again here
                result = self._settle(last, None)
                if result is None or not self._resolve(last, result, done):
                    return None
            given_hand, given_result, last, void = v.get("hand"), v.get("result"), now, False
            done.append(CheckedVersion(i, action, _LATER, _LATER, reason, by, at))
        given_void = doc.get("voided")
        if given_void is not None and given_void is not void:
            self.problem(at_hand(), Message("import.voided", value=as_sent(given_void),
                                          action=done[-1].action))
            return None
        assert table is not None and last is not None
        return ReadHand(number, void, table.rules.scoring, done, last)

    def _nets(self, names: tuple[str, ...], result: Result) -> list[int]:
        """:func:`~app.core.parts.seat_nets`, each amount's minor units worked out once
        (a checker meets the same few amounts hand after hand; equal amounts, 2 and 2.00,
        have the same minor units)."""
        net = result.net
        if net is None:
            return seat_nets(names, result)
        minor, out = self._minor, []
        for name in names:
            amount = net.get(name)
            if amount is None:
                out.append(0)
                continue
            found = minor.get(amount)
            if found is None:
                if len(minor) >= 4096:
                    minor.clear()
                found = minor[amount] = to_minor(amount)
            out.append(found)
        return out

    def _by(self, value: Any) -> str:
        """Who made a version, as the history shows it (the last one is remembered: it is
        most often the same scorekeeper)."""
        if self._last_by is not None and self._last_by[0] == value:
            return self._last_by[1]
        by = clean_text(value, ExchangeError, "by", Message("import.what.by"), MAX_BY)
        self._last_by = (value, by)
        return by

    def _table(self, data: dict[str, Any]) -> Terms:
        """A hand's rules and stake (the last ones are remembered: a session's hands
        mostly share them)."""
        spec, raw = data["rules"], data["stake"]
        last = self._last_table
        if last is not None and last[0] == spec and last[1] == raw:
            return last[2]
        rules = resolve_rules(spec)
        table = Terms(rules, rules.to_json(), hand_stake(raw, rules), amount_formatter(rules))
        self._last_table = (spec, raw, table)
        return table

    def _read(self, data: Any, names: tuple[str, ...], names_list: list[str],
              first: Terms | None, where: Message, number: int) -> LastVersion:
        """One version of a hand read (its table and players checked), to be parsed and
        settled through the core (:meth:`_parse`, :meth:`_settle`)."""
        if not isinstance(data, dict):
            raise BadVersion(Message("import.hand_json"))
        if "rules" not in data or "stake" not in data or "players" not in data:
            missing = [f for f in TABLE_FIELDS if f not in data]
            raise BadVersion(Message("import.hand_fields", fields=", ".join(missing)))
        players = data["players"]
        if players != names_list and (
                not isinstance(players, list) or len(set(map(str, players))) != len(players)
                or not 2 <= len(players) or any(p not in names for p in players)):
            raise BadVersion(Message("import.hand_players", players=names_text(data["players"]),
                               names=", ".join(names)))
        seated = names if players == names_list else tuple(players)
        table = self._table(data)
        if first is not None and table is not first and (
                table.rules != first.rules or table.stake != first.stake):
            raise BadVersion(Message("import.correction_table"))
        return LastVersion(0, table, first or table, seated,
                     own_facts(data), None, where,
                     number)

    def _parse(self, last: LastVersion) -> None:
        """A version read (:meth:`_read`) re-validated through the core: the hand, and the
        hand as the ledger stores it, as JSON text and as the facts that text gives back."""
        facts = dict(last.facts)
        plays = sent_plays(facts.pop("side_bets", None), side_bets_json(self._enabled))
        last.core = parse_hand(facts, rules=last.table.rules, stake=last.table.stake,
                               players=last.seated)
        facts = last.core.to_json(with_table=False)  # never empty: it has the multiplier
        if plays not in (None, []):
            facts["side_bets"] = [play_json(p) for p in parse_plays(plays, self._enabled,
                                                                    last.seated)]
        last.text, last.data = self._stored(last.table, last.seated, facts)

    def _stored(self, table: Terms, seated: tuple[str, ...], facts: dict[str, Any]
                ) -> tuple[str, dict[str, Any]]:
        """A hand as the ledger stores it, as JSON text and as the facts it gives back."""
        return self._table_text(table, seated) + fast_dumps(facts)[1:], {
            "rules": table.spec, "stake": str(table.stake), "players": list(seated), **facts}

    def _table_text(self, table: Terms, seated: tuple[str, ...]) -> str:
        """The start of a hand's stored JSON, its table (``{"rules": …, "stake": …,
        "players": […], ``), written once for the hands that share it."""
        last = self._last_text
        if last is not None and last[0] is table and last[1] == seated:
            return last[2]
        text = fast_dumps({"rules": table.spec, "stake": str(table.stake),
                           "players": list(seated)})[:-1] + ", "
        self._last_text = (table, seated, text)
        return text

    @staticmethod
    def _result_text(result: Result, given: Any, table: Terms) -> str:
        """The result as stored, once every number in it is what the hand gives."""
        if given is None:
            return json.dumps(result.to_json())
        if not isinstance(given, dict):
            raise BadVersion(Message("import.result_json"))
        compare_result(result, given, table.fmt)
        if "explanation" not in given:
            return fast_dumps(result.to_json())
        explanation = given["explanation"]
        if not isinstance(explanation, list) or not all(isinstance(s, str)
                                                        for s in explanation):
            raise BadVersion(Message("import.explanation"))
        return fast_dumps(given)


@dataclass(frozen=True)
class _Head:
    """A session's own facts, read before its hands."""

    uid: str
    name: str
    names: tuple[str, ...]
    rules: Rules
    stake: Decimal
    positions: list[int]
    left_at: list[datetime | None]
    currency: str
    played_at: datetime
    closed_at: datetime | None
    hand_docs: list[Any]
    payments: list[tuple[int, int, int, datetime]]
    changes: list[tuple[int, str, int, datetime]]
    settle: Any
    moves: list[SeatMove]


def _same_table(data: Mapping[str, Any], last: LastVersion) -> bool:
    """Whether a hand as the night's fold stores it (``data``) has the table ``last`` has."""
    return bool(data["players"] == list(last.seated) and data["rules"] == last.table.spec
                and data["stake"] == str(last.table.stake))


def _still_open(night: Night, head: _Head) -> list[int]:
    """What each seat has open after the payments that count (the night's :meth:`open`), less
    the debts the session was closed with."""
    undone = head.settle.undone
    paid = replace(night, payments=tuple(
        NightPayment(k, head.names[payer], head.names[payee], from_minor(amount),
                     k < len(undone) and undone[k] is not None)
        for k, (payer, payee, amount, _at) in enumerate(head.payments)))
    left = left_open(paid.open(), ((head.names[payer], head.names[payee], from_minor(amount))
                                   for payer, payee, amount, *_rest in head.settle.debts))
    return [to_minor(left.get(name, _NONE)) for name in head.names]


def _check_paid(names: tuple[str, ...], still: list[int]) -> None:
    """A closed session was closed only once everything was paid or carried over as debts
    (``still``: what each seat has open after both)."""
    open_ = [f"{name} {from_minor(v)}" for name, v in zip(names, still, strict=True) if v]
    if open_:
        raise ExchangeError(Message("import.not_paid", still_open=", ".join(open_)))
