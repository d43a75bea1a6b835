"""Where each rule is written: every payment of every preset and end names a source (text,
section, rule number, link), the regional rules point at their own paragraph, and a ruling
with no payment still names the rule that makes it a draw."""
from __future__ import annotations

import ast
import pathlib

import pytest

from app.core import PRESETS, parse_hand, resolve_rules, settle
from app.core.sources import ENCYCLOPEDIA_URL, PAGAT_URL, ruling_sources, source_of
from tests.hands import END_KINDS, hand_json

CORE = pathlib.Path(__file__).resolve().parents[2] / "app" / "core"


def sources(rules, end, counts, players=("Ann", "Bob", "Cy", "Dee")):
    result = settle(parse_hand({"rules": rules, "stake": "1", "players": list(players),
                                "dealer": players[-1], "end": end, "counts": counts}))
    return [str(s.where) for s in ruling_sources(result)]


@pytest.mark.parametrize("kind", END_KINDS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_payment_has_a_source(preset, kind):
    if (preset, kind) == ("wikipedia", "deal"):
        return  # no instant wins under the encyclopedia's rules
    result = settle(parse_hand(hand_json(preset, kind)))
    for payment in result.payments:
        source = source_of(result.hand.rules, payment.key)
        assert source.url in (PAGAT_URL, ENCYCLOPEDIA_URL)
        assert str(source.summary).endswith(".")


@pytest.mark.parametrize("rules, where", [
    ("pagat", "pagat.com rules, “End of the play - payments”, rule 3"),
    ({"preset": "pagat", "catch": "alt3"},
     "pagat.com rules, “Variations: five alternative ways of paying”, rule 3"),
    ("chicago", "pagat.com rules, “Variations: Chicago”, rule 6"),
    ("rushville", "pagat.com rules, “Variations: Rushville, Indiana”, rule 5"),
    ("washington", "pagat.com rules, “Variations: Washington State”, rule 4"),
    ("wikipedia", "encyclopedia article, “Play”"),
])
def test_a_caught_drop_cites_its_scheme(rules, where):
    assert sources(rules, {"kind": "drop", "player": "Bob"},
                   {"Ann": 5, "Bob": 9, "Cy": 9, "Dee": 30}) == [where]


def test_deal_wins_cite_their_own_paragraph():
    assert sources("texas", {"kind": "deal"}, {"Ann": 50}) == [
        "encyclopedia article, “Texas Tonk”"]
    assert sources("chicago", {"kind": "deal"}, {"Ann": 49}) == [
        "pagat.com rules, “Variations: Chicago”, rule 4"]
    assert sources("chicago", {"kind": "deal"}, {"Ann": 10}) == [
        "pagat.com rules, “Variations: Chicago”, rule 3"]


def test_a_ruling_without_payments_names_the_rule_that_makes_it():
    assert sources("pagat", {"kind": "deal"}, {"Ann": 49, "Bob": 50}) == [
        "pagat.com rules, “The Deal”"]
    assert sources("rushville", {"kind": "stock_out"}, {"Ann": 3, "Bob": 3, "Cy": 9,
                                                         "Dee": 9}) == [
        "pagat.com rules, “Variations: Rushville, Indiana”, rule 7"]
    assert sources({"preset": "pagat", "stock_out_pays": 0}, {"kind": "stock_out"},
                   {"Ann": 3, "Bob": 4, "Cy": 9, "Dee": 9}) == ["pagat.com rules, “Variations”"]
    assert sources("pagat", {"kind": "dead"}, {}) == []


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_the_core_imports_nothing_from_the_web_or_the_database(path):
    """A house habit: the pure core stays free of Flask and SQLAlchemy."""
    tree = ast.parse(path.read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import) for alias in node.names}
    imported |= {(node.module or "").split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.level == 0}
    assert not imported & {"flask", "flask_babel", "sqlalchemy", "werkzeug", "markupsafe",
                           "app"}


@pytest.mark.parametrize("rules, where", [
    ("pagat", "pagat.com rules, “End of the play - payments”, rule 1"),
    ({"preset": "pagat", "tonk_out_pays": 1}, "pagat.com rules, “Variations”"),
    ({"preset": "newark", "tonk_out_pays": 1}, "pagat.com rules, “Variations”"),
    ("chicago", "pagat.com rules, “Variations: Chicago”, rule 7"),
])
def test_a_single_tonk_out_cites_chicago_only_under_chicago(rules, where):
    """``tonk_out_pays: 1`` under any preset cited Chicago's rule 7; outside
    Chicago it is pagat's variation that pays a single stake for every tonk out."""
    assert sources(rules, {"kind": "tonk_out", "player": "Bob"}, {}) == [where]
    if rules != "pagat" and rules != "chicago":
        source = source_of(resolve_rules(rules), "tonk_out")
        assert source.id == "pagat.single_tonk"
        assert "even with a second spread" in str(source.summary)


def test_the_texas_catch_cites_texas_tonk_and_alternative_1_cites_pagat():
    drop = {"kind": "drop", "player": "Bob"}
    counts = {"Ann": 5, "Bob": 9, "Cy": 12, "Dee": 30}
    assert sources("texas", drop, counts) == ["encyclopedia article, “Texas Tonk”"]
    assert sources({"preset": "pagat", "catch": "alt1"}, drop, counts) == [
        "pagat.com rules, “Variations: five alternative ways of paying”, rule 1"]
