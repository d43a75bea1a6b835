"""The tournament pages: the director sets an event up, checks players in, draws, closes
rounds and reads results; errors show beside their fields and change nothing; the TV board
and each player's view need no account and follow the event (ETag, 304 while nothing
changed)."""
from __future__ import annotations

import re

from tests.clients import errors_of, shown_beside, sign_up
from tests.expect import matched

EVENT_FORM = {"name": "Malone Open", "preset": "pagat", "scoring": "points", "currency": "USD",
              "table_size": "4", "rounds": "2", "hands_per_round": "1", "entry_fee": "10",
              "prize_kind": "shares", "prizes": "0.6, 0.4", "house_share": "",
              "tie_break_1": "best_round", "tie_break_2": "", "held_on": "2026-11-24"}


def event_money(page: str) -> str:
    """What the director's page says of the event's money (fee, house share, prizes)."""
    return matched(r'<p id="event-money">([^<]*)</p>', page).group(1)


def _new_event(client, **form):
    resp = client.post("/events/new", data={**EVENT_FORM, **form})
    assert resp.status_code == 302, errors_of(resp)
    return int(resp.location.rsplit("/", 1)[1])


def test_the_director_runs_an_event_through_the_pages(client):
    sign_up(client)
    assert "Tournaments" in client.get("/").get_data(as_text=True)
    eid = _new_event(client)
    for name in ("Ann", "Bob", "Cy", "Dee", "Eve"):
        assert client.post(f"/events/{eid}/players", data={"name": name, "paid": "1"}
                           ).status_code == 302
    shown_beside(client.post(f"/events/{eid}/players", data={"name": "ann", "paid": "1"}),
                 "name", "Ann is already checked in")
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert "5 players for the next draw" in page and "Draw the tables" in page
    # what it was set up with, before any prize list: a newcomer's director could not see it
    assert event_money(page) == (
        "Entry fee $10.00 · house share 0% · prizes for places 1, 2, 3, …: 60%, 40%")
    assert client.post(f"/events/{eid}/rounds", data={"seed": "4"}).status_code == 302
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert "Round 1 is being played" in page and "seed 4" in page
    links = re.findall(r'value="(http://localhost/t/[^"]+)"', page)
    assert len(links) == 2  # 5 players at tables of 4: 3 and 2
    # Each link with Copy, Open and Share; and all of them on one sheet to print.
    assert [f'href="{link}" target="_blank"' in page for link in links] == [True, True]
    assert page.count('data-copy="link-') == page.count('data-share="link-') == 2
    # replacing a link (the old one stops working) takes a second tap: the button that
    # sends it is folded in a confirmation, the first tap only opens it
    replace = page[page.index('tables/1/link">'):]
    replace = replace[:replace.index("</form>")]
    assert '<details class="confirm"><summary class="btn small">Replace this link</summary>' \
        in replace and replace.index("</summary>") < replace.index(
            "Yes, replace the link of table 1</button>")
    sheet = client.get(f"/events/{eid}/rounds/1/links")
    assert sheet.status_code == 200
    body = sheet.get_data(as_text=True)
    assert re.findall(r'<a href="(http://localhost/t/[^"]+)">', body) == links
    assert body.count("<svg") == 2 and "Table 2" in body
    assert client.get(f"/events/{eid}/rounds/9/links").status_code == 404
    assert client.application.test_client().get(
        f"/events/{eid}/rounds/1/links").status_code == 302  # signed out: to sign in
    shown_beside(client.post(f"/events/{eid}/rounds/1/close", data={}), "close",
                 "tables 1 and 2 have not played all their hands (1 a round): let them "
                 "finish, or close the round anyway")
    phone = client.application.test_client()
    for link in links:
        path = link.replace("http://localhost", "")
        assert phone.post(path + "/hands/new", data={"kind": "dead"}).status_code == 302
    assert "done" in client.get(f"/events/{eid}").get_data(as_text=True)
    assert client.post(f"/events/{eid}/rounds/1/close", data={}).status_code == 302
    assert client.post(f"/events/{eid}/players/Eve/withdraw", data={}).status_code == 302
    # withdrawn by mistake: checked in again from the list, then withdrawn after all
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert 'aria-label="Check Eve in again"' in page
    assert client.post(f"/events/{eid}/players", data={"name": "Eve"}).status_code == 302
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert "Eve is checked in." in page and 'aria-label="Withdraw Eve"' in page
    assert client.post(f"/events/{eid}/players/Eve/withdraw", data={}).status_code == 302
    assert client.post(f"/events/{eid}/rounds", data={}).status_code == 302
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert "Round 2 is being played" in page
    # the last round drawn, nobody more is checked in: they would play no hand (a page
    # left open still sends the form: refused, said where the form was)
    assert 'id="check-in"' not in page and "players for the next draw" not in page
    assert "Every round is drawn: a player checked in now would play no hand." in page
    shown_beside(client.post(f"/events/{eid}/players", data={"name": "Zed", "paid": "1"}),
                 "name", "every round of this event is drawn (2): a player checked in now "
                 "would play no hand")
    assert "Zed" not in client.get(f"/events/{eid}").get_data(as_text=True)
    assert client.post(f"/events/{eid}/rounds/2/close", data={"force": "1"}).status_code == 302
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert "All rounds are played" in page and "closed early" in page
    # Eve, withdrawn, did not sit in round 2: not a round broken even
    eve = matched(r'<tr[^>]*>(?:(?!</tr>).)*>Eve<(?:(?!</tr>).)*</tr>', page, re.S).group(0)
    assert eve.count('<abbr title="not played">–</abbr>') == 1
    assert "pool $50.00" in page and "ties broken by: best single round" in page


