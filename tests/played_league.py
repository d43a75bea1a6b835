"""A league played through the ledger (corrections by another scorekeeper, voids, a void
restored, a rules change, push-ups, payments, closed and archived sessions) and a snapshot
of everything its pages show by stable keys: what the export and import tests, and the
backup's, compare before and after a round trip."""
from __future__ import annotations

import io
import json
from datetime import date
from typing import Any

from sqlalchemy import func, select

from app.db.models import (
    CarriedDebt,
    GameSession,
    Hand,
    HandEntry,
    HandVersion,
    League,
    LeagueAdmin,
    Player,
    PlayerSessionStat,
    Rating,
    RulesChange,
    Season,
    SessionPlayer,
    SettlePayment,
    User,
)
from app.db.unit import unit_of_work
from app.extensions import db
from app.services import accounts, exchange
from app.services.sessions import archive, ledger
from tests.hands import DROP_CAUGHT, PLAYERS

TABLES = (GameSession, SessionPlayer, Hand, HandVersion, HandEntry, PlayerSessionStat,
          SettlePayment, RulesChange, Player, League, LeagueAdmin, Season)


def user(email: str = "keeper@example.com", name: str = "Keeper") -> User:
    with unit_of_work():
        return accounts.create_user(email, name, "correct horse")


def snapshot() -> dict[str, Any]:
    """Everything a league's pages show, by stable keys (uids and names, never ids)."""
    sessions = {gs.id: gs for gs in db.session.scalars(select(GameSession))}
    uid = {i: gs.uid for i, gs in sessions.items()}
    names = {p.id: p.name for p in db.session.scalars(select(Player))}
    out: dict[str, Any] = {"sessions": sorted(
        (gs.uid, gs.name, exchange.iso(gs.created_at),
         gs.closed_at and exchange.iso(gs.closed_at), gs.currency, gs.stake_minor,
         gs.rules_json, gs.hand_count, gs.next_dealer, gs.league.uid if gs.league else None)
        for gs in sessions.values())}
    out["totals"] = sorted((uid[s.session_id], s.seat, s.name, names[s.player_id],
                            s.total_minor) for s in db.session.scalars(select(SessionPlayer)))
    hands = {h.id: h for h in db.session.scalars(select(Hand))}
    out["hands"] = sorted((uid[h.session_id], h.number, h.version, h.voided, h.outcome,
                           h.hand_json, h.result_json, h.nets_json) for h in hands.values())
    out["histories"] = {f"{uid[h.session_id]}/{h.number}": ledger.history(h)
                        for h in hands.values()}
    out["entries"] = sorted((uid[e.session_id], hands[e.hand_id].number, names[e.player_id],
                             e.scoring, e.amount_minor, e.won, e.tonked_out, e.drop_won,
                             e.caught) for e in db.session.scalars(select(HandEntry)))
    out["records"] = sorted((uid[r.session_id], names[r.player_id], r.scoring,
                             exchange.iso(r.played_at), r.net_minor, r.hands, r.hands_won,
                             r.tonks_out, r.drops_won, r.times_caught)
                            for r in db.session.scalars(select(PlayerSessionStat)))
    pss = PlayerSessionStat
    out["standings"] = sorted(tuple(row) for row in db.session.execute(
        select(Player.name, pss.scoring, func.sum(pss.net_minor), func.sum(pss.hands),
               func.sum(pss.hands_won), func.sum(pss.tonks_out), func.sum(pss.drops_won),
               func.sum(pss.times_caught), func.count())
        .join(Player, Player.id == pss.player_id).group_by(Player.name, pss.scoring)))
    out["payments"] = sorted((uid[p.session_id], p.payer_seat, p.payee_seat, p.amount_minor,
                              exchange.iso(p.created_at), p.transfer_id is not None,
                              p.undone_at and exchange.iso(p.undone_at), p.undone_by_name,
                              p.undo_reason)
                             for p in db.session.scalars(select(SettlePayment)))
    out["settle"] = sorted((gs.uid, gs.voided_hands, gs.archived_at and exchange.iso(
        gs.archived_at), gs.plan_no, [(t.payer, t.payee, t.amount, t.paid)
                                      for t in ledger.ledger_of(gs).plan])
        for gs in sessions.values())
    out["debts"] = sorted((uid[d.session_id], names[d.payer_id], names[d.payee_id],
                           d.amount_minor, exchange.iso(d.created_at), d.paid_at, d.paid_by_name)
                          for d in db.session.scalars(select(CarriedDebt)))

    out["rules_changes"] = sorted((uid[c.session_id], c.from_hand, c.rules_json,
                                   c.stake_minor, exchange.iso(c.created_at))
                                  for c in db.session.scalars(select(RulesChange)))
    out["leagues"] = sorted((lg.uid, lg.name, lg.rules_json, lg.stake_minor, lg.currency,
                             sorted((s.name, s.starts_on, s.ends_on) for s in lg.seasons))
                            for lg in db.session.scalars(select(League)))
    out["members"] = sorted((p.name, p.league_id is not None)
                            for p in db.session.scalars(select(Player)))
    out["ratings"] = sorted((names[r.player_id], round(r.mu, 9), round(r.sigma, 9), r.sessions)
                            for r in db.session.scalars(select(Rating)))
    return out


