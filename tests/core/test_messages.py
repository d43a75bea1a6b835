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
from app.core.messages import in_english
from app.core.rules import OPTIONS, PRESETS
from app.core.settle import rule_text
from app.core.sources import SOURCES

APP = pathlib.Path(__file__).resolve().parents[2] / "app"
CORE = APP / "core"
#: Where words for a person are built from message ids: the core, the database layer and
#: every service (the night's money, leagues, accounts, events, payments, import and export,
#: backup and restore).
SPEAKING = sorted([*CORE.glob("*.py"), *(APP / "db").glob("*.py"),
                   *(APP / "services").rglob("*.py")])
HAND = {"rules": "pagat", "stake": "0.25", "players": ["Ann", "Bob", "Cy", "Dee"],
        "dealer": "Dee", "end": {"kind": "drop", "player": "Bob"},
        "counts": {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30}}


def test_every_literal_message_id_is_in_the_catalogue():
    used = set()
    for path in APP.rglob("*.py"):
        used |= set(re.findall(r'Message\(\s*"([^"]+)"', path.read_text()))
    assert used, "the core builds messages"
    assert sorted(used - set(CATALOGUE)) == []


def test_the_registries_have_their_words():
    for preset in PRESETS.values():
        assert str(preset.title) and str(preset.summary) and str(preset.source)
    for scheme in CATCH_SCHEMES.values():
        assert str(scheme.title) and str(scheme.summary)
    for option in OPTIONS.values():
        assert str(option.meaning).endswith(".") and str(option.label)
    for source in SOURCES.values():
        assert str(source.summary).endswith(".") and source.url.startswith("https://")


DOMAIN_ERRORS = {"TonkError", "RulesError", "UnknownPresetError", "UnknownOptionError",
                 "CardError", "HandError", "TransferError", "error", "DrawError",
                 "StandingsError", "PrizeError", "ExchangeError", "ReadError", "BackupError",
                 "NotFoundError", "_Bad", "_Unfit", "LedgerError", "SessionClosedError",
                 "VersionConflictError", "NotEmptyError", "EventError", "EventConflictError",
                 "AccountError", "LeagueError", "LeagueNotFoundError", "PayError",
                 "EventNotFoundError", "KeyReusedError", "InProgressError", "VersionError"}
#: What notes a problem for a person without raising it: an import's report, a restore's
#: first refusal.
PROBLEM_NOTES = {"problem", "refuse"}


def _english(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str))


def _said_in_place(call: ast.Call) -> bool:
    """``HandError("english …")`` (raised or not), ``importer.problem(f"…")``, what a text
    is called in ``clean_text(value, error, field, "the reason", …)``: words for a person
    that are not from the catalogue."""
    func = call.func
    if isinstance(func, ast.Name) and func.id == "clean_text":
        return len(call.args) > 3 and _english(call.args[3])
    if not call.args or not (isinstance(func, ast.Name) and func.id in DOMAIN_ERRORS or
                             isinstance(func, ast.Attribute) and func.attr in PROBLEM_NOTES):
        return False
    return _english(call.args[0])


@pytest.mark.parametrize("path", SPEAKING, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_errors_are_built_from_message_ids(path):
    tree = ast.parse(path.read_text())
    raw = [node.lineno for node in ast.walk(tree)
           if isinstance(node, ast.Call) and _said_in_place(node)]
    assert raw == [], f"{path.name}: English said in place on lines {raw}"


def test_the_check_finds_english_said_in_place():
    said = [node for node in ast.walk(ast.parse(
        'raise ExchangeError(f"season {i} must be a JSON object")\n'
        'self.problem("the file has no format")\n'
        'raise BackupError(Message("restore.cut"))\n'
        'raise RuntimeError(f"a crash, for a developer {x}")\n'
        'clean_text(label, AccountError, "label", "the token\'s name", 80)\n'
        'clean_text(label, AccountError, "label", Message("token.what_name"), 80)\n'))
        if isinstance(node, ast.Call) and _said_in_place(node)]
    assert [node.lineno for node in said] == [1, 2, 5]


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


def test_payments_are_worded_for_the_reader_of_the_moment():
    """A table's rule words are kept per reader: the same hand, settled again
    under another translator or in English, is worded for that reader."""
    hand = parse_hand(HAND)
    english = [p.rule for p in settle(hand).payments]
    set_translator(lambda msg_id, template: "<" + template + ">")
    try:
        assert [p.rule for p in settle(hand).payments] == [
            str(rule_text(hand.rules, p.key)) for p in settle(hand).payments]
        assert all(p.rule.startswith("<") for p in settle(hand).payments)
        with in_english():
            assert [p.rule for p in settle(hand).payments] == english
    finally:
        set_translator(None)
    assert [p.rule for p in settle(hand).payments] == english


def test_messages_are_values():
    assert Message("explain.lowest", player="Cy", count=9) == Message(
        "explain.lowest", count=9, player="Cy")
    assert str(Message("explain.lowest", player="Cy", count=9)) == \
        "Cy has the lowest count, 9."
    with pytest.raises(KeyError):
        Message("no.such.id")
