"""The players CSV: one row per player per hand, what they did and the rule of
each payment they made or took, so that a spreadsheet rebuilds every total."""
from __future__ import annotations

import csv
import io
from collections import defaultdict
from decimal import Decimal

from sqlalchemy import select

from app.db.models import SessionPlayer
from app.extensions import db
from app.services import exchange
from app.services.sessions import ledger, money_of
from tests.clients import sign_up, start
from tests.played_league import document, play_league, user


def test_each_player_each_hand_rebuilds_every_total(db_app):
    with db_app.app_context():
        owner = user()
        league = play_league(owner, owner)
        ids = exchange.league_session_ids(league)
        rows = list(csv.DictReader(io.StringIO(document(exchange.players_csv(ids)))))
        hands = list(csv.DictReader(io.StringIO(document(exchange.hands_csv(ids)))))
        players = ("Ann", "Bob", "Cy", "Dee", "Eve")
        assert len([r for r in rows if r["hand"]]) == sum(1 for h in hands for p in players
                                                          if h[p])
        totals: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
        for row in rows:
            totals[(row["session_uid"], row["player"])] += Decimal(row["net"])
        for seat in db.session.scalars(select(SessionPlayer)):
            if ledger.session_rules(seat.session).scoring == "push_ups":
                continue  # push-ups count pushes, not nets
            assert totals[(seat.session.uid, seat.name)] == Decimal(seat.total_minor) / 100
        first = {r["player"]: r for r in rows if (r["session"], r["hand"]) == ("Friday", "1")}
        assert first["Cy"]["ended"] == "run_out" and first["Cy"]["won"] == "yes"
        assert first["Cy"]["received"] == ("Ann 0.25: run out pays single; Bob 0.25: run out "
                                           "pays single; Dee 0.25: run out pays single")
        assert first["Ann"]["paid"] == "Cy 0.25: run out pays single"
        assert first["Ann"]["ended"] == "" and first["Ann"]["net"] == "-0.25"
        void = [r for r in rows if (r["session"], r["hand"]) == ("Friday", "2")]
        assert void and all(r["voided"] == "yes" and r["net"] == "0.00" and not r["paid"]
                            for r in void)


def test_a_tonk_out_by_hits_says_how(db_app):
    with db_app.app_context():
        owner = user()
        gs = ledger.create_session(owner, name="Hits", players=["Ann", "Bob"])
        ledger.record_hand(gs, owner, {"end": {"kind": "tonk_out", "player": "Ann",
                                               "method": "hits"}})
        rows = list(csv.DictReader(io.StringIO(document(exchange.players_csv([gs.id])))))
        assert [r["ended"] for r in rows] == ["tonk_out, by hits", ""]
        assert rows[1]["paid"] == "Ann 2.00: tonk out pays double"


def test_the_session_page_links_the_players_csv(client):
    sign_up(client)
    sid = start(client)
    resp = client.get(f"/sessions/{sid}/players.csv")
    assert resp.status_code == 200 and resp.mimetype == "text/csv"
    assert f"/sessions/{sid}/players.csv" in client.get(f"/sessions/{sid}").get_data(
        as_text=True)


def test_a_player_s_nets_side_bets_and_pots_back_sum_to_their_total(db_app):
    """With side bets the hands' nets alone are not the total: each row says what the side
    bets played at that hand made the player, a row after the hands what the pots give
    back at settle-up, and a player's rows sum to their total as every page shows it (a
    newcomer's organiser found the CSV 0.15 short of the standings: no pots back)."""
    with db_app.app_context():
        owner = user()
        gs = ledger.create_session(owner, name="Side", players=["Ann", "Bob", "Cy"],
                                   side_bets={"naturals": {"stake": "0.10"}})
        for winner in (None, "Bob", None):
            ledger.record_hand(gs, owner, {"end": {"kind": "run_out", "player": "Ann"},
                                           "side_bets": [{"bet": "naturals",
                                                          "winner": winner}]})
        rows = list(csv.DictReader(io.StringIO(document(exchange.players_csv([gs.id])))))
        totals: dict[str, Decimal] = defaultdict(Decimal)
        for row in rows:
            totals[row["player"]] += (Decimal(row["net"]) + Decimal(row["side_bets"])
                                      + Decimal(row["pots_back"]))
        assert any(Decimal(r["side_bets"]) for r in rows)
        back = [(r["player"], r["hand"], r["ended"], r["pots_back"]) for r in rows
                if Decimal(r["pots_back"])]
        assert back == [(name, "", "pots back at settle-up", "0.10")
                        for name in ("Ann", "Bob", "Cy")]  # hand 3's stakes, in the pot
        assert totals == {name: m.total for name, m in money_of(gs).items()}
        assert sum(totals.values()) == 0
