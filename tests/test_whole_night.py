"""A whole night through the API, exact at every step: two players join (one at the
dealer's right, one after a named player), one leaves, taking back what they had in the open
pot (so the deal that wins it later cannot move their total); both side bets ride along (a
naturals pot carried over three deals, then won; a high-card deal that nobody wins under
``return``);
then settle-up: a partial payment that changes no other transfer, a payment undone with a
reason, and a close that carries the open debts over, listed until marked paid. Export and
import give the night back exactly."""
from __future__ import annotations

import io
from decimal import Decimal

from app.db.models import GameSession, User
from app.db.unit import unit_of_work
from app.extensions import db
from app.services import exchange
from tests.clients import Api, account
from tests.expect import fetched
from tests.played_league import wipe

SIDE_BETS = {"naturals": {"stake": "0.10"},
             "high_card": {"stake": "0.20", "unclaimed": "return"}}
DEAD = {"end": {"kind": "dead"}}


def hand(end, **bets):
    """A hand whose side bets are ``bets``: a bet's winner (or None), everyone seated in."""
    plays = [{"bet": bet, "winner": winner, **({"suit": "H"} if bet == "high_card" else {})}
             for bet, winner in bets.items()]
    return {**end, "side_bets": plays}


def state(api, sid):
    return api.ok("GET", f"/sessions/{sid}/ledger")


def exact(api, sid, played, pots, transfers):
    """What each player's hands and side bets made (``played``: + pots = 0), the pots and
    the open transfers as the table reads them; each total is that and what the pots give
    back (pot_returns): the totals sum to zero. The answer, with ``played``."""
    now = state(api, sid)
    money = {n: {k: Decimal(v) for k, v in m.items()} for n, m in now["money"].items()}
    now["played"] = {n: f"{m['hands'] + m['side_bets']:.2f}" for n, m in money.items()}
    assert now["played"] == played, now["played"]
    assert now["pots"] == pots, now["pots"]
    assert [(t["from"], t["to"], t["amount"]) for t in now["open"]] == transfers, now["open"]
    assert sum(map(Decimal, [*played.values(), *now["pots"].values()])) == 0
    assert {n: Decimal(v) for n, v in now["totals"].items()} == {
        n: Decimal(played[n]) + Decimal(now["pot_returns"].get(n, "0")) for n in played}
    assert sum(map(Decimal, now["totals"].values())) == 0
    return now


def without_ids(book):
    """A ledger answer as another database would give it: the same but for row ids."""
    def strip(rows):
        return [{k: v for k, v in row.items() if k != "id"} for row in rows]
    return {**book, **{k: strip(book[k]) for k in ("paid", "payments", "carried_over")}}


