"""The phone counts what the server will: a session's page carries its state
(``app.services.sessions.phone_table``), the phone core's ``record`` counts the hands waiting
in the outbox from it (their record-form fields, as the outbox keeps them), and when those
fields reach the server its ledger comes out the same: each hand's result and side bets,
every total and its side-bet part, the pots, the next dealer and the fewest transfers.

Through the pages and the API on SQLite and PostgreSQL, with side bets and pots, a seat
that joined, one that left with money in a pot, a payment made, the Big One, a hand the
server refuses; in the reader's languages only the words differ."""
from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

from app.core.phone import answer, catalogue_translator
from app.db.models import GameSession
from app.extensions import db
from app.services.sessions import ledger_of, phone_table

ROOT = pathlib.Path(__file__).resolve().parent.parent
BOTH = {"high_card": {"unclaimed": "carry"}, "naturals": {"stake": "0.10"}}


def translators() -> dict[str, Any]:
    return {lang: catalogue_translator(
        (ROOT / "translations" / lang / "LC_MESSAGES" / "messages.mo").read_bytes())
        for lang in ("de", "ja")}


def session_of(sid: int) -> GameSession:
    gs = db.session.get(GameSession, sid)
    assert gs is not None
    return gs


def table_of(app, sid: int) -> dict[str, Any]:
    with app.app_context():
        return phone_table(session_of(sid))


def fields(**form: Any) -> list[list[str]]:
    """A record form's fields as the outbox keeps them: ``[name, value]`` pairs."""
    out = []
    for name, value in form.items():
        for one in value if isinstance(value, list) else [value]:
            out.append([name, str(one)])
    return out


def side(bet: str, players: list[str], winner: str = "", suit: str = "") -> dict[str, Any]:
    return {f"sb-{bet}-shown": "1", f"sb-{bet}-in": players, f"sb-{bet}-winner": winner,
            f"sb-{bet}-suit": suit}


def signed_in(app, email: str):
    client = app.test_client()
    resp = client.post("/signin", data={"email": email, "password": "correct horse"})
    assert resp.status_code == 302, resp.data
    return client


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_the_phone_counts_waiting_hands_as_the_server_then_does(db_app, api, lang):
    sid = api.start(side_bets=BOTH)  # Ann, Bob, Cy, Dee; Dee deals first
    post = lambda hand: api.ok("POST", f"/sessions/{sid}/hands", hand, 201)  # noqa: E731
    post({"end": {"kind": "dead"}, "side_bets": [{"bet": "high_card", "suit": "S"}]})
    api.ok("POST", f"/sessions/{sid}/seats", {"join": "Eve"})
    post({"end": {"kind": "tonk_out", "player": "Ann"},
          "side_bets": [{"bet": "high_card", "suit": "H"},
                        {"bet": "naturals", "players": ["Ann", "Bob", "Cy"]}]})
    api.ok("POST", f"/sessions/{sid}/seats", {"leave": "Cy"})  # his stakes come back
    api.ok("POST", f"/sessions/{sid}/payments",
           {"from": "Bob", "to": "Ann", "amount": "0.10"})
    before = table_of(db_app, sid)
    assert before["night"]["seated"] == ["Ann", "Bob", "Dee", "Eve"] and before["night"]["pots"]

    waiting = [
        fields(kind="stock_out", **{"count-0": 7, "count-1": 12, "count-2": 30, "count-3": 3},
               **side("high_card", ["Ann", "Bob", "Dee", "Eve"], suit="C")),
        fields(kind="tonk_out", player="Eve", big_one=2,
               **side("high_card", ["Ann", "Bob", "Dee", "Eve"], "Bob", "D"),
               **side("naturals", ["Ann", "Bob"])),
        fields(kind="tonk_out", player="Cy"),  # Cy left: refused on both sides
        fields(kind="drop", player="Dee", dealer="Bob",
               **{"count-0": 20, "count-1": 11, "count-2": 9, "count-3": 10},
               **side("naturals", ["Bob", "Dee", "Eve"], "Eve")),
        fields(kind="deal", **{"count-0": 50}),
    ]
    phone = answer({"op": "record", "lang": lang, "table": before, "hands": waiting},
                   translators())
    assert "error" not in phone, phone
    refused = [h for h in phone["hands"] if "error" in h]
    assert [h["field"] for h in refused] == ["end.player"]
    assert sum("side_bets" in h for h in phone["hands"]) == 3

    client = signed_in(db_app, "ann@example.com")
    numbers = []
    for form, counted in zip(waiting, phone["hands"], strict=True):
        data: dict[str, list[str]] = {}
        for name, value in form:
            data.setdefault(name, []).append(value)
        resp = client.post(f"/sessions/{sid}/hands/new", data=data)
        assert resp.status_code == (422 if "error" in counted else 302), resp.status_code
        if "error" not in counted:
            numbers.append(counted["number"])

    after = table_of(db_app, sid)
    with db_app.app_context():
        state = ledger_of(session_of(sid))
    for counted in phone["hands"]:
        if "error" in counted:
            continue
        stored = api.ok("GET", f"/sessions/{sid}/hands/{counted['number']}")
        if lang == "en":  # (the server stores its words in English)
            assert counted["result"] == {k: v for k, v in stored["result"].items()
                                         if k != "side_bets"}
            assert counted.get("side_bets", []) == stored["result"].get("side_bets", [])
        else:
            assert counted["result"]["net"] == stored["result"]["net"]
        assert counted["dealer"] == stored["hand"]["dealer"]
    assert numbers == [3, 4, 5, 6]
    rows = {r["name"]: r for r in phone["rows"]}
    assert {n: r["total"]["data"] for n, r in rows.items()} == {
        n: str(v + state.returns.get(n, 0)) for n, v in state.totals.items()}
    assert {n: r["side_bets"]["data"] for n, r in rows.items()} == {
        n: m["side_bets"] for n, m in after["night"]["money"].items()}
    assert phone["dealer"] == after["night"]["dealer"]
    assert [(t["from"], t["to"], t["amount"]) for t in phone["transfers"]] == [
        (t.payer, t.payee, f"{t.amount:.2f}") for t in state.transfers]
    assert set(phone["pots"]) == {bet for bet, total in state.pots.items() if total}


def test_a_page_carries_the_state_the_phone_counts_from(db_app, api):
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", {"end": {"kind": "tonk_out", "player": "Bob"}},
           201)
    client = signed_in(db_app, "ann@example.com")
    for path in (f"/sessions/{sid}", f"/sessions/{sid}/hands/new", f"/sessions/{sid}/settle"):
        page = client.get(path).get_data(as_text=True)
        start = page.index('<script type="application/json" id="phone-table"')
        text = page[page.index(">", start) + 1:page.index("</script>", start)]
        assert json.loads(text) == table_of(db_app, sid), path