def wipe(app) -> None:
    db.session.remove()
    db.drop_all()
    db.create_all()


def document(chunks) -> str:
    return "".join(chunks)


def importing(text: str, who: User, **kw: Any) -> exchange.ImportReport:
    with unit_of_work(begin=False):  # as `tonk import` does
        return exchange.import_file(io.BytesIO(text.encode()), who, **kw)


def make_league(owner: User, uid: str = "a" * 32) -> League:
    """A league with two seasons and a member who never played (rows only: the league
    service is not what these tests are about)."""
    league = League(uid=uid, name="Thursday Tonk", owner_id=owner.id,
                    rules_json=json.dumps({"preset": "pagat"}), stake_minor=50, currency="USD",
                    share_token="league-share-" + uid[:8])
    db.session.add(league)
    db.session.flush()
    db.session.add(LeagueAdmin(league_id=league.id, user_id=owner.id))
    db.session.add_all([Season(league_id=league.id, name="Spring", starts_on=date(2025, 3, 1),
                               ends_on=date(2025, 5, 31)),
                        Season(league_id=league.id, name="All 2025",
                               starts_on=date(2025, 1, 1), ends_on=date(2025, 12, 31)),
                        Player(owner_id=owner.id, league_id=league.id, name="Zoe")])
    db.session.commit()
    return league


def play_league(owner: User, helper: User) -> League:
    """Sessions played through the ledger: corrections (by another scorekeeper), voids, a
    void restored, a rules change, push-ups, payments, a closed session."""
    league = make_league(owner)
    friday = ledger.create_session(owner, name="Friday", players=PLAYERS, stake="0.25",
                                   first_dealer="Dee", league_id=league.id)
    ledger.record_hand(friday, owner, DROP_CAUGHT)
    ledger.record_hand(friday, owner, {"end": {"kind": "tonk_out", "player": "Ann"}})
    ledger.record_hand(friday, helper, {"end": {"kind": "stock_out"},
                                        "counts": {"Ann": 3, "Bob": 3, "Cy": 9, "Dee": 30}})
    ledger.correct_hand(friday, helper, 1, {"end": {"kind": "run_out", "player": "Cy"}},
                        "counts were misread")
    ledger.void_hand(friday, owner, 2, "misdeal")
    ledger.void_hand(friday, owner, 3, "recorded twice")
    ledger.correct_hand(friday, owner, 3, {"end": {"kind": "dead"}}, "it was a dead hand")
    ledger.change_rules(friday, owner, rules="chicago", stake="0.50")
    ledger.record_hand(friday, owner, {"end": {"kind": "deal"}, "counts": {"Bob": 50},
                                       "multiplier": 2})
    ledger.record_hand(friday, owner, {"end": {"kind": "drop", "player": "Cy"},
                                       "counts": {"Ann": 30, "Bob": 20, "Cy": 2, "Dee": 9}})
    state = ledger.ledger_of(friday)
    mistaken = ledger.record_payment(friday, owner, state.transfers[0].payer,
                                     state.transfers[0].payee, "0.05")
    ledger.undo_payment(friday, owner, mistaken, "mis-tap")  # version 2: kept, undone
    for t in state.transfers[:-1]:
        ledger.record_payment(friday, owner, t.payer, t.payee, str(t.amount))
    ledger.close_session(friday, carry_over=True)  # version 2: the last one carried over

    saturday = ledger.create_session(owner, name="Saturday", players=["Cy", "Eve", "Ann"],
                                     rules="push_ups", league_id=league.id)
    ledger.record_hand(saturday, owner, {"end": {"kind": "run_out", "player": "Eve"},
                                         "counts": {"Cy": 12, "Ann": 30}})
    ledger.record_hand(saturday, owner, {"end": {"kind": "stock_out"},
                                         "counts": {"Cy": 4, "Eve": 9, "Ann": 4}})
    sunday = ledger.create_session(owner, name="Sunday", players=["Bob", "Dee"],
                                   rules={"preset": "texas", "catch": "alt3"}, stake="1",
                                   league_id=league.id)
    ledger.record_hand(sunday, owner, {"end": {"kind": "drop", "player": "Dee"},
                                       "counts": {"Bob": 7, "Dee": 7}})
    ledger.record_payment(sunday, owner, "Dee", "Bob", "0.50")
    archive.set_archived(sunday, True)  # version 2: archived
    db.session.commit()
    return league