def test_the_whole_night_exact_at_every_step(db_app, api):
    sid = api.start(side_bets=SIDE_BETS)  # Ann, Bob, Cy, Dee; Dee deals first
    joined = api.ok("POST", f"/sessions/{sid}/seats", {"join": "Fay"})
    assert joined["players"] == ["Ann", "Bob", "Cy", "Fay", "Dee"]  # deals last, after Cy
    assert joined["dealer"] == "Dee"
    # Deal 1: everyone in both bets; nobody holds a heart, so each high-card stake goes back.
    api.ok("POST", f"/sessions/{sid}/hands", hand(DEAD, naturals=None, high_card=None), 201)
    exact(api, sid, dict.fromkeys(["Ann", "Bob", "Cy", "Dee", "Fay"], "-0.10"),
          {"high_card": "0.00", "naturals": "0.50"}, [])
    joined = api.ok("POST", f"/sessions/{sid}/seats", {"join": "Gus", "after": "Bob"})
    assert joined["players"] == ["Ann", "Bob", "Gus", "Cy", "Fay", "Dee"]
    # Deal 2: Bob tonks out (each other player pays him two stakes); no natural.
    api.ok("POST", f"/sessions/{sid}/hands",
           hand({"end": {"kind": "tonk_out", "player": "Bob"}}, naturals=None), 201)
    to_bob = [(p, "Bob", "0.50") for p in ("Ann", "Cy", "Dee", "Fay", "Gus")]
    exact(api, sid, {"Ann": "-0.70", "Bob": "2.30", "Cy": "-0.70", "Dee": "-0.70",
                     "Fay": "-0.70", "Gus": "-0.60"},
          {"high_card": "0.00", "naturals": "1.10"}, to_bob)
    left = api.ok("POST", f"/sessions/{sid}/seats", {"leave": "Cy"})
    assert left["players"] == ["Ann", "Bob", "Gus", "Fay", "Dee"] and left["left"] == ["Cy"]
    # Cy takes back the 0.20 he had in the naturals pot as he goes: what is owed is the same.
    exact(api, sid, {"Ann": "-0.70", "Bob": "2.30", "Cy": "-0.50", "Dee": "-0.70",
                     "Fay": "-0.70", "Gus": "-0.60"},
          {"high_card": "0.00", "naturals": "0.90"}, to_bob)
    # Deal 3: the pot carries over a third deal; Cy, gone, is not in it.
    api.ok("POST", f"/sessions/{sid}/hands", hand(DEAD, naturals=None), 201)
    now = exact(api, sid, {"Ann": "-0.80", "Bob": "2.20", "Cy": "-0.50", "Dee": "-0.80",
                           "Fay": "-0.80", "Gus": "-0.70"},
                {"high_card": "0.00", "naturals": "1.40"}, to_bob)
    assert "Cy" not in now["pot_returns"]  # his stakes went back to him as he left
    # Deal 4: Gus spreads three of a kind first and takes the pot, carried money and all
    # (Cy's is no longer in it: his total does not move).
    api.ok("POST", f"/sessions/{sid}/hands", hand(DEAD, naturals="Gus"), 201)
    plan = [("Ann", "Bob", "0.90"), ("Cy", "Bob", "0.30"), ("Cy", "Gus", "0.20"),
            ("Dee", "Bob", "0.90"), ("Fay", "Gus", "0.90")]
    exact(api, sid, {"Ann": "-0.90", "Bob": "2.10", "Cy": "-0.50", "Dee": "-0.90",
                     "Fay": "-0.90", "Gus": "1.10"},
          {"high_card": "0.00", "naturals": "0.00"}, plan)

    # Settle-up. A partial payment shrinks its own transfer and no other.
    api.ok("POST", f"/sessions/{sid}/payments", {"from": "Cy", "to": "Bob", "amount": "0.10"})
    plan[1] = ("Cy", "Bob", "0.20")
    book = exact(api, sid, {"Ann": "-0.90", "Bob": "2.10", "Cy": "-0.50", "Dee": "-0.90",
                            "Fay": "-0.90", "Gus": "1.10"},
                 {"high_card": "0.00", "naturals": "0.00"}, plan)
    # Ann's full payment, tapped by mistake, is undone with a reason and kept in the history.
    api.ok("POST", f"/sessions/{sid}/payments", {"from": "Ann", "to": "Bob", "amount": "0.90"})
    assert [t["from"] for t in state(api, sid)["open"]] == ["Cy", "Cy", "Dee", "Fay"]
    mistake = state(api, sid)["paid"][-1]["id"]
    api.ok("DELETE", f"/sessions/{sid}/payments/{mistake}", {"reason": "Ann has not paid yet"})
    book = exact(api, sid, book["played"], book["pots"], plan)
    undone = book["payments"][-1]
    assert undone["undone"] and undone["undo_reason"] == "Ann has not paid yet"
    assert [p["amount"] for p in book["paid"]] == ["0.10"]
    # Closing needs a choice; carried over, what is open stays as debts until marked paid.
    assert api("POST", f"/sessions/{sid}/close").status_code == 422
    api.ok("POST", f"/sessions/{sid}/close", {"carry_over": True})
    book = state(api, sid)
    assert [(d["from"], d["to"], d["amount"]) for d in book["carried_over"]] == plan
    debts = api.ok("GET", "/debts")
    assert [(d["from"], d["to"], d["amount"]) for d in debts] == plan
    api.ok("POST", f"/debts/{debts[0]['id']}/paid")
    assert [(d["from"], d["to"], d["amount"]) for d in api.ok("GET", "/debts")] == plan[1:]

    # Export, then import into an empty database: the same night, to the cent.
    before = without_ids(state(api, sid))
    with db_app.app_context():
        text = "".join(exchange.export_session(fetched(GameSession, sid)))
        wipe(db_app)
    newcomer = Api(api.client, account(db_app, "new@example.com", "Newcomer"))
    with db_app.app_context():
        with unit_of_work(begin=False):
            report = exchange.import_file(io.BytesIO(text.encode()), db.session.scalar(
                db.select(User).where(User.email == "new@example.com")))
        assert report.ok and report.hands == 4, report.problems
    copy = newcomer.ok("GET", "/sessions")[0]["id"]
    assert without_ids(state(newcomer, copy)) == before