def test_a_bad_event_is_refused_beside_its_field(client):
    sign_up(client)
    shown_beside(client.post("/events/new", data={**EVENT_FORM, "table_size": "6"}),
                 "table_size", "the table size is a whole number from 2 to 4, not 6")
    shown_beside(client.post("/events/new", data={**EVENT_FORM, "prizes": "0.6, 0.3"}),
                 "prizes", "the shares must add up to 1, not 0.9")
    # every setting refused at once, each beside its field (it said the first only)
    resp = client.post("/events/new", data={**EVENT_FORM, "name": "", "rounds": "0",
                                            "hands_per_round": "-3", "entry_fee": "-20"})
    assert "4 things to fix" in resp.get_data(as_text=True), errors_of(resp)
    for field in ("name", "rounds", "hands_per_round", "entry_fee"):
        assert f'id="err-{field}"' in resp.get_data(as_text=True), field
    assert "No tournaments yet" in client.get("/events").get_data(as_text=True)


def test_the_board_and_a_players_view_need_no_account_and_follow(client):
    sign_up(client)
    eid = _new_event(client, tie_break_1="")
    for name in ("Ann", "Bob", "Cy"):
        client.post(f"/events/{eid}/players", data={"name": name, "paid": "1"})
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    board = matched(r'href="http://localhost(/board/[^"]+)" id="board-link"', page).group(1)
    tv = client.application.test_client()
    shown = tv.get(board)
    assert shown.status_code == 200 and 'data-poll="' in shown.get_data(as_text=True)
    assert f'data-stream="{board}/stream"' in shown.get_data(as_text=True)
    assert '<table class="standings places"' in shown.get_data(as_text=True)  # markup, not text
    state = tv.get(board + "/state")
    tag = state.headers["ETag"]
    assert tv.get(board + "/state", headers={"If-None-Match": tag}).status_code == 304
    client.post(f"/events/{eid}/rounds", data={"seed": "1"})
    moved = tv.get(board + "/state", headers={"If-None-Match": tag})
    assert moved.status_code == 200 and moved.headers["ETag"] != tag
    live = tv.get(board + "/live").get_data(as_text=True)
    assert "Table 1" in live and "Round 1 of 2" in live
    mine = tv.get(board + "/players/Ann").get_data(as_text=True)
    assert "Round 1, table 1" in mine and "playing now" in mine
    assert tv.get(board + "/players/Zed").status_code == 404
    assert tv.get("/board/nothing").status_code == 404
    assert tv.get(f"/events/{eid}").status_code == 302  # the director's page needs the account


