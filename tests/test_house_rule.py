"""docs/development.md, "Adding a house rule", walked: a toy catch scheme registered in the
test alone (app/core/catches.py's ``register_catch``, as the section says) is a choice on
the new-session form and on ``/check``, settles and is explained there, has a rule card and
is in the OpenAPI document's enum, with nothing else written. The fixture takes it out
again afterwards."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from markupsafe import escape

from app.core import parse_hand, settle
from app.core.catalogue import CATALOGUE
from app.core.catches import CATCH_SCHEMES, CatchExample, CatchScheme, CaughtDrop, register_catch
from app.web.shared.links import encode_data
from tests.clients import errors_of, sign_up
from tests.hands import hand_form

NAME = "toy_triple"
SUMMARY = "the dropper pays each lowest triple, nothing else"
RULE = "toy catch: the dropper pays each lowest triple"


def _toy(c: CaughtDrop):
    return c.winners, [(c.dropper, winner, 3, f"catch.{NAME}.dropper") for winner in c.winners]


@pytest.fixture
def toy() -> Iterator[CatchScheme]:
    scheme = register_catch(CatchScheme(
        NAME, _toy, pays_catchers=False, source="pagat.caught",
        words={f"catch.{NAME}.title": "toy catch", f"catch.{NAME}.summary": SUMMARY,
               f"rule.catch.{NAME}.dropper": RULE},
        formula="D pays 3 to each of W; nothing else", citation="none: a test's toy",
        example=CatchExample(counts=(10, 10, 3, 20), net=(-3, 0, 3, 0))))
    yield scheme
    del CATCH_SCHEMES[NAME]
    for msg_id in scheme.words:
        del CATALOGUE[msg_id]


def test_the_toy_settles_as_its_example_says(toy):
    result = settle(parse_hand(toy.example.hand(NAME)))
    assert [str(p.rule) for p in result.payments] == [RULE]
    assert result.net is not None
    assert [int(v) for v in result.net.values()] == list(toy.example.net)


def test_the_toy_is_a_choice_on_the_new_session_form(client, toy):
    sign_up(client)
    page = client.get("/sessions/new").get_data(as_text=True)
    assert f'<option value="{NAME}">{NAME}: {escape(SUMMARY)}</option>' in page


def test_the_toy_is_a_choice_on_check_and_settles_there(client, toy):
    page = client.get("/check").get_data(as_text=True)
    assert f'<option value="{NAME}">{NAME}: {escape(SUMMARY)}</option>' in page
    form = hand_form("pagat", "drop") | {"opt-catch": NAME}
    resp = client.post("/check", data=form)
    assert resp.status_code == 302, errors_of(resp)
    body = client.get(resp.location).get_data(as_text=True)
    assert f"Catch rule (toy catch): {escape(SUMMARY)}." in body
    assert escape(RULE) in body


def test_the_toy_has_a_rule_card(client, toy):
    resp = client.get(f"/rules/pagat?rules={encode_data({'catch': NAME})}")
    assert resp.status_code == 200
    page = resp.get_data(as_text=True)
    assert escape(RULE) in page
    assert "https://www.pagat.com/rummy/tonk.html" in page


def test_the_toy_is_in_the_openapi_document(client, toy):
    doc = client.get("/api/v1/openapi.json").get_json()
    options = doc["components"]["schemas"]["Rules"]["oneOf"][1]["properties"]
    assert NAME in options["catch"]["enum"]
    assert options["deck"]["enum"] == ["standard", "jokers", "forty"]  # every choice option


def test_without_the_toy_it_is_no_choice(client):
    assert NAME not in CATCH_SCHEMES
    page = client.get("/check").get_data(as_text=True)
    assert f'<option value="{NAME}">' not in page
