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