def test_amounts_with_a_decimal_comma_are_read_as_the_german_pages_write_them(client):
    """A newcomer's German director typed "20,50" and "0,1" (the pages show "240,00 $") and
    shares "0,5; 0,3; 0,2": all were refused, the shares as a "0" never typed. Read as the
    stakes are (``amount_text``): one or two digits after the comma; shares with decimal
    commas are separated by semicolons."""
    sign_up(client)
    eid = _new_event(client, entry_fee="20,50", house_share="0,1", prizes="0,5; 0,3; 0,2")
    assert event_money(client.get(f"/events/{eid}").get_data(as_text=True)) == (
        "Entry fee $20.50 · house share 10% · prizes for places 1, 2, 3, …: 50%, 30%, 20%")
    fixed = _new_event(client, prize_kind="fixed", prizes="100; 60,5")
    assert "prizes for places 1, 2, 3, …: $100.00, $60.50" in client.get(
        f"/events/{fixed}").get_data(as_text=True)
    for name in ("Ann", "Bob", "Cy"):
        client.post(f"/events/{eid}/players", data={"name": name, "paid": "1"})
    assert client.post(f"/events/{eid}/rounds", data={"seed": "1"}).status_code == 302
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert "Fees paid $61.50, house $6.15: pool $55.35" in page
    # nothing played yet: the three tie for places 1 to 3, all three shares of the pool
    assert '<span class="amt">$18.45</span> each' in page


def test_thousands_grouped_in_threes_are_read_as_thousands(client):
    """A German director typed the entry fee "1.000" (a thousand, as the German pages write
    it): it was read as 1, saved without a word, and every paid player counted as paying
    1 €. Thousands grouped in threes read as thousands as the reader's language groups
    them (a German "1.000", an English "1,000"); fixed prizes of "10,000, 5,000" are two
    prizes, not ¥10, ¥0, ¥5 and ¥0; shares ("0.125") and cents ("0,25") as before."""
    sign_up(client)
    client.post("/language", data={"code": "de", "next": "/"})
    eid = _new_event(client, entry_fee="1.000", prize_kind="fixed", prizes="1.000,50; 500")
    client.post("/language", data={"code": "en", "next": "/"})
    assert event_money(client.get(f"/events/{eid}").get_data(as_text=True)) == (
        "Entry fee $1,000.00 · house share 0% · prizes for places 1, 2, 3, …: $1,000.50, "
        "$500.00")
    eid = _new_event(client, entry_fee="10", prize_kind="fixed", prizes="10,000, 5,000")
    assert "prizes for places 1, 2, 3, …: $10,000.00, $5,000.00" in event_money(
        client.get(f"/events/{eid}").get_data(as_text=True))
    eid = _new_event(client, entry_fee="1,000.50", house_share="0.125",
                     prizes="0.125; 0.875")
    assert event_money(client.get(f"/events/{eid}").get_data(as_text=True)) == (
        "Entry fee $1,000.50 · house share 12.5% · prizes for places 1, 2, 3, …: 12.5%, "
        "87.5%")


