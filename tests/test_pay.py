"""Pay links: handles checked and kept per player (a league member's for the
league's later sessions), ``PUT …/players/{name}/pay``, each open transfer's ``pay`` in the
ledger with the amount filled in, a GiroCode's exact EPC payload, the handles form with its
errors beside the fields, and handles never on /check or a rule card."""
from __future__ import annotations

from decimal import Decimal

import pytest
import segno

from app.services.pay import Handles, PayError, epc_payload, epc_qr, read_handles
from tests.apps import migrated_to
from tests.clients import Api, api_error, sign_up, start

IBAN = "DE89 3704 0044 0532 0130 00"
#: Ann +0.50, Bob −0.25, Cy −1.25, Dee +1.00 (tests/test_settle_up.py's night).
NIGHT = [
    {"end": {"kind": "tonk_out", "player": "Ann"}},
    {"end": {"kind": "drop", "player": "Ann"}, "counts": {"Ann": 5, "Bob": 3, "Cy": 20, "Dee": 20}},
    {"end": {"kind": "drop", "player": "Bob"}, "counts": {"Ann": 20, "Bob": 5, "Cy": 20, "Dee": 3}},
    {"end": {"kind": "run_out", "player": "Dee"}},
]


def night(api: Api, **extra) -> int:
    sid = api.start(**extra)
    for hand in NIGHT:
        api.ok("POST", f"/sessions/{sid}/hands", hand, 201)
    return sid


