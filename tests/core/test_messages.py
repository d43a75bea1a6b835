"""The core's one catalogue of message ids: every sentence, error and summary of the core
comes from it (no English built in place), every id the core uses is in it, and a hooked-in
translator reaches explanations and errors alike."""
from __future__ import annotations

import ast
import pathlib
import re

import pytest

from app.core import Message, TonkError, parse_hand, set_translator, settle
from app.core.catalogue import CATALOGUE
from app.core.catches import CATCH_SCHEMES
from app.core.rules import OPTIONS, PRESETS
from app.core.sources import SOURCES

CORE = pathlib.Path(__file__).resolve().parents[2] / "app" / "core"
HAND = {"rules": "pagat", "stake": "0.25", "players": ["Ann", "Bob", "Cy", "Dee"],
        "dealer": "Dee", "end": {"kind": "drop", "player": "Bob"},
        "counts": {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30}}


def test_every_literal_message_id_is_in_the_catalogue():
    used = set()
    for path in CORE.glob("*.py"):
        used |= set(re.findall(r'Message\(\s*"([^"]+)"', path.read_text()))
    assert used, "the core builds messages"
    assert sorted(used - set(CATALOGUE)) == []


def test_the_registries_have_their_words():
    for preset in PRESETS.values():
        assert str(preset.title) and str(preset.summary) and str(preset.source)
    for scheme in CATCH_SCHEMES.values():
        assert str(scheme.title) and str(scheme.summary)
    for _check, help_text in OPTIONS.values():
        assert str(help_text).endswith(".")
    for source in SOURCES.values():
        assert str(source.summary).endswith(".") and source.url.startswith("https://")


DOMAIN_ERRORS = {"TonkError", "RulesError", "UnknownPresetError", "UnknownOptionError",
                 "CardError", "HandError", "TransferError", "error"}


def _raised_text(node: ast.Raise) -> bool:
    """``raise HandError("english …")`` or with an f-string: a domain error (for a person)
    whose words are not from the catalogue."""
    call = node.exc
    if not isinstance(call, ast.Call) or not call.args:
        return False
    name = call.func.id if isinstance(call.func, ast.Name) else ""
    first = call.args[0]
    return name in DOMAIN_ERRORS and (isinstance(first, ast.JoinedStr) or (
        isinstance(first, ast.Constant) and isinstance(first.value, str)))


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_core_errors_are_built_from_message_ids(path):
    tree = ast.parse(path.read_text())
    raw = [node.lineno for node in ast.walk(tree)
           if isinstance(node, ast.Raise) and _raised_text(node)]
    assert raw == [], f"{path.name}: English raised in place on lines {raw}"


def test_a_translator_reaches_explanations_and_errors():
    set_translator(lambda msg_id, template: "<" + template + ">")
    try:
        result = settle(parse_hand(HAND))
        assert result.explanation[0].startswith("<Bob dropped with 9")
        with pytest.raises(TonkError) as info:
            parse_hand({**HAND, "stake": "0"})
        assert info.value.message == "<the stake must be more than zero, not 0>"
    finally:
        set_translator(None)
    assert settle(parse_hand(HAND)).explanation[0].startswith("Bob dropped with 9")


def test_messages_are_values():
    assert Message("explain.lowest", player="Cy", count=9) == Message(
        "explain.lowest", count=9, player="Cy")
    assert str(Message("explain.lowest", player="Cy", count=9)) == \
        "Cy has the lowest count, 9."
    with pytest.raises(KeyError):
        Message("no.such.id")