def test_check_in_starts_with_the_fee_not_paid(client):
    """The "Fee paid" box started ticked, so a player checked in without looking counted
    as paid and the pool held a fee nobody handed over. It starts unticked; a check-in sent
    without the box is not paid and the pool leaves it out."""
    sign_up(client)
    eid = _new_event(client)
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    box = matched(r'<input type="checkbox" name="paid"[^>]*>', page).group(0)
    assert 'id="paid"' in box and "checked" not in box
    assert client.post(f"/events/{eid}/players", data={"name": "Ann", "paid": "1"}
                       ).status_code == 302
    assert client.post(f"/events/{eid}/players", data={"name": "Bob"}).status_code == 302
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    players = matched(r'<ul class="players" id="players">(.*?)</ul>', page, re.S).group(1)
    ann, bob = players.split("<li")[1:3]
    assert "Ann" in ann and ">paid<" in ann
    assert "Bob" in bob and ">not paid<" in bob
    # Bob has not paid: the draw form says so and asks; drawn without a choice, it is
    # refused beside the choice, naming Bob, and nothing is drawn.
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert matched(r'id="unpaid-names">([^<]*)<', page).group(1) == "Bob"
    refused = client.post(f"/events/{eid}/rounds", data={"seed": "1"})
    assert refused.status_code == 422
    said = matched(r'<p class="err" id="err-unpaid">([^<]*)</p>', refused.get_data(as_text=True))
    assert "not marked paid for Bob" in said.group(1)
    assert "Round 1 is being played" not in refused.get_data(as_text=True)
    assert client.post(f"/events/{eid}/rounds", data={"seed": "1", "unpaid": "draw"}
                       ).status_code == 302
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert "Fees paid $10.00, house $0.00: pool $10.00" in page
    # Bob stands in the prizes, his fee not paid: the director's prize list says so (the
    # board, public, does not)
    note = matched(r'<p class="flash info" id="prizes-unpaid">([^<]*)</p>', page).group(1)
    assert note == "In the prizes with the entry fee not marked paid: Bob."
    board = matched(r'href="(http://localhost/board/[^"]+)"', page).group(1)
    assert "prizes-unpaid" not in client.get(board).get_data(as_text=True)
    # Shown again after a refusal, the box keeps what was ticked.
    again = client.post(f"/events/{eid}/players", data={"name": "bob", "paid": "1"})
    assert again.status_code == 422
    ticked = matched(r'<input type="checkbox" name="paid"[^>]*>', again.get_data(as_text=True))
    assert "checked" in ticked.group(0)


def test_the_director_puts_a_setting_typed_wrong_right(client):
    """A director who typed the entry fee wrong (200 for 20) had no way to put it right but
    a new event with everyone checked in again. The settings page shows the event's settings
    as set up; until the first draw every one may change, players marked paid are paid at
    the new fee; after it, what the tables play under is greyed out and a page left open
    that sends it anyway is refused beside the field; rounds may grow, not below those
    drawn."""
    sign_up(client)
    eid = _new_event(client, entry_fee="200", house_share="0,1")
    for name in ("Ann", "Bob", "Cy"):
        client.post(f"/events/{eid}/players", data={"name": name, "paid": "1"})
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert f'href="/events/{eid}/settings" id="settings-link"' in page
    form = client.get(f"/events/{eid}/settings").get_data(as_text=True)
    shown = dict(re.findall(r'<input type="[a-z]+" name="([a-z_]+)" id="[a-z_]+" '
                            r'value="([^"]*)"', form))
    assert shown == {"name": "Malone Open", "held_on": "2026-11-24", "stake": "1.00",
                     "table_size": "4", "rounds": "2", "hands_per_round": "1",
                     "currency": "USD", "entry_fee": "200.00", "prizes": "0.6, 0.4",
                     "house_share": "0.1"}
    assert "disabled" not in form and 'id="save-event"' in form
    sent = {**EVENT_FORM, "entry_fee": "20", "house_share": "0.1", "rounds": "3",
            "table_size": "3"}
    shown_beside(client.post(f"/events/{eid}/settings", data={**sent, "prizes": "0.6, 0.3"}),
                 "prizes", "the shares must add up to 1, not 0.9")
    assert "Entry fee $200.00" in client.get(f"/events/{eid}").get_data(as_text=True)
    saved = client.post(f"/events/{eid}/settings", data=sent)
    assert saved.status_code == 302 and saved.location == f"/events/{eid}"
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert "The settings are saved." in page and "tables of up to 3" in page
    assert event_money(page) == (
        "Entry fee $20.00 · house share 10% · prizes for places 1, 2, 3, …: 60%, 40%")
    assert client.post(f"/events/{eid}/rounds", data={"seed": "1"}).status_code == 302
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert "Fees paid $60.00, house $6.00: pool $54.00" in page  # three paid at 20, not 200
    form = client.get(f"/events/{eid}/settings").get_data(as_text=True)
    assert 'id="locked-hint"' in form
    for field in ("preset", "scoring", "stake", "table_size", "hands_per_round", "currency"):
        assert re.search(rf'id="{field}"[^>]*disabled', form), field
    assert not re.search(r'id="(entry_fee|rounds|prizes|name)"[^>]*disabled', form)
    # the disabled fields are not sent: the rest changes, the tables' settings stay
    locked = ("preset", "scoring", "stake", "table_size", "hands_per_round", "currency")
    after = {k: v for k, v in sent.items() if k not in locked}
    assert client.post(f"/events/{eid}/settings", data={**after, "name": "Malone Open 2026",
                                                         "prizes": "1"}).status_code == 302
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert "<h1>Malone Open 2026</h1>" in page and "tables of up to 3" in page
    shown_beside(client.post(f"/events/{eid}/settings", data={**after, "rounds": "0"}),
                 "rounds", "the rounds are a whole number from 1 to 20, not 0")
    assert "round 1 of 3" in client.get(f"/events/{eid}").get_data(as_text=True)


