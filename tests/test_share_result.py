""""Share the result": the night as text for the group chat, in the reader's
language, with totals, who pays whom, the payee's pay links and the share link; and the
facts of the picture of the totals."""
from __future__ import annotations

import html
import json
import re

from tests.clients import record, sign_up, start
from tests.expect import matched


def _text(page: str) -> str:
    found = re.search(r'<textarea id="result-text"[^>]*>(.*?)</textarea>', page, re.S)
    assert found, "no result text"
    return html.unescape(found.group(1))


def test_the_result_text_of_a_night_in_german(client):
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy"), currency="EUR", stake="0.50",
                name="Freitag bei Dee")
    assert record(client, sid, kind="tonk_out", player="Ann").status_code == 302
    client.post(f"/sessions/{sid}/players/Ann/pay", data={"paypal": "annpays"})
    page = client.get(f"/sessions/{sid}", headers={"Accept-Language": "de"}).get_data(
        as_text=True)
    share = matched(r'id="share-url" class="share" readonly value="([^"]+)"', page).group(1)
    text = _text(page)
    assert text.splitlines()[0] == "Freitag bei Dee: Tonk, 1 Hand"
    assert "Summen:\nAnn +2,00\xa0€\nBob −1,00\xa0€\nCy −1,00\xa0€" in text
    assert "Wer wem zahlt:\nBob → Ann 1,00\xa0€\n  https://paypal.me/annpays/1.00EUR" in text
    assert text.endswith(f"Der Spielstand: {share}")
    # the share link's readers get the same text, in their own language
    shared = _text(client.get(share, headers={"Accept-Language": "ja"}).get_data(as_text=True))
    assert shared.splitlines()[0] == "Freitag bei Dee：トンク、1ハンド"
    picture = json.loads(html.unescape(matched(
        r'<script type="application/json" id="result-picture">(.*?)</script>', page,
        re.S).group(1)))
    assert picture["rows"][0] == ["Ann", "+2,00\xa0€", "pos"]
    assert picture["title"] == "Freitag bei Dee"
    # a void hand: said as the page says it ("2 Hände, 1 davon ungültig"), not "1 Hand"
    assert record(client, sid, kind="run_out", player="Bob").status_code == 302
    assert client.post(f"/sessions/{sid}/hands/2/void", data={"reason": "misdeal"}
                        ).status_code in (302, 303)
    page = client.get(f"/sessions/{sid}", headers={"Accept-Language": "de"}).get_data(
        as_text=True)
    meta = " ".join(matched(r'<p class="meta">(.*?)</p>', page, re.S).group(1).split())
    first = _text(page).splitlines()[0]
    said = first.removeprefix("Freitag bei Dee: Tonk, ")
    assert said == "2 Hände, davon 1 ungültig" and f" · {said}" in meta, (said, meta)


def test_no_result_to_share_before_the_first_hand(client):
    sign_up(client)
    sid = start(client)
    assert 'id="result-text"' not in client.get(f"/sessions/{sid}").get_data(as_text=True)


def test_the_result_text_totals_are_the_settled_ones_when_a_pot_holds_money(db_app, api):
    """With money in a side bet's pot, the text and the picture give each player's total as
    the totals' table ends it (the pot's money back to who paid it in), so that they sum to
    zero and match who pays whom (they gave the seat totals, without the pot's return)."""
    from decimal import Decimal

    sid = api.start(side_bets={"naturals": {"stake": "0.10"}})
    dead = {"end": {"kind": "dead"}}
    api.ok("POST", f"/sessions/{sid}/hands", {**dead, "side_bets": [
        {"bet": "naturals", "winner": None}]}, 201)  # 0.40 carried in the pot
    api.ok("POST", f"/sessions/{sid}/hands", {"end": {"kind": "tonk_out", "player": "Ann"},
                                              "side_bets": []}, 201)
    state = api.ok("GET", f"/sessions/{sid}/ledger")
    assert state["pots"] == {"naturals": "0.40"}
    settled = {name: Decimal(total) for name, total in state["totals"].items()}  # (pot back)
    assert state["pot_returns"] == dict.fromkeys(settled, "0.10")
    share = api.ok("GET", f"/sessions/{sid}")["share_url"]
    page = db_app.test_client().get(share).get_data(as_text=True)
    lines = _text(page).split("\n\n")[1].splitlines()[1:]
    shown = {name: Decimal(re.sub(r"[^\d.]", "", amount)) * (-1 if "−" in amount else 1)
             for name, amount in (line.split(" ", 1) for line in lines)}
    assert shown == settled and sum(shown.values()) == 0
    picture = json.loads(html.unescape(matched(
        r'<script type="application/json" id="result-picture">(.*?)</script>', page,
        re.S).group(1)))
    assert [row[0] for row in picture["rows"]] == [line.split(" ")[0] for line in lines]
