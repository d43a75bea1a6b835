"""The new-session form as the core reads it (app/core/tableform.py), with no app: every
refusal of the form at once, each by the field it is shown beside, in the core's words (the
server's page and the phone's night started with no signal both show them); a name is read
as typed, never cut."""
from __future__ import annotations

from fractions import Fraction

import pytest

from app.core.errors import TonkError
from app.core.hand import parse_players
from app.core.handform import Fields
from app.core.money import average_of_minor, parse_stake
from app.core.names import session_name
from app.core.rules import resolve_rules
from app.core.tableform import amount_text, options_of_form, session_of_form, session_refusals
from app.i18n import speaking

#: A name past the 40 characters a player's name may have.
LONG = "Bartholomew Fitzgerald-Montgomery the Third"
#: A form the core takes: Ann, Bob and Cy, Bob dealing first, 0.25 under pagat.
FORM = {"name": "Friday", "player-0": "Ann", "player-1": "Bob", "player-2": "Cy",
        "first_dealer": "1", "stake": "0.25", "currency": "USD", "preset": "pagat"}


def said(check) -> str:
    with pytest.raises(TonkError) as refused:
        check()
    return refused.value.message


def refusals(**typed: str) -> dict[str, str]:
    read = session_of_form(Fields({**FORM, **typed}.items()))
    return {field: exc.message for field, exc in session_refusals(read).items()}


def test_a_good_form_is_refused_nothing():
    assert refusals() == {}


def test_every_problem_of_the_form_at_once_by_its_field():
    """No name, a name too long, a stake that is no amount, the first dealer an empty seat:
    four refusals, each beside its field, each what the core's own check says."""
    got = refusals(name=" ", **{"player-1": LONG}, stake="lots", first_dealer="5")
    assert got == {
        "name": said(lambda: session_name(" ")),
        "player-1": said(lambda: parse_players(["Ann", LONG, "Cy"])),
        "stake": said(lambda: parse_stake("lots", resolve_rules("pagat"), "USD")),
        "first_dealer": got["first_dealer"]}
    assert "40" in got["player-1"]
    assert "seat 6" in got["first_dealer"]


def test_rules_side_bets_and_currency_are_refused_by_their_fields():
    got = refusals(**{"opt-catch": "nope", "currency": "DOUBLOONS!", "player-2": "ann"})
    assert set(got) == {"opt-catch", "currency", "player-2"}, got
    bets = refusals(**{"sb-naturals": "1", "sb-naturals-stake": "0.001"})
    assert set(bets) == {"sb-naturals-stake"}, bets
    few = refusals(**{"player-1": "", "player-2": ""}, first_dealer="0")
    assert set(few) == {"players"} and "2" in few["players"]
    none = refusals(**{"player-0": "", "player-1": "", "player-2": ""})
    assert set(none) == {"players"}  # (no seat to deal first from: only the seats are said)


def test_a_name_is_read_as_typed_not_cut():
    read = session_of_form(Fields({**FORM, "player-0": f"  {LONG}   x "}.items()))
    assert read.seats[0] == f"{LONG} x"


def test_a_small_average_loss_rounded_to_nothing_is_written_0_00():
    """The standings API wrote Bob's net of -0.05 over 14 hands as "-0.00" (the page, 0.00)."""
    assert str(average_of_minor(Fraction(-5, 14), 2)) == "0.00"
    assert [str(average_of_minor(Fraction(n, 14), 2)) for n in (-500, -7, 7, 5)] == [
        "-0.36", "0.00", "0.00", "0.00"]


@pytest.mark.parametrize(("language", "typed", "read"), [
    # a decimal comma or dot anywhere; grouped thousands with both marks anywhere
    ("en", "0,25", "0.25"), ("de", "0.25", "0.25"), ("de", "12,5", "12.5"),
    ("de", "1.000,50", "1000.50"), ("en", "1,000.50", "1000.50"), ("ja", "1.000.000", "1000000"),
    # one group of three alone: thousands by the mark the reader groups with, else decimals
    ("de", "1.000", "1000"), ("de", "1,000", "1.000"), ("de", "1,125", "1.125"),
    ("en", "1,000", "1000"), ("en", "1.000", "1.000"), ("ja", "10,000", "10000"),
    ("en", "0.125", "0.125"), ("de", "0,125", "0.125"), ("en", " 2 ", "2"), ("en", "x", "x"),
    ("ja", "２，０００", "2000"), ("ja", "０．５", "0.5"),  # a Japanese keyboard's full width
])
def test_money_is_read_as_the_readers_language_writes_it(language, typed, read):
    """A German fee of "1.000" was read as 1; then, read as thousands everywhere, an
    English "1.000" became a thousand and a German "1,125" (a slip: three decimals) 1125."""
    with speaking(language):
        assert amount_text(typed) == read


def test_a_side_bets_stake_is_read_as_a_tables_stake_is():
    """Its own reader turned every comma into a dot: a yen "1,000" pot stake was ¥1."""
    with speaking("ja"):
        assert options_of_form(Fields([("sb-naturals", "1"), ("sb-naturals-stake", "1,000")])
                               )["naturals"]["stake"] == "1000"