def test_a_second_tab_of_the_settings_does_not_save_over_the_first_unseen(client):
    """A director with the settings open in two tabs puts the fee right in one, then the
    name in the other, whose form still holds the wrong fee: shown (409, nothing saved),
    not saved over the first without a word."""
    sign_up(client)
    eid = _new_event(client, entry_fee="200")
    seen = [matched(r'name="seen" value="([0-9a-f]+)"',
                    client.get(f"/events/{eid}/settings").get_data(as_text=True)).group(1)
            for _tab in range(2)]
    sent = {**EVENT_FORM, "entry_fee": "200"}
    assert client.post(f"/events/{eid}/settings",
                       data={**sent, "entry_fee": "20", "seen": seen[0]}).status_code == 302
    resp = client.post(f"/events/{eid}/settings",
                       data={**sent, "name": "Malone Open 2026", "seen": seen[1]})
    page = resp.get_data(as_text=True)
    assert resp.status_code == 409 and "changed meanwhile" in page
    assert 'value="Malone Open 2026"' in page
    assert event_money(client.get(f"/events/{eid}").get_data(as_text=True)).startswith(
        "Entry fee $20.00")


def test_an_event_set_up_by_mistake_is_deleted_from_its_settings(client):
    """Until the first draw the settings page offers to delete the event; after it, not
    (and a page left open that sends it anyway is told why)."""
    sign_up(client)
    eid = _new_event(client, name="Malone Open by mistake")
    form = client.get(f"/events/{eid}/settings").get_data(as_text=True)
    assert f'action="/events/{eid}/delete"' in form
    # one tap opens the question, a second deletes (not a single tap, as at first)
    assert re.search(r'<details class="confirm">\s*<summary class="btn">Delete this tournament'
                     r'</summary>\s*<form method="post" action="/events/\d+/delete">', form)
    gone = client.post(f"/events/{eid}/delete")
    assert gone.status_code == 302 and gone.location == "/events"
    page = client.get("/events").get_data(as_text=True)
    assert "Malone Open by mistake is deleted." in page
    assert client.get(f"/events/{eid}").status_code == 404
    eid = _new_event(client)
    for name in ("Ann", "Bob"):
        client.post(f"/events/{eid}/players", data={"name": name, "paid": "1"})
    assert client.post(f"/events/{eid}/rounds", data={"seed": "1"}).status_code == 302
    assert f'action="/events/{eid}/delete"' not in client.get(
        f"/events/{eid}/settings").get_data(as_text=True)
    kept = client.post(f"/events/{eid}/delete", follow_redirects=True).get_data(as_text=True)
    assert "the first round of this event is drawn" in kept and "<h1>Malone Open</h1>" in kept


