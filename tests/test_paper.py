"""The night on paper: every hand with who did what and each player's net, the
totals, the settle-up with the payee's pay links and the rule card's QR code, for the owner
and through the share link."""
from __future__ import annotations

import re

from tests.clients import record, sign_up, start
from tests.expect import matched


def test_the_printed_night_holds_every_hand(client):
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy"))
    for n in range(25):  # more than a page of the session's own list of hands
        who = ("Ann", "Bob", "Cy")[n % 3]
        assert record(client, sid, kind="run_out", player=who).status_code == 302
    client.post(f"/sessions/{sid}/players/Ann/pay", data={"venmo": "ann-pays"})
    page = client.get(f"/sessions/{sid}/print").get_data(as_text=True)
    rows = re.findall(r"<tr(?: class=\"void\")?><td class=\"num\">(\d+)</td>", page)
    assert rows == [str(n) for n in range(1, 26)]
    assert "<td>Ann ran out · Ann 0</td>" in page
    assert "<svg" in page and "/rules/pagat" in page
    session = client.get(f"/sessions/{sid}").get_data(as_text=True)
    share = matched(r'id="share-url" class="share" readonly value="([^"]+)"', session).group(1)
    shared = client.get(share + "/print")
    assert shared.status_code == 200
    assert shared.get_data(as_text=True).count('<td class="num">') == page.count(
        '<td class="num">')
    assert client.get("/s/nope/print").status_code == 404


def test_the_printed_night_adds_up_with_side_bets_and_says_its_void_hands(api):
    """The totals printed are the session page's lines that add up (hands + side bets +
    what the pots give back = total), the hands' column sums to the hands' part, and the
    count of hands says the void ones, as the page does."""
    from decimal import Decimal

    sid = api.start(side_bets={"naturals": {"stake": "0.10"}})
    tonk = {"end": {"kind": "tonk_out", "player": "Ann"}}
    naturals = {"bet": "naturals", "winner": None}
    for hand in (tonk, {"end": {"kind": "run_out", "player": "Bob"}}, tonk):
        api.ok("POST", f"/sessions/{sid}/hands", {**hand, "side_bets": [naturals]}, 201)
    api.ok("DELETE", f"/sessions/{sid}/hands/2", {"reason": "misdeal"})
    share = api.ok("GET", f"/sessions/{sid}")["share_url"]
    page = api.client.get(share + "/print").get_data(as_text=True)
    assert "3 hands, 1 of them void" in page
    ledger = api.ok("GET", f"/sessions/{sid}/ledger")
    rows = re.findall(r'<tr data-player="(\w+)" data-total="([-\d.]+)">.*?'
                      r'data-part="hands" data-amount="([-\d.]+)".*?'
                      r'data-part="side_bets" data-amount="([-\d.]+)".*?'
                      r'data-part="pots_back" data-amount="([-\d.]+)"', page)
    assert [r[0] for r in rows] == ["Ann", "Bob", "Cy", "Dee"]
    nets = re.findall(r'<tr><td class="num">\d+</td>.*?</tr>', page, re.S)  # counted hands
    for i, (name, total, hands, side, back) in enumerate(rows):
        assert Decimal(hands) + Decimal(side) + Decimal(back) == Decimal(total)
        assert Decimal(total) == Decimal(ledger["balances"][name])  # (nothing paid yet)
        column = [re.findall(r'<span class="amt \w+">([^<]*)</span>', row)[i] for row in nets]
        assert sum(Decimal(v.replace("+", "").replace("−", "-")) for v in column) == Decimal(
            hands), (name, column)
    assert Decimal(rows[1][3]) != 0  # (the side bets moved money: the test says something)


def test_the_pages_headers_say_the_rules_the_table_changed(client):
    """A table that changed a rule of its preset is not shown the preset's name alone: the
    session page, its share view and the printed night say each rule changed."""
    sign_up(client)
    sid = start(client, **{"opt-tonk_out_pays": "3"})
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    meta = matched(r'<p class="meta">(.*?)</p>', page, re.S).group(1)
    assert "Standard (pagat.com) (Tonk out pays: 3)" in " ".join(meta.split()), meta
    share = matched(r'id="share-url" class="share" readonly value="([^"]+)"', page).group(1)
    for shown in (client.get(share), client.get(f"/sessions/{sid}/print")):
        assert "(Tonk out pays: 3)" in shown.get_data(as_text=True)
    plain = start(client)
    assert "Standard (pagat.com) ·" in " ".join(
        client.get(f"/sessions/{plain}").get_data(as_text=True).split())