@pytest.mark.parametrize("data, kept", [
    ({"paypal": "https://www.paypal.me/AnnPays"}, {"paypal": "AnnPays"}),
    ({"venmo": "@ann-pays"}, {"venmo": "ann-pays"}),
    ({"cashapp": "$annpays"}, {"cashapp": "annpays"}),
    ({"cashapp": "https://cash.app/$annpays"}, {"cashapp": "annpays"}),
    ({"revolut": "revolut.me/annpays"}, {"revolut": "annpays"}),
    ({"iban": IBAN.lower(), "bic": "cobadeffxxx"},
     {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX"}),
    ({"note": "  cash   is fine "}, {"note": "cash is fine"}),
    ({"paypal": "", "venmo": None}, {}),
])
def test_handles_are_kept_as_their_service_writes_them(data, kept):
    assert read_handles(data).to_json() == kept


@pytest.mark.parametrize("data, field", [
    ({"iban": "DE89 3704 0044 0532 0130 01"}, "iban"),  # checksum
    ({"iban": "DE89 3704 0044 0532 0130"}, "iban"),  # length
    ({"iban": "hello"}, "iban"),
    ({"iban": IBAN, "bic": "NOTABIC"}, "bic"),
    ({"bic": "COBADEFFXXX"}, "bic"),
    ({"paypal": "ann pays!"}, "paypal"),
    ({"venmo": "ann"}, "venmo"),
    ({"cashapp": "$123"}, "cashapp"),
    ({"revolut": "a"}, "revolut"),
    ({"note": "x" * 201}, "note"),
    ({"paypal": 7}, "paypal"),
    ({"bitcoin": "x"}, "bitcoin"),
])
def test_a_bad_handle_is_refused_naming_its_field(data, field):
    with pytest.raises(PayError) as caught:
        read_handles(data)
    assert caught.value.field == field


def test_the_epc_payload_is_what_the_girocode_holds():
    handles = Handles(iban="DE89370400440532013000", bic="COBADEFFXXX")
    payload = epc_payload(handles, "Ann", Decimal("2.50"), "Tonk, Friday at Dee's")
    assert payload == ("BCD\n002\n1\nSCT\nCOBADEFFXXX\nAnn\nDE89370400440532013000\n"
                       "EUR2.5\n\n\nTonk, Friday at Dee's")
    made = epc_qr(handles, "Ann", Decimal("2.50"), "Tonk, Friday at Dee's")
    again = segno.make(payload, error="m", encoding="utf-8", micro=False)
    assert made.matrix == again.matrix  # segno's EPC helper writes the same text


def test_put_pay_and_the_ledgers_open_transfers(api):
    sid = night(api, currency="EUR", name="Friday at Dee's")
    kept = api.ok("PUT", f"/sessions/{sid}/players/Ann/pay",
                  {"paypal": "annpays", "iban": IBAN, "note": "cash is fine"})
    assert kept == {"paypal": "annpays", "iban": "DE89370400440532013000",
                    "note": "cash is fine"}
    ledger = api.ok("GET", f"/sessions/{sid}/ledger")
    to_ann = [t for t in ledger["open"] if t["to"] == "Ann"]
    assert to_ann and all(t["pay"] for t in to_ann)
    bob = next(t for t in to_ann if t["from"] == "Bob")
    assert bob["pay"] == [
        {"service": "epc", "payload": "BCD\n002\n1\nSCT\n\nAnn\nDE89370400440532013000\n"
                                      "EUR0.25\n\n\nTonk, Friday at Dee's"},
        {"service": "paypal", "url": "https://paypal.me/annpays/0.25EUR"},
        {"service": "note", "text": "cash is fine"}]
    assert all(t["pay"] == [] for t in ledger["open"] if t["to"] != "Ann")
    # a PUT keeps exactly what it says: PayPal alone now
    api.ok("PUT", f"/sessions/{sid}/players/Ann/pay", {"paypal": "annpays"})
    bob = next(t for t in api.ok("GET", f"/sessions/{sid}/ledger")["open"]
               if t["to"] == "Ann" and t["from"] == "Bob")
    assert bob["pay"] == [{"service": "paypal", "url": "https://paypal.me/annpays/0.25EUR"}]


def test_usd_links_fill_in_what_each_service_takes(api):
    sid = night(api, name="Friday at Dee's")
    api.ok("PUT", f"/sessions/{sid}/players/Dee/pay",
           {"venmo": "dee-pays", "cashapp": "$deepays", "revolut": "deepays", "iban": IBAN})
    cy = next(t for t in api.ok("GET", f"/sessions/{sid}/ledger")["open"] if t["to"] == "Dee")
    assert cy["pay"] == [
        {"service": "venmo", "url": "https://venmo.com/dee-pays?txn=pay&amount=1.00&note="
                                    "Tonk%2C%20Friday%20at%20Dee%27s"},
        {"service": "cashapp", "url": "https://cash.app/$deepays/1.00"},
        {"service": "revolut", "url": "https://revolut.me/deepays"},
        {"service": "iban", "text": "DE89 3704 0044 0532 0130 00"}]  # no GiroCode in dollars;
    # (the IBAN to read out in groups of four, as banks print it)


def test_a_bad_iban_is_422_naming_iban_and_changes_nothing(api):
    sid = night(api)
    api.ok("PUT", f"/sessions/{sid}/players/Ann/pay", {"paypal": "annpays"})
    api_error(api("PUT", f"/sessions/{sid}/players/Ann/pay",
                  {"iban": "DE89 3704 0044 0532 0130 01"}), 422, "iban", "ISO 13616")
    api_error(api("PUT", f"/sessions/{sid}/players/Zed/pay", {"paypal": "x"}), 422, "name",
              "Zed")
    api_error(api("PUT", f"/sessions/{sid}/players/Ann/pay", "[1]"), 400, "body", "object")
    assert api.ok("PUT", f"/sessions/{sid}/players/Ann/pay", {"paypal": "annpays"}) == {
        "paypal": "annpays"}


def test_another_accounts_session_is_not_found(api, other):
    sid = night(api)
    assert other("PUT", f"/sessions/{sid}/players/Ann/pay", {"paypal": "x"}).status_code == 404


def test_a_league_members_handles_serve_the_leagues_later_sessions(api):
    league = api.ok("POST", "/leagues", {"name": "Fridays", "rules": "pagat", "stake": "0.25",
                                         "currency": "EUR"}, 201)["id"]
    first = night(api, league=league, currency="EUR")
    api.ok("PUT", f"/sessions/{first}/players/Ann/pay", {"paypal": "annpays"})
    later = night(api, league=league, currency="EUR")
    ledger = api.ok("GET", f"/sessions/{later}/ledger")
    assert {"service": "paypal", "url": "https://paypal.me/annpays/0.25EUR"} in next(
        t for t in ledger["open"] if t["to"] == "Ann")["pay"]


def test_the_settle_page_shows_links_and_the_form_shows_errors_beside_fields(client):
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy"))
    client.post(f"/sessions/{sid}/hands/new", data={"kind": "tonk_out", "player": "Ann"})
    form = client.get(f"/sessions/{sid}/players/Ann/pay")
    assert form.status_code == 200
    bad = client.post(f"/sessions/{sid}/players/Ann/pay",
                      data={"paypal": "annpays", "iban": "DE00 1234"})
    assert bad.status_code == 422
    page = bad.get_data(as_text=True)
    assert 'id="err-iban"' in page and 'value="annpays"' in page
    ok = client.post(f"/sessions/{sid}/players/Ann/pay", data={"paypal": "annpays"})
    assert ok.status_code == 302
    settle = client.get(f"/sessions/{sid}/settle").get_data(as_text=True)
    assert 'href="https://paypal.me/annpays/0.50USD"' in settle
    assert "<svg" in settle
    assert client.get(f"/sessions/{sid}/players/Zed/pay").status_code == 404
    # never on a rule card or the checker
    card = client.get("/rules/pagat").get_data(as_text=True)
    assert "annpays" not in card and "annpays" not in client.get("/check").get_data(
        as_text=True)


def test_tonk_check_names_a_stored_handle_that_is_not_good(api, db_app):
    from app.db.models import Player
    from app.extensions import db
    from app.services.upkeep.integrity import problems

    sid = night(api)
    api.ok("PUT", f"/sessions/{sid}/players/Ann/pay", {"iban": IBAN})
    with db_app.app_context():
        assert problems() == []
        ann = db.session.scalar(db.select(Player).where(Player.name == "Ann"))
        good = ann.pay_json
        ann.pay_json = '{"iban": "DE89370400440532013001"}'
        db.session.commit()
        found = problems()
        assert len(found) == 1 and "Ann" in found[0] and "iban" in found[0].lower()
        ann.pay_json = good
        db.session.commit()


def test_the_share_link_shows_the_pay_links_and_a_new_handle_at_once(client):
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy"), currency="EUR")
    client.post(f"/sessions/{sid}/hands/new", data={"kind": "tonk_out", "player": "Ann"})
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    share = page.split('id="share-url" class="share" readonly value="')[1].split('"')[0]
    assert "paypal.me" not in client.get(share).get_data(as_text=True)
    client.post(f"/sessions/{sid}/players/Ann/pay", data={"paypal": "annpays", "iban": IBAN})
    shared = client.get(share).get_data(as_text=True)  # a kept page is made afresh
    assert 'href="https://paypal.me/annpays/0.50EUR"' in shared
    assert "data-epc=" in shared


def test_going_back_before_pay_handles_refuses_while_one_is_kept(db_app, capfd):
    """0010: a downgrade would forget the handles, so it refuses while any is kept."""
    from flask_migrate import downgrade, upgrade
    from sqlalchemy import text

    from app.extensions import db

    with db_app.app_context():
        migrated_to()
        with db.engine.begin() as conn:
            conn.execute(text("INSERT INTO users (id, email, name, password_hash, created_at) "
                              "VALUES (1, 'a@b.c', 'A', '-', '2026-01-01')"))
            conn.execute(text("INSERT INTO players (id, owner_id, name, name_key, created_at, "
                              "pay_json) VALUES (1, 1, 'Ann', 'ann', '2026-01-01', "
                              "'{\"paypal\": \"annpays\"}')"))
        with pytest.raises(SystemExit):
            downgrade(revision="0009")
        assert "payment handles for 1 player(s)" in capfd.readouterr().err
        with db.engine.begin() as conn:
            conn.execute(text("UPDATE players SET pay_json = NULL"))
        downgrade(revision="0009")
        upgrade()
        with db.engine.begin() as conn:
            conn.execute(text("DELETE FROM players"))
            conn.execute(text("DELETE FROM users"))