def test_a_finished_events_settings_keep_its_results(client):
    """After the last round the director's page says the results are final, yet the
    settings page still changed the fee, the prizes and the house share: now only the name
    and the date stay open (what a page left open sends of the rest is not read)."""
    sign_up(client)
    eid = _new_event(client, rounds="1")
    for name in ("Ann", "Bob"):
        client.post(f"/events/{eid}/players", data={"name": name, "paid": "1"})
    assert client.post(f"/events/{eid}/rounds", data={"seed": "1"}).status_code == 302
    assert client.post(f"/events/{eid}/rounds/1/close", data={"force": "1"}).status_code == 302
    form = client.get(f"/events/{eid}/settings").get_data(as_text=True)
    assert "All rounds are played: the results are final." in form
    for field in ("entry_fee", "prizes", "house_share", "rounds", "prize_kind", "tie_break_1"):
        assert re.search(rf'id="{field}"[^>]*disabled', form), field
    assert not re.search(r'id="(name|held_on)"[^>]*disabled', form)
    assert "Mark not paid" not in client.get(f"/events/{eid}").get_data(as_text=True)
    saved = client.post(f"/events/{eid}/settings", data={"name": "Malone Final",
                                                         "held_on": "2026-11-25"})
    assert saved.status_code == 302
    client.post(f"/events/{eid}/settings", data={**EVENT_FORM, "rounds": "1", "entry_fee": "1"})
    page = client.get(f"/events/{eid}").get_data(as_text=True)
    assert "Entry fee $10.00" in page and "<h1>Malone Open</h1>" in page


def test_a_tournaments_tables_stay_off_the_directors_home(client):
    """Two events put fifteen table sessions among a director's own nights on the home
    page: the tables are found on the event's page; the director's own night stays."""
    sign_up(client)
    client.post("/sessions/new", data={"name": "Friday at Dee's", "player-0": "Ann",
                                       "player-1": "Bob", "preset": "pagat", "stake": "1"})
    eid = _new_event(client)
    for name in ("Ann", "Bob", "Cy", "Dee", "Eve"):
        client.post(f"/events/{eid}/players", data={"name": name, "paid": "1"})
    assert client.post(f"/events/{eid}/rounds", data={"seed": "1"}).status_code == 302
    home = client.get("/").get_data(as_text=True)
    assert "Friday at Dee&#39;s" in home and "Malone Open" not in home
    assert client.get(f"/events/{eid}").get_data(as_text=True).count('class="table-card') >= 2


def test_the_german_settings_show_amounts_as_german_pages_type_them_and_keep_them(client):
    """The German settings page held "20.00", "0.1" and "0.5, 0.3, 0.2" beside a hint
    saying "0,5; 0,3; 0,2": the amounts are shown as the German pages write them, and saved
    unchanged they stay what they were."""
    sign_up(client)
    eid = _new_event(client, entry_fee="20.5", house_share="0.1", prizes="0.6, 0.4")
    client.post("/language", data={"code": "de", "next": "/"})
    assert 'value="0,5; 0,3; 0,2"' in client.get("/events/new").get_data(as_text=True)
    form = client.get(f"/events/{eid}/settings").get_data(as_text=True)
    shown = dict(re.findall(r'<input type="[a-z]+" name="([a-z_]+)" id="[a-z_]+" '
                            r'value="([^"]*)"', form))
    assert (shown["entry_fee"], shown["house_share"], shown["prizes"], shown["stake"]) == (
        "20,50", "0,1", "0,6; 0,4", "1,00")
    seen = matched(r'name="seen" value="([0-9a-f]+)"', form).group(1)
    sent = {**EVENT_FORM, **shown, "seen": seen}
    assert client.post(f"/events/{eid}/settings", data=sent).status_code == 302
    client.post("/language", data={"code": "en", "next": "/"})
    assert event_money(client.get(f"/events/{eid}").get_data(as_text=True)) == (
        "Entry fee $20.50 · house share 10% · prizes for places 1, 2, 3, …: 60%, 40%")
