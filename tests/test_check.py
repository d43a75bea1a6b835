"""The dispute checker for anyone (``/check``) and ``POST /api/v1/compare``: every preset ×
every end kind through both, permalinks that round-trip, bad input beside its field (never
a 500), and the same hand under other house rules on a recorded hand's page."""
from __future__ import annotations

import base64
import json
import re
from html.parser import HTMLParser

import pytest
from markupsafe import escape

from app.core import PRESETS, parse_hand, settle
from app.web.checker.dispute import decode_hand, encode_hand
from tests.clients import errors_of, record, shown_beside, sign_up, start
from tests.hands import END_KINDS, hand_form, hand_json


def text(resp) -> str:
    return resp.get_data(as_text=True)


def form_part(page: str) -> str:
    """The checker's form as shown (not the fields kept for the phone in #check-hand)."""
    start = page.index('id="hand-form"')
    return page[start:page.index("</form>", start)]


def permalink_token(url: str) -> str:
    return url.split("hand=", 1)[1]


class _FormReader(HTMLParser):
    """What a browser would send from the page's #hand-form as it is shown."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}
        self.select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "input" and a.get("name"):
            if a.get("type") in ("radio", "checkbox") and "checked" not in a:
                return
            if a.get("value"):
                self.fields[a["name"]] = a["value"]
        elif tag == "select":
            self.select = a.get("name")
        elif tag == "option" and self.select and "selected" in a:
            self.fields[self.select] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self.select = None


def shown_form(page: str) -> dict[str, str]:
    reader = _FormReader()
    reader.feed(form_part(page))
    return reader.fields


# -- the page ---------------------------------------------------------------------------------

def test_check_is_open_to_anyone_and_linked_from_the_welcome_page(client):
    assert 'href="/check"' in text(client.get("/"))
    resp = client.get("/check")
    assert resp.status_code == 200
    page = text(resp)
    assert 'name="players"' in page and 'name="preset"' in page
    assert "Change single rules" in page  # the session form's rules part
    assert 'id="hand-config"' not in form_part(page)  # the hand's fields come once players
    assert 'id="check-hand"' in page  # are known (or the phone draws them with no signal)


def test_check_is_linked_from_the_home_page(client):
    sign_up(client)
    assert 'href="/check"' in text(client.get("/"))


def test_next_draws_the_record_hand_fields_for_the_players(client):
    resp = client.post("/check", data={"players": "Ann, Bob ,Cy", "preset": "rushville",
                                       "stake": "0.05", "step": "setup"})
    page = form_part(text(resp))
    assert resp.status_code == 200
    for seat, name in enumerate(["Ann", "Bob", "Cy"]):
        assert f'id="count-{seat}"' in page and f'value="{name}"' in page
    assert 'name="five_face"' in page  # Rushville's five face cards, from the same macro
    assert 'id="hand-config"' in page


@pytest.mark.parametrize("kind", END_KINDS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_and_end_through_check(open_client, preset, kind):
    resp = open_client.post("/check", data=hand_form(preset, kind))
    if preset == "wikipedia" and kind == "deal":
        assert resp.status_code == 422
        shown_beside(resp, "counts", "these house rules have no instant wins on the deal")
        return
    assert resp.status_code == 302, errors_of(resp)
    expected = settle(parse_hand(hand_json(preset, kind)))
    linked = settle(parse_hand(decode_hand(permalink_token(resp.location))))
    assert linked.to_json() == expected.to_json()
    page = open_client.get(resp.location)
    assert page.status_code == 200
    body = text(page)
    for line in expected.explanation:
        assert str(escape(line)) in body
    assert "Under other house rules" in body and "<svg" in body
    assert body.count('<tr class="own">') == 1


@pytest.mark.parametrize("kind", END_KINDS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_and_end_through_the_compare_api(open_client, preset, kind):
    resp = open_client.post("/api/v1/compare", json=hand_json(preset, kind))
    assert resp.status_code == 200
    results = resp.get_json()["results"]
    assert results[0]["own"] is True and results[0]["rules"] == {"preset": preset}
    assert [r["rules"] for r in results[1:]] == [p for p in PRESETS if p != preset]
    for entry in results:
        assert ("result" in entry) != ("error" in entry)
        assert entry["title"]
    own = results[0]
    if preset == "wikipedia" and kind == "deal":
        assert own["error"] == "these house rules have no instant wins on the deal"
        assert own["field"] == "counts"
    else:
        assert own["result"] == settle(parse_hand(hand_json(preset, kind))).to_json()
        assert own["result"]["outcome"] in ("deal_win", kind, "drop_won", "caught", "draw")


def test_compare_marks_what_differs_from_the_tables_ruling(client):
    resp = client.post("/api/v1/compare", json=hand_json("pagat", "drop"))
    by_rules = {json.dumps(r["rules"]): r for r in resp.get_json()["results"]}
    chicago = by_rules['"chicago"']
    assert chicago["differs"] == {"winners": False, "players": ["Ann", "Cy", "Dee"]}
    assert chicago["result"]["net"] == {"Ann": "0.00", "Bob": "-0.50", "Cy": "0.50",
                                        "Dee": "0.00"}
    assert by_rules['"seattle"']["differs"] == {"winners": False, "players": []}
    washington = by_rules['"washington"']
    assert washington["note"] == "points scoring: a stake of 1 point"


def test_the_tables_own_changed_rules_are_not_named_as_the_preset(client):
    """A table that changed pagat's catch is not playing "Standard (pagat.com)": its row
    says what it changed, and the preset's own row keeps the preset's name."""
    body = {**hand_json("pagat", "drop"), "rules": {"preset": "pagat", "catch": "alt3"}}
    results = client.post("/api/v1/compare", json=body).get_json()["results"]
    assert results[0]["title"] == (
        "Your table's rules: Standard (pagat.com), with Caught drop changed")
    assert [r["title"] for r in results[1:] if r["rules"] == "pagat"] == ["Standard (pagat.com)"]
    assert client.post("/api/v1/compare", json=hand_json("pagat", "drop")).get_json()[
        "results"][0]["title"] == "Your table's rules: Standard (pagat.com)"


def test_compare_without_rules_lists_every_preset(client):
    body = hand_json("pagat", "stock_out")
    del body["rules"]
    results = client.post("/api/v1/compare", json=body).get_json()["results"]
    assert [r["rules"] for r in results] == list(PRESETS)


def test_compare_errors_in_the_one_shape(client):
    assert client.post("/api/v1/compare", data="[", content_type="application/json"
                       ).status_code == 400
    resp = client.post("/api/v1/compare", json={**hand_json("pagat", "dead"), "players": ["A"]})
    assert resp.status_code == 422
    assert resp.get_json() == {"error": "Tonk needs 2 to 8 players, not 1", "field": "players"}
    resp = client.post("/api/v1/compare", json={**hand_json("pagat", "dead"),
                                                 "rules": {"preset": "nowhere"}})
    assert resp.status_code == 422  # the table's own rules cannot be read: that is the answer
    assert resp.get_json()["field"] == "rules.preset"


def test_compare_is_in_the_openapi_document(client):
    doc = client.get("/api/v1/openapi.json").get_json()
    assert "post" in doc["paths"]["/api/v1/compare"]
    assert "Ruling" in doc["components"]["schemas"]


# -- permalinks -------------------------------------------------------------------------------

ROUND_TRIPS = [
    hand_json("pagat", "drop"),
    {**hand_json("chicago", "tonk_out"), "multiplier": 2,
     "end": {"kind": "tonk_out", "player": "Bob", "first_turn": True}},
    {"rules": {"preset": "pagat", "catch": "alt5", "deck": "jokers"}, "stake": "0.10",
     "players": ["Zoë", "Jürgen", "恵美"], "dealer": "恵美",
     "end": {"kind": "drop", "player": "Zoë"}, "counts": {"Zoë": 7, "Jürgen": 7},
     "cards": {"恵美": ["KS", "JOKER", "2H"]}},
]


@pytest.mark.parametrize("data", ROUND_TRIPS, ids=["drop", "big-one", "cards"])
def test_permalinks_round_trip(client, data):
    hand = parse_hand(data)
    token = encode_hand(hand)
    assert "=" not in token and re.fullmatch(r"[A-Za-z0-9_-]+", token)
    assert parse_hand(decode_hand(token)) == hand
    page = client.get(f"/check?hand={token}")
    assert page.status_code == 200
    body = text(page)
    assert f"/check?hand={token}" in body  # the permalink, shown to copy and as a QR code
    assert f'value="{escape(", ".join(hand.players))}"' in body  # the form, filled in again
    # Sending the form as it is shown gives the same link back.
    form = {**shown_form(body), "step": "check"}
    again = client.post("/check", data=form)
    assert again.status_code == 302, errors_of(again)
    # (counts the end does not use are not sent again, as when recording a hand)
    again_hand = parse_hand(decode_hand(permalink_token(again.location)))
    assert settle(again_hand).to_json() == settle(hand).to_json()


@pytest.mark.parametrize("token", [
    "abc", "!!!!", base64.urlsafe_b64encode(b"not json").decode(),
    base64.urlsafe_b64encode(b"[1, 2]").decode(),
    base64.urlsafe_b64encode(json.dumps({"players": ["Ann"]}).encode()).decode(),
    base64.urlsafe_b64encode(b"\xff\xfe").decode(), "A" * 7000])
def test_a_damaged_permalink_is_a_message_not_a_500(client, token):
    resp = client.get(f"/check?hand={token}")
    assert resp.status_code == 422
    assert errors_of(resp)


# -- bad input beside its field ----------------------------------------------------------------

def test_check_shows_each_error_beside_its_field(client):
    for step in ("check", "setup"):  # "Next: the hand" with no players says so too
        resp = client.post("/check", data={"players": "", "step": step})
        shown_beside(resp, "players", "Write the players’ names, clockwise, with commas.")
    resp = client.post("/check", data={"players": "Ann, ann", "step": "check", "kind": "dead"})
    shown_beside(resp, "players", "ann sits at the table twice (as Ann)")
    form = hand_form("pagat", "drop")
    resp = client.post("/check", data={**form, "stake": "0.001"})
    shown_beside(resp, "stake", "the stake has at most two decimal places, not 0.001")
    resp = client.post("/check", data={**form, "opt-catch_factor": "x"})
    shown_beside(resp, "opt-catch_factor", "Catch factor: enter a whole number.")
    resp = client.post("/check", data={**form, "opt-hand_size": "40"})
    shown_beside(resp, "opt-hand_size", '"Cards dealt" must be from 1 to 13, not 40')
    resp = client.post("/check", data={**form, "count-3": "60"})
    shown_beside(resp, "count-3", "Dee's count of 60 is more than five cards can hold "
                                         "(at most 50)")
    # every problem at once: a stake typed wrong beside a count typed wrong (a newcomer
    # was shown the count, then, once it was put right, the stake)
    resp = client.post("/check", data={**form, "stake": "abc", "count-3": "60"})
    shown_beside(resp, "stake", 'the stake must be an amount like "0.25", not "abc"')
    shown_beside(resp, "count-3", "Dee's count of 60 is more than five cards can hold "
                                  "(at most 50)")


def test_face_value_rank_on_check_refuses_a_49_claim(client):
    form = {**hand_form("pagat", "deal"), "opt-face_value": "rank"}
    resp = client.post("/check", data=form)
    assert resp.status_code == 422
    shown_beside(resp, "counts", "these house rules have no instant wins on the deal")


def test_change_any_rule_gives_a_deal_win_its_own_tie(client):
    """docs/rules.md §4: Chicago's Big 50s go to the player nearest the dealer's left, while its
    tied low hands stay unpaid: written ``50 = 2 left`` in the form."""
    from app.core.tableform import format_deal_wins, parse_deal_wins

    shorthand = "50 = 2 left; <=13 = 2; 49 = 1"
    wins = parse_deal_wins(shorthand)
    assert wins[0] == {"pays": 2, "tie": "nearest_left", "totals": [50]}
    form = {**hand_form("chicago", "deal"), "opt-deal_wins": shorthand,
            "count-0": "50", "count-1": "", "count-2": "50", "count-3": ""}
    resp = client.post("/check", data=form)
    assert resp.status_code == 302, errors_of(resp)
    hand = parse_hand(decode_hand(permalink_token(resp.location)))
    assert format_deal_wins(hand.rules.deal_wins) == shorthand
    assert settle(hand).winners == ("Ann",)
    page = text(client.get(resp.location))
    assert "Only the best instant win is paid; the best are equal, and Ann, nearest the " \
           "dealer&#39;s left (Dee dealt), wins." in page
    resp = client.post("/check", data={**form, "opt-deal_wins": "50 = 2 first"})
    shown_beside(resp, "opt-deal_wins",
                 'deal_wins[0].tie must be one of draw, nearest_left, not "first"')


# -- a recorded hand's page ----------------------------------------------------------------------

def test_a_recorded_hand_shows_the_other_house_rules(client):
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy"), preset="chicago")
    resp = record(client, sid, kind="drop", player="Bob", dealer="Cy",
                  **{"count-0": "5", "count-1": "9", "count-2": "9"})
    assert resp.status_code == 302
    page = text(client.get(f"/sessions/{sid}/hands/1"))
    assert "Under other house rules" in page
    section = page[page.index('class="rulings"'):]
    assert "Your table&#39;s rules: Chicago" in section
    assert section.count('<tr class="own">') == 1
    assert 'class="num diff"' in section  # Standard pays Ann more than Chicago does


def test_a_push_ups_hand_is_compared_under_the_rules_that_pay_at_a_stake_of_1(client):
    """A push-ups hand is written with a stake of 0 (push-ups take none): every other house
    rule said "the stake must be more than zero, not 0", on /check (whose link keeps the
    hand so) and on a push-ups night's hand page. Under rules that pay, it is compared at
    a stake of 1, and the row says so; a stake that is not one is still refused."""
    written = parse_hand({**hand_json("push_ups", "tonk_out"), "stake": "1"}).to_json()
    assert written["stake"] == "0"
    results = client.post("/api/v1/compare", json=written).get_json()["results"]
    assert [r.get("error") for r in results] == [None] * len(results)
    paying = [r for r in results[1:] if PRESETS[r["rules"]].rules.scoring != "push_ups"]
    assert paying and {r["note"] for r in paying} == {
        "no stake at this table (push-ups): a stake of 1"}
    refused = client.post("/api/v1/compare", json={**written, "stake": "-5"}).get_json()
    assert {r["error"] for r in refused["results"] if r["rules"] in [p["rules"] for p in paying]
            } == {"the stake must be more than zero, not -5"}
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy"), preset="push_ups")
    resp = record(client, sid, kind="tonk_out", player="Ann", dealer="Cy",
                  **{"count-1": "12", "count-2": "3"})
    assert resp.status_code == 302, errors_of(resp)
    page = text(client.get(f"/sessions/{sid}/hands/1"))
    section = page[page.index('class="rulings"'):]
    assert "Cannot be settled" not in section and "a stake of 1" in section


def test_the_same_name_twice_is_refused_as_soon_as_the_players_are_typed(open_client):
    """"Ann, ann" is one player written twice: refused at the first step, beside the
    players' field, in the core's one message (not later, under two different names)."""
    resp = open_client.post("/check", data={"step": "setup", "players": "Ann, ann, Bob",
                                            "preset": "pagat", "stake": "1"})
    shown_beside(resp, "players", "ann sits at the table twice (as Ann)")
    assert 'name="kind"' not in form_part(text(resp))  # no hand form for bad names


def test_the_ruling_link_has_a_copy_button(open_client):
    resp = open_client.post("/check", data=hand_form("pagat", "tonk_out"))
    assert resp.status_code == 302
    page = open_client.get(resp.location).get_data(as_text=True)
    assert 'data-copy="permalink"' in page and 'id="share-said"' in page


def test_the_phone_reads_the_check_form_as_the_server_does(open_client):
    """With no signal the phone reads /check's form with the core (``app.core.phone``'s
    ``check_form``, the server's own reading, :mod:`app.core.tableform`) and rules it with
    ``compare``: on every worked hand the hand it gives is the one the server's permalink
    holds, its ruling under the table's own rules is the server's, and where the server
    refuses the hand the phone's ruling refuses it with the same words."""
    from werkzeug.datastructures import MultiDict

    from app.core.phone import answer
    from app.web.checker.dispute import read_check_form

    for preset in PRESETS:
        for kind in END_KINDS:
            form = hand_form(preset, kind)
            said = answer({"op": "check_form",
                           "fields": [[k, v] for k, v in form.items()]}, {})
            assert said["players"] == ["Ann", "Bob", "Cy", "Dee"]
            assert said["problems"] == {} and said["refused"] == {}, (preset, kind)
            assert read_check_form(MultiDict(form))[2] == said["hand"]
            ruled = answer({"op": "compare", "hand": said["hand"]}, {})["results"][0]
            resp = open_client.post("/check", data=form)
            if resp.status_code == 422:  # Wikipedia has no instant wins on the deal
                assert ruled["error"] in errors_of(resp), (preset, kind)
                continue
            assert resp.status_code == 302, errors_of(resp)
            stored = parse_hand(decode_hand(permalink_token(resp.location)))
            assert parse_hand(said["hand"]).to_json() == stored.to_json()
            assert ruled["result"] == settle(stored).to_json(), (preset, kind)
            if kind == "stock_out":  # the server's page: each net as the phone shows it
                page = text(open_client.get(resp.location))
                hooks = dict(re.findall(r'data-player="([^"]+)" data-net="([^"]+)"', page))
                assert hooks == {name: str(value) for name, value in (
                    ruled["result"].get("net") or ruled["result"]["pushed"]).items()}


def test_the_phone_finds_the_check_forms_problems_where_the_server_does(open_client):
    """What is wrong with a /check form is found by the phone beside the field the server
    shows it beside: the form's own problems, rules and players the core refuses."""
    from app.core.phone import answer

    base = hand_form("pagat", "drop")
    for change, fields in [
            ({"count-1": "nine"}, {"count-1"}), ({"opt-catch": "never"}, {"opt-catch"}),
            ({"opt-deal_wins": "49 = two"}, {"opt-deal_wins"}),
            ({"opt-hand_size": "six"}, {"opt-hand_size"}), ({"kind": ""}, {"kind"}),
            ({"big_one": "x"}, {"big_one"}), ({"players": "Ann, ann, Bob, Dee"}, {"players"}),
            ({"preset": "nowhere"}, {"preset"})]:
        form = {**base, **change}
        said = answer({"op": "check_form", "fields": [[k, v] for k, v in form.items()]}, {})
        assert set(said["problems"]) | set(said["refused"]) == fields, change
        resp = open_client.post("/check", data=form)
        assert resp.status_code == 422
        for field, message in said["refused"].items():
            shown_beside(resp, field, message)
        for field in said["problems"]:
            assert f'id="err-{field}"' in text(resp), (change, errors_of(resp))
