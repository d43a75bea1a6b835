"""House-rule cards (``/rules/<preset>``): every preset's card, a session's and a league's
own rules through ``?rules=``, what differs from pagat marked, the reader's language, bad
links refused with a message (never a 500), and "Start a session with these rules"."""
from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from markupsafe import escape

from app.core import PRESETS, resolve_rules
from app.core.rule_card import dropped_pagat_rules, payment_keys, rule_card
from app.core.settle import rule_text
from app.core.sources import source_of
from app.web.shared.links import decode_data, encode_data
from tests.clients import sign_up, start
from tests.expect import matched


def test_pagat_card_marks_nothing_and_names_every_paying_rule():
    rules = PRESETS["pagat"].rules
    lines = rule_card(rules)
    assert [line.key for line in lines] == payment_keys(rules)
    assert not any(line.differs for line in lines)
    assert dropped_pagat_rules(rules) == []
    keys = {line.key for line in lines}
    assert {"deal.0", "tonk_out", "run_out", "drop_won", "stock_out",
            "catch.standard.dropper", "catch.standard.others"} == keys


def test_a_card_line_is_the_checkers_sentence_and_source():
    rules = PRESETS["chicago"].rules
    for line in rule_card(rules):
        assert str(line.text) == str(rule_text(rules, line.key))
        assert line.source == source_of(rules, line.key)


def test_changes_from_pagat_are_marked_and_dropped_rules_listed():
    rules = PRESETS["texas"].rules
    marked = {line.key for line in rule_card(rules) if line.differs}
    assert marked == {"deal.0", "deal.1", "catch.alt1.dropper", "catch.alt1.others"}
    dropped = [str(line.text) for line in dropped_pagat_rules(rules)]
    assert "instant win on the deal: 49 or 50 pays double" in dropped
    one_change = resolve_rules({"preset": "pagat", "run_out_pays": 2})
    assert [line.key for line in rule_card(one_change) if line.differs] == ["run_out"]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_presets_card_is_readable_signed_out(open_client, preset):
    resp = open_client.get(f"/rules/{preset}")
    assert resp.status_code == 200
    page = resp.get_data(as_text=True)
    assert "<svg" in page  # the QR code of the card's link
    assert f'value="http://localhost/rules/{preset}"' in page
    for line in rule_card(PRESETS[preset].rules):
        assert line.source.url in page


def test_card_in_the_readers_language(open_client):
    page = open_client.get("/rules/texas", headers={"Accept-Language": "de"}).get_data(
        as_text=True)
    assert '<html lang="de">' in page
    assert "Hausregeln" in page and "Quelle" in page
    page = open_client.get("/rules/texas", headers={"Accept-Language": "ja"}).get_data(
        as_text=True)
    assert '<html lang="ja">' in page and "ハウスルール" in page
    # where each rule stands, under the heading the reader's pagat text gives it (a
    # newcomer read English headings on both cards)
    page = open_client.get("/rules/pagat", headers={"Accept-Language": "de"}).get_data(
        as_text=True)
    assert "„Spielende und Zahlungen“, Regel 1" in page
    page = open_client.get("/rules/pagat", headers={"Accept-Language": "ja"}).get_data(
        as_text=True).replace("<wbr>", "")  # (phrased for line breaks)
    assert "「プレイの終了－支払い」、ルール1" in page


def test_own_rules_travel_in_the_link(open_client):
    changes = {"catch": "alt3", "run_out_pays": 2}
    resp = open_client.get(f"/rules/pagat?rules={encode_data(changes)}")
    assert resp.status_code == 200
    page = resp.get_data(as_text=True)
    assert "catch, alternative 3" in page
    assert page.count('class="badge">not as pagat') >= 3
    # Under the preset's summary (pagat's catch), the card says what it changes of it.
    changed = matched(r'<p class="flash info" id="card-changed">([^<]*)</p>', page).group(1)
    assert changed.startswith("Changed from Standard (pagat.com): ")
    assert "Caught drop: " in changed and "Run out pays: 2" in changed
    # … in place of the preset's summary, which says pagat's catch (no longer played)
    assert "a caught dropper pays double" not in page.split('id="setup-title"')[0]
    pagat = open_client.get("/rules/pagat").get_data(as_text=True)
    assert 'id="card-changed"' not in pagat and "a caught dropper pays double" in pagat


def test_the_push_ups_card_says_nobody_pays(open_client):
    """Under push-ups nobody pays: the card says how its rules push players up, not who
    pays (a newcomer read "tonk out pays double" as money)."""
    page = open_client.get("/rules/push_ups").get_data(as_text=True)
    assert "Who wins, and where it is written" in page and "Who pays" not in page
    said = matched(r'id="card-push-ups">([^<]*)<', page).group(1)
    assert said.startswith("Push-ups: nobody pays money.") and "a caught drop: once" in said
    assert 'id="card-push-ups"' not in open_client.get("/rules/pagat").get_data(as_text=True)
    de = open_client.get("/rules/push_ups", headers={"Accept-Language": "de"})
    assert "Hochtreiben: niemand zahlt Geld." in de.get_data(as_text=True)
    # the catch's lines say who wins, not what is paid (a caught drop pushes up once)
    catch = [line for line in re.findall(r'<li(?: class="differs")?>(.*?)</li>', page, re.S)
             if "standard catch" in line]
    assert catch and all("under push-ups nobody pays: whoever this rule pays wins the hand"
                         in line for line in catch), catch
    assert "under push-ups nobody pays" not in open_client.get("/rules/pagat").get_data(
        as_text=True)


