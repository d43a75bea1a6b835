"""A player's money, counted once (issue 40): the home page's session card, the session
page, settle-up and the ledger API show the same totals, what the side bets' pots give back
included, and wherever a row shows parts (hands, side bets, pots back) they sum to its
total. Read from the pages by their hooks (/work/shared/API.md, the fifth round), on SQLite
and PostgreSQL."""
from __future__ import annotations

import re
from decimal import Decimal

from tests.clients import Api, account

D = Decimal


def signed_in(app, email="ann@example.com"):
    client = app.test_client()
    resp = client.post("/signin", data={"email": email, "password": "correct horse"})
    assert resp.status_code == 302, resp.data
    return client


def card_totals(html: str, sid: int) -> dict[str, Decimal]:
    """The totals on session ``sid``'s card of the home page."""
    card = re.search(rf'data-session-card="{sid}".*?</li>\s*</ul>', html, re.S)
    assert card is not None, "no session card"
    return {n: D(v) for n, v in re.findall(r'data-player="([^"]+)" data-total="([^"]+)"',
                                           card.group(0))}


def page_rows(html: str) -> dict[str, tuple[Decimal, dict[str, Decimal]]]:
    """Each player's row on a session's page: its total and its parts, by hook."""
    rows = {}
    for name, total, inside in re.findall(
            r'<tr data-player="([^"]+)" data-total="([^"]+)">(.*?)</tr>', html, re.S):
        parts = {p: D(a) for p, a in re.findall(
            r'data-part="([a-z_]+)" data-amount="([^"]+)"', inside)}
        rows[name] = (D(total), parts)
    return rows


def test_the_home_card_counts_what_the_pots_give_back_as_the_session_page_does(db_app):
    """Defect 1: Ann ran out, nobody won the naturals (3 players, stake 1): the card said
    +1.00/-2.00/-2.00, the session page +2.00/-1.00/-1.00."""
    api = Api(db_app.test_client(), account(db_app, "ann@example.com", "Ann"))
    sid = int(api.ok("POST", "/sessions", {
        "name": "Friday", "players": ["Ann", "Bob", "Cy"], "rules": "pagat", "stake": "1",
        "currency": "USD", "side_bets": {"naturals": {}}}, 201)["id"])
    api.ok("POST", f"/sessions/{sid}/hands", {
        "end": {"kind": "run_out", "player": "Ann"}, "counts": {"Ann": 0, "Bob": 10, "Cy": 10},
        "side_bets": [{"bet": "naturals", "winner": None}]}, 201)
    client = signed_in(db_app)
    want = {"Ann": D("2.00"), "Bob": D("-1.00"), "Cy": D("-1.00")}
    assert card_totals(client.get("/").get_data(as_text=True), sid) == want
    for path in (f"/sessions/{sid}", f"/sessions/{sid}/settle"):
        rows = page_rows(client.get(path).get_data(as_text=True))
        assert {n: total for n, (total, _) in rows.items()} == want, path
        for total, parts in rows.values():
            assert set(parts) == {"hands", "side_bets", "pots_back"}
            assert sum(parts.values()) == total, path
    state = api.ok("GET", f"/sessions/{sid}/ledger")
    assert {n: D(v) + D(state["pot_returns"].get(n, "0"))
            for n, v in state["totals"].items()} == want
