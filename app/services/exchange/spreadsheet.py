"""CSV for a spreadsheet: one row per hand with each player's net, one row per payment, or
one row per player per hand (what they did, their net and the rule of each payment they
made or took, so that a spreadsheet rebuilds every total); every cell that a spreadsheet
would read as a formula is neutralised."""
from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from ...core import Rules, resolve_rules
from ...core.money import amount_formatter, from_minor
from ...db.models import GameSession, Hand, SessionPlayer
from ...extensions import db
from ..sessions import money_of
from .common import EXPORT_BATCH, iso
from .export import grouped

# -- CSV -------------------------------------------------------------------------------------

HANDS_CSV = ("session", "session_uid", "played_at", "hand", "dealer", "outcome", "winners",
             "voided", "multiplier", "scoring", "stake", "currency")
PAYMENTS_CSV = ("session", "session_uid", "played_at", "hand", "from", "to", "amount",
                "currency", "scoring", "rule")
PLAYERS_CSV = ("session", "session_uid", "played_at", "hand", "voided", "player", "dealer",
               "ended", "count", "cards", "won", "net", "side_bets", "paid", "received",
               "currency", "scoring", "stake", "pots_back")
#: The ``ended`` of a players CSV row that is no hand: what the pots give back at settle-up.
POTS_BACK = "pots back at settle-up"
_FORMULA = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")


def _cell(value: Any) -> Any:
    """A spreadsheet cell that no spreadsheet runs as a formula: text starting with ``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'``; numbers the app
    writes (``-0.25``) stay numbers."""
    if (isinstance(value, str) and value.startswith(_FORMULA)
            and not NUMBER.fullmatch(value)):
        return "'" + value
    return value


class _CsvOut:
    """A csv writer whose text is taken out in chunks."""

    def __init__(self) -> None:
        self.buffer = io.StringIO()
        self.writer = csv.writer(self.buffer, lineterminator="\r\n")

    def row(self, cells: Sequence[Any]) -> None:
        """One row, every cell neutralised (:func:`_cell`)."""
        self.writer.writerow([_cell(c) for c in cells])

    def take(self) -> str:
        text = self.buffer.getvalue()
        self.buffer.seek(0)
        self.buffer.truncate()
        return text