@pytest.mark.parametrize("query", ["rules=nonsense!", "rules=" + encode_data([1, 2]),
                                   "rules=" + encode_data({"catch": "nope"}),
                                   "rules=" + encode_data({"preset": "nope"}),
                                   "rules=" + encode_data({"preset": "texas"}),
                                   "rules=" + "A" * 7000])
def test_a_bad_link_says_so(open_client, query):
    resp = open_client.get(f"/rules/pagat?{query}")
    assert resp.status_code == 400
    assert 'class="flash error"' in resp.get_data(as_text=True)


def test_an_unknown_preset_is_not_found(open_client):
    assert open_client.get("/rules/nope").status_code == 404


def test_session_page_links_its_card_and_a_card_starts_a_session(client):
    sign_up(client)
    sid = start(client, preset="chicago", **{"opt-run_out_pays": "3"})
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    link = matched(r'href="([^"]*/rules/[^"]*)" id="card-link"', page).group(1)
    parts = urlsplit(link.replace("&amp;", "&"))
    assert parts.path == "/rules/chicago"
    assert decode_data(parse_qs(parts.query)["rules"][0]) == {"run_out_pays": 3}
    card = client.get(f"{parts.path}?{parts.query}").get_data(as_text=True)
    assert "Ann" not in card  # a card holds rules, never the table's people
    start_link = matched(r'id="start-with" href="([^"]*)"', card).group(1).replace("&amp;", "&")
    form = client.get(start_link).get_data(as_text=True)
    assert re.search(r'<option value="chicago"[^>]*selected', form)
    assert 'name="opt-run_out_pays"' in form and 'value="3"' in form
    # a card's start link with a broken rule set still opens the form, with pagat's rules
    assert client.get("/sessions/new?rules=xx").status_code == 200


def test_a_leagues_page_links_its_card(client):
    sign_up(client)
    resp = client.post("/leagues/new", data={"name": "Fridays", "stake": "0.5",
                                             "currency": "EUR", "preset": "dc"})
    assert resp.status_code == 302, resp.data
    page = client.get(resp.location).get_data(as_text=True)
    link = matched(r'href="([^"]*)" id="card-link"', page).group(1)
    assert urlsplit(link).path == "/rules/dc"
    assert client.get(link).status_code == 200


def test_the_push_ups_card_says_how_a_tied_stock_out_is_settled(open_client):
    """The push-ups card hid ``stock_out_tie``, which decides who is pushed up
    (Ann 5, Bob 5, Cy 20: all paid pushes Cy 20, a draw pushes nobody)."""
    page = open_client.get("/rules/push_ups").get_data(as_text=True)
    assert "Tied stock out" in page and "tied lowest counts are all paid" in page
    draw = open_client.get("/rules/push_ups?rules=" + encode_data({"stock_out_tie": "draw"}))
    assert "tied lowest counts make a draw" in draw.get_data(as_text=True)


def test_a_card_says_how_many_jokers_when_the_deck_has_them(open_client):
    assert "Jokers in the deck" not in open_client.get("/rules/pagat").get_data(as_text=True)
    usual = open_client.get("/rules/wikipedia").get_data(as_text=True)
    row = matched(r"<dt>Jokers in the deck</dt><dd>(.*?)</dd>", usual).group(1)
    assert row.strip() == "2"
    three = open_client.get("/rules/wikipedia?rules=" + encode_data({"jokers": 3}))
    row = matched(r"<dt>Jokers in the deck</dt><dd>(.*?)</dd>",
                  three.get_data(as_text=True)).group(1)
    assert row.startswith("3") and "not as pagat" in row


@pytest.mark.parametrize("changes, key, words", [
    ({"catch": "alt2"}, "catch.alt2.dropper",
     "With two players that is one stake, so a caught drop costs no more than an ordinary "
     "loss"),
    ({"tonk_out_by_hits_pays": 1}, "tonk_out.hits",
     "one card hit onto a spread already on the table makes it a tonk out with a hit"),
])
def test_a_rule_the_texts_leave_open_says_how_it_is_read(open_client, changes, key, words):
    """Alternative 2's "everyone's stake" and the tonk out by hitting read two
    ways; the card says which reading settles and why, under the rule."""
    rules = resolve_rules({"preset": "pagat", **changes})
    line = next(line for line in rule_card(rules) if line.key == key)
    assert line.reading is not None and words in str(line.reading)
    page = open_client.get("/rules/pagat?rules=" + encode_data(changes)).get_data(
        as_text=True)
    assert "How Tonk Tally reads it:" in page
    assert str(escape(words)) in page
    assert all(line.reading is None for line in rule_card(PRESETS["pagat"].rules))
    german = open_client.get("/rules/pagat?rules=" + encode_data(changes),
                             headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "So liest Tonk Tally die Regel:" in german
