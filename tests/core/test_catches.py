"""The catch schemes' declarations (app/core/catches.py) hold what they say: each worked
example settles as declared, each payment is made by a rule the scheme has words for, and
each names a source the app knows and a summary the forms can show."""
from __future__ import annotations

import itertools
from decimal import Decimal

import pytest

from app.core import PRESETS, parse_hand, resolve_rules, settle
from app.core.catalogue import CATALOGUE
from app.core.catches import CATCH_SCHEMES, EXAMPLE_PLAYERS
from app.core.sources import SOURCES


@pytest.mark.parametrize("name", list(CATCH_SCHEMES))
def test_the_worked_example_settles_as_declared(name):
    example = CATCH_SCHEMES[name].example
    result = settle(parse_hand(example.hand(name)))
    assert result.outcome == "caught"
    assert result.net == {p: Decimal(n) for p, n in zip(EXAMPLE_PLAYERS, example.net,
                                                          strict=True)}


@pytest.mark.parametrize("name", list(CATCH_SCHEMES))
def test_every_payment_is_by_a_rule_the_scheme_words(name):
    scheme = CATCH_SCHEMES[name]
    assert scheme.rule_keys, "a scheme pays by at least one rule"
    made = set()
    for counts in itertools.product((3, 10, 20), repeat=3):
        hand = scheme.example.hand(name)
        hand["counts"] = dict(zip(EXAMPLE_PLAYERS, (10, *counts), strict=True))
        made |= {p.key for p in settle(parse_hand(hand)).payments if p.key.startswith("catch.")}
    assert made == set(scheme.rule_keys)
    for key in scheme.rule_keys:
        assert f"rule.{key}" in CATALOGUE


@pytest.mark.parametrize("name", list(CATCH_SCHEMES))
def test_each_scheme_names_a_known_source_and_its_words(name):
    scheme = CATCH_SCHEMES[name]
    for factor in (2, 4):
        assert scheme.source_id(resolve_rules({"catch": name, "catch_factor": factor})) \
            in SOURCES
    assert {f"catch.{name}.title", f"catch.{name}.summary"} <= set(scheme.words)
    assert all(msg_id in CATALOGUE for msg_id in scheme.words)
    if scheme.pays_option is not None:
        assert scheme.pays_option in resolve_rules().options()


def test_a_presets_own_sources_are_known():
    for preset in PRESETS.values():
        assert set(preset.sources.values()) <= set(SOURCES), preset.name