class _RulesCache:
    """Stored rule specs (JSON values) and a currency → rules and their amount formatter
    (the currency's places: a yen table's nets whole), once each."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, str | None], tuple[Rules, Callable[[Decimal], str]]] = {}

    def __call__(self, spec: Any, currency: str | None
                 ) -> tuple[Rules, Callable[[Decimal], str]]:
        key = (json.dumps(spec, sort_keys=True), currency)
        found = self._known.get(key)
        if found is None:
            rules = resolve_rules(spec)
            found = self._known[key] = (rules, amount_formatter(rules, currency))
        return found


def _csv_rows(ids: Sequence[int]) -> Iterator[tuple[Any, list[str], Any]]:
    """(session, seat names, hand row) for every hand of the sessions, in order."""
    gs, h = GameSession, Hand
    for start in range(0, len(ids), EXPORT_BATCH):
        batch = ids[start:start + EXPORT_BATCH]
        sessions = {r.id: r for r in db.session.execute(select(
            gs.id, gs.uid, gs.name, gs.created_at, gs.currency).where(gs.id.in_(batch)))}
        seats = grouped(select(SessionPlayer.session_id, SessionPlayer.name)
                         .where(SessionPlayer.session_id.in_(batch))
                         .order_by(SessionPlayer.session_id, SessionPlayer.seat))
        hands = grouped(select(h.session_id, h.number, h.voided, h.hand_json, h.result_json,
                                h.nets_json, h.side_nets_json)
                         .where(h.session_id.in_(batch)).order_by(h.session_id, h.number))
        for session_id in batch:
            names = [s.name for s in seats[session_id]]
            for hand in hands[session_id]:
                yield sessions[session_id], names, hand


def csv_players(ids: Sequence[int]) -> list[str]:
    """The player columns of a hands CSV: one session's seats in order, or every name
    that sat at the sessions, alphabetically."""
    if len(ids) == 1:
        return list(db.session.scalars(select(SessionPlayer.name).where(
            SessionPlayer.session_id == ids[0]).order_by(SessionPlayer.seat)))
    names: set[str] = set()
    for start in range(0, len(ids), EXPORT_BATCH):
        names.update(db.session.scalars(select(SessionPlayer.name).distinct().where(
            SessionPlayer.session_id.in_(ids[start:start + EXPORT_BATCH]))))
    return sorted(names, key=lambda n: (n.lower(), n))


def hands_csv(ids: Sequence[int]) -> Iterator[str]:
    """One row per hand (its current version): how it ended and each player's net, as
    decimal strings (points and push-ups as whole numbers); a void counts 0."""
    players = csv_players(ids)
    column = {name: i for i, name in enumerate(players)}
    out = _CsvOut()
    out.row([*HANDS_CSV, *players])
    yield out.take()
    rules_for = _RulesCache()
    for n, (session, names, hand) in enumerate(_csv_rows(ids), start=1):
        data, result = json.loads(hand.hand_json), json.loads(hand.result_json)
        rules, fmt = rules_for(data["rules"], session.currency)
        nets: list[str] = [""] * len(players)
        stored, played = json.loads(hand.nets_json), set(data["players"])
        for seat, name in enumerate(names):  # who was not at the table for it: blank
            if name in played:
                nets[column[name]] = fmt(from_minor(stored[seat] if seat < len(stored) else 0))
        out.row([
            session.name, session.uid, iso(session.created_at), hand.number,
            data["dealer"], result["outcome"],
            "; ".join(result["winners"]), "yes" if hand.voided else "no",
            data.get("multiplier", 1), rules.scoring, data["stake"], session.currency, *nets])
        if n % 500 == 0:
            yield out.take()
    yield out.take()


def payments_csv(ids: Sequence[int]) -> Iterator[str]:
    """One row per payment of every counted hand (its current version): who paid whom how
    much under which rule. Voided hands pay nothing; push-ups pay nothing."""
    out = _CsvOut()
    out.row(PAYMENTS_CSV)
    yield out.take()
    rules_for = _RulesCache()
    for n, (session, _names, hand) in enumerate(_csv_rows(ids), start=1):
        if hand.voided:
            continue
        result = json.loads(hand.result_json)
        if not result["payments"]:
            continue
        rules, fmt = rules_for(json.loads(hand.hand_json)["rules"], session.currency)
        for p in result["payments"]:
            out.row([
                session.name, session.uid, iso(session.created_at), hand.number,
                p["from"], p["to"], fmt(Decimal(p["amount"])), session.currency,
                rules.scoring, p["rule"]])
        if n % 500 == 0:
            yield out.take()
    yield out.take()


def _ended(end: dict[str, Any], name: str) -> str:
    """What ``name`` did to end the hand ("tonk_out by hits, first turn", "drop"), or ""."""
    if end.get("player") != name and name not in end.get("five_face_cards", ()):
        return ""
    said = [end["kind"]]
    if end.get("method"):
        said.append(f"by {end['method']}")
    if end.get("first_turn"):
        said.append("first turn")
    if end.get("double_double"):
        said.append("double-double")
    if name in end.get("five_face_cards", ()):
        said.append("five face cards")
    return ", ".join(said)


def players_csv(ids: Sequence[int]) -> Iterator[str]:
    """One row per player per hand (its current version): whether they dealt, what they did
    to end it, their count and cards, whether they won, their net (a void: 0) and each
    payment they made or took with its rule ("Ann 0.50: tonk out pays double"), and what the
    side bets played at it made them; after a session's hands, a row for each player whom
    the pots give money back at settle-up (``pots_back``, its ``hand`` empty). A player's
    nets, side bets and pots back sum to their total in the session, as every page shows
    it."""
    out = _CsvOut()
    out.row(PLAYERS_CSV)
    yield out.take()
    rules_for = _RulesCache()
    last: tuple[Any, str, Callable[[Decimal], str]] | None = None  # (the last hand's)
    for n, (session, names, hand) in enumerate(_csv_rows(ids), start=1):
        if last is not None and last[0].id != session.id:
            _pots_back_rows(out, *last)
        data, result = json.loads(hand.hand_json), json.loads(hand.result_json)
        rules, fmt = rules_for(data["rules"], session.currency)
        last = (session, rules.scoring, fmt)
        stored, played = json.loads(hand.nets_json), set(data["players"])
        side = json.loads(hand.side_nets_json)
        counts, cards = data.get("counts") or {}, data.get("cards") or {}
        pays = [] if hand.voided else result["payments"]
        for seat, name in enumerate(names):
            if name not in played:
                continue
            net = 0 if hand.voided or seat >= len(stored) else stored[seat]
            out.row([
                session.name, session.uid, iso(session.created_at), hand.number,
                "yes" if hand.voided else "no", name,
                "yes" if data["dealer"] == name else "no", _ended(data["end"], name),
                counts.get(name, ""), " ".join(cards.get(name, ())),
                "yes" if name in result["winners"] and not hand.voided else "no",
                fmt(from_minor(net)),
                fmt(from_minor(side[seat] if seat < len(side) else 0)),
                "; ".join(f"{p['to']} {fmt(Decimal(p['amount']))}: {p['rule']}"
                          for p in pays if p["from"] == name),
                "; ".join(f"{p['from']} {fmt(Decimal(p['amount']))}: {p['rule']}"
                          for p in pays if p["to"] == name),
                session.currency, rules.scoring, data["stake"], fmt(Decimal(0))])
        if n % 500 == 0:
            yield out.take()
    if last is not None:
        _pots_back_rows(out, *last)
    yield out.take()


def _pots_back_rows(out: _CsvOut, session: Any, scoring: str,
                    fmt: Callable[[Decimal], str]) -> None:
    """A row for each player the session's pots give money back at settle-up."""
    gs = db.session.get(GameSession, session.id)
    assert gs is not None
    for name, money in money_of(gs).items():
        if money.pots_back:
            out.row([session.name, session.uid, iso(session.created_at), "", "no", name, "no",
                     POTS_BACK, "", "", "no", fmt(Decimal(0)), fmt(Decimal(0)), "", "",
                     session.currency, scoring, "", fmt(money.pots_back)])


# == reading a document =======================================================================
