"""One rule book, proven: the core run in Pyodide under Node.js, from the vendored
files and with no network, answers every request exactly as CPython does, byte for byte:
the worked hands and known answers (settled and compared under every preset), a few
thousand seeded random hands good and bad, fewest transfers, nights with side bets and
totals, and money formats, each in English, German and Japanese, refusals and their
fields included; and random nights, counted by the ``night`` op and by ``record`` (from a
saved copy of the night and the hands waiting after it), which must also count them as the
core's fold does (``app.core.night``). Both sides answer through the same function,
``app.core.phone.answer_json``; the phone's file system holds every module of
``app/core``, the cut Babel and the compiled catalogues, so a new import Pyodide lacks, or a
module the bundle leaves out, fails here.

The Pyodide run is one Node process for the whole module (its cold start is several
seconds); it needs ``node`` (skipped with the reason when it is missing)."""
from __future__ import annotations

import functools
import gzip
import json
import pathlib
import random
import shutil
import subprocess
from dataclasses import replace
from decimal import Decimal
from typing import Any

import brotli
import pytest

from app.core import PRESETS, TonkError, parse_hand, settle
from app.core.hand import parse_players
from app.core.money import loads
from app.core.night import Money, Night, apply, night_json, start
from app.core.phone import LANGUAGES, answer, answer_json, catalogue_translator, door
from app.core.rules import CATCHES, DEAL_CONFLICTS, resolve_rules
from app.i18n import speaking
from app.web.sessions.phone_core import ROOT as ROOT_IN_PYODIDE
from app.web.sessions.phone_core import RUNTIME, bundle
from tests.hands import END_KINDS, hand_form

ROOT = pathlib.Path(__file__).resolve().parent.parent
VENDOR = ROOT / "app" / "static" / "vendor" / "pyodide"
DATA = ROOT / "tests" / "data"
NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
KINDS = ["deal", "tonk_out", "run_out", "drop", "drop", "drop", "stock_out", "dead"]
#: How many random hands (about a third of them refused), and their seed.
RANDOM_HANDS, SEED = 3000, 32


def _translators() -> dict[str, Any]:
    return {lang: catalogue_translator(
        (ROOT / "translations" / lang / "LC_MESSAGES" / "messages.mo").read_bytes())
        for lang in LANGUAGES if lang != "en"}


def _loads(name: str) -> Any:
    """A data file, its numbers with a fraction as Decimal (as the app reads JSON)."""
    return loads((DATA / name).read_text(encoding="utf-8"))


def _text(value: Any) -> str:
    """A request as JSON text, a Decimal written as the number it is (``0.5``)."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(map(_text, value)) + "]"
    return json.dumps(value, ensure_ascii=False)


# -- the requests ----------------------------------------------------------------------------

def _random_rules(rng: random.Random) -> Any:
    spec: dict[str, Any] = {"preset": rng.choice(sorted(PRESETS))}
    if rng.random() < 0.5:
        spec["scoring"] = rng.choice(["money", "money", "points", "push_ups"])
    if rng.random() < 0.3:
        spec["catch"] = rng.choice(sorted(CATCHES))
    if rng.random() < 0.2:
        spec["deal_conflict"] = rng.choice(sorted(DEAL_CONFLICTS))
    if rng.random() < 0.2:
        spec["deck"] = "jokers"
    if rng.random() < 0.2:
        spec["stock_out_pays"] = rng.randint(0, 3)
    try:
        resolve_rules(spec)
    except TonkError:
        return spec["preset"]
    return spec if len(spec) > 1 else spec["preset"]


def _random_hand(rng: random.Random) -> dict[str, Any]:
    """A hand of some preset and options at 2-8 players, likely valid."""
    rules_spec = _random_rules(rng)
    rules = resolve_rules(rules_spec)
    players = NAMES[:rng.randint(2, 8)]
    kind = rng.choice(KINDS)
    play = sorted(rules.play_counts)[:40]
    counts = {p: rng.choice(play) for p in players}
    end: dict[str, Any] = {"kind": kind}
    if kind in ("tonk_out", "run_out", "drop"):
        end["player"] = rng.choice(players)
    if kind == "tonk_out":
        end["method"] = rng.choice(["spread", "hits"])
        end["first_turn"] = rng.random() < 0.2
        if rules.double_double_pays is not None:
            end["double_double"] = rng.random() < 0.2
        counts[end["player"]] = 0
    if kind == "deal" and rules.deal_totals:
        totals = sorted(rules.deal_totals)
        likely = [t for t in totals if t <= 15 or t >= 45] or totals
        counts = {p: rng.choice(likely if rng.random() < 0.4 else totals) for p in players}
    return {"rules": rules_spec, "stake": rng.choice(["0.05", "0.25", "1", "3", 2, "1.50"]),
            "multiplier": rng.choice([1, 1, 1, 2, 3]), "players": players,
            "dealer": rng.choice(players), "end": end, "counts": counts}


#: Ways a hand goes wrong: each takes the hand and a random source, and spoils it.
_SPOILS = [
    lambda h, r: h.pop(r.choice(["end", "players", "counts"])),
    lambda h, r: h.update(stake=r.choice(["-1", "abc", "0.001", True, None, "1e3", "٣"])),
    lambda h, r: h.update(dealer="Zed"),
    lambda h, r: h["end"].update(player=r.choice(["Zed", 7, None])),
    lambda h, r: h["counts"].update({r.choice(h["players"]): r.choice([-3, 999, "x", 2.5])}),
    lambda h, r: h.update(rules=r.choice(["nowhere", {"preset": "pagat", "catch": "x"},
                                          {"preset": "pagat", "colour": 1}, 7])),
    lambda h, r: h.update(multiplier=r.choice([0, 99, "2", 1.5])),
    lambda h, r: h.update(players=r.choice([["Ann"], ["Ann", "ann"], "Ann", ["Ann", ""]])),
    lambda h, r: h["end"].update(kind=r.choice(["won", None, 3])),
    lambda h, r: h.update(surprise=True),
]


def _random_requests(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for i in range(RANDOM_HANDS):
        hand = _random_hand(rng)
        if rng.random() < 0.3:
            rng.choice(_SPOILS)(hand, rng)
        out.append({"op": "settle", "lang": LANGUAGES[i % 3], "hand": hand})
    return out


def _balances(rng: random.Random) -> dict[str, Any]:
    people = NAMES[:rng.randint(2, 8)]
    amounts = [Decimal(rng.randint(-5000, 5000)) / 100 for _ in people[1:]]
    balances: dict[str, Any] = {p: str(a) for p, a in zip(people[1:], amounts, strict=True)}
    balances[people[0]] = str(-sum(amounts, Decimal(0)))
    if rng.random() < 0.2:
        balances[people[0]] = rng.choice(["1.001", "x", "0.5"])  # not money, or not zero
    return balances


def _night(rng: random.Random, lang: str) -> dict[str, Any]:
    players = NAMES[:rng.randint(3, 6)]
    rules = rng.choice(["pagat", "texas", "chicago", "rushville", "push_ups",
                        {"preset": "pagat", "scoring": "points"}])
    money, points = rules != "push_ups", isinstance(rules, dict)
    hands = []
    for _ in range(rng.randint(1, 12)):
        hand = _random_hand(rng)
        hand = {k: v for k, v in hand.items() if k not in ("rules", "stake", "players")}
        hand["dealer"], hand["end"] = rng.choice(players), dict(hand["end"])
        if "player" in hand["end"]:
            hand["end"]["player"] = rng.choice(players + ["Zed"])
        hand["counts"] = {p: rng.randint(0, 50) for p in players}
        if money:
            hand["side_bets"] = [{"bet": "high_card", "suit": rng.choice("SHDC"),
                                  "winner": rng.choice([None, *players])}]
            if rng.random() < 0.5:
                hand["side_bets"].append({"bet": "naturals", "players": players[:3],
                                          "winner": rng.choice([None, players[0]])})
        hands.append(hand)
    night: dict[str, Any] = {"op": "night", "lang": lang, "rules": rules,
                             "stake": rng.choice(["1", "2"] if points else ["0.25", "1", "2"]),
                             "players": players,
                             "hands": hands}
    if money:
        night["side_bets"] = {"high_card": {"unclaimed": rng.choice(["carry", "return"])},
                              "naturals": {"stake": "1" if points else "0.10"}}
    return night


def _recorded(rng: random.Random, lang: str) -> dict[str, Any]:
    """A night's hands as record forms waiting on the phone, after a state of the session."""
    night = _night(rng, lang)
    players = night["players"]
    forms = []
    for hand in night["hands"]:
        form = [["kind", hand["end"]["kind"]], ["player", hand["end"].get("player", "")],
                ["dealer", rng.choice(["", hand["dealer"]])]]
        form += [[f"count-{i}", str(hand["counts"][p])] for i, p in enumerate(players)
                 if rng.random() < 0.9]
        if rng.random() < 0.2:
            form.append(["big_one", rng.choice(["2", "3", "x"])])
        for play in hand.get("side_bets", ()):
            bet = play["bet"]
            form += [[f"sb-{bet}-shown", "1"], [f"sb-{bet}-winner", play["winner"] or ""],
                     [f"sb-{bet}-suit", play.get("suit", "")]]
            form += [[f"sb-{bet}-in", p] for p in play.get("players", players)]
        forms.append(form)
    start = {p: {"hands": f"{rng.randint(-500, 500) / 100:.2f}", "side_bets": "0.00"}
             for p in players}
    number = rng.randint(0, 30)
    return {"op": "record", "lang": lang, "hands": forms, "table": {
        "session": 1, "revision": number, "number": number, "moved": {"Zed": "0.00"},
        "night": {
            "rules": night["rules"], "stake": night["stake"], "currency": "EUR",
            "side_bets": night.get("side_bets"), "seats": players + ["Zed"],
            "seated": players, "dealer": players[-1], "numbered": number, "base": start,
            "pots": {"high_card": [[players[0], "0.25"], ["Zed", "0.25"]]}
            if night.get("side_bets") else {}}}}


@functools.cache
def requests() -> list[dict[str, Any]]:
    """Every request both sides answer, in order."""
    rng = random.Random(SEED)
    examples = [case["hand"] for case in _loads("examples.json")]
    out: list[dict[str, Any]] = []
    for lang in LANGUAGES:
        out += [{"op": "settle", "lang": lang, "hand": hand} for hand in examples]
        out += [{"op": "compare", "lang": lang, "hand": hand} for hand in examples]
        for case in _loads("settle_answers.json"):
            out.append(_known(case, lang))
        out += [{"op": "transfers", "lang": lang, "balances": _balances(rng)}
                for _ in range(40)]
        out += [_night(rng, lang) for _ in range(20)]
        out += [_recorded(rng, lang) for _ in range(20)]
        out += [{"op": "money", "lang": lang, "currency": currency,
                 "amounts": ["0", "1234.5", "-0.25", "1000000", "-99.99", 7]}
                for currency in ("EUR", "JPY", "USD", "GBP", "chips", "$", None)]
        out.append({"op": "money", "lang": lang, "currency": "EUR", "amounts": ["1", "1,5"]})
        out += _check_forms(rng, lang)
        out += _events_requests(rng, lang)
    return out + _random_requests(rng)


def check_forms() -> list[list[list[str]]]:
    """The dispute checker's worked forms (tests/hands.py), every preset and end, as
    ``[name, value]`` pairs."""
    return [[[k, v] for k, v in hand_form(preset, kind).items()]
            for preset in PRESETS for kind in END_KINDS]


#: What a /check form may be given wrong, or changed: each added to a worked form.
_CHECK_CHANGES: list[list[list[str]]] = [
    [["players", "Ann, ann, Bob"]], [["players", ""]], [["players", "Ann"]],
    [["opt-catch", "never"]], [["opt-deal_wins", "49 = two"]], [["opt-deal_wins", "-"]],
    [["opt-deal_wins", "50 = 2 left; <=13 = 2; face = 3"]], [["opt-hand_size", "six"]],
    [["opt-tonk_out_by_hits_pays", "0"]], [["opt-double_double_pays", "4"]],
    [["opt-first_turn_spread_pays", "3"]], [["opt-scoring", "push_ups"]],
    [["opt-scoring", "points"]], [["opt-deck", "jokers"], ["opt-jokers", "2"]],
    [["preset", "nowhere"]], [["stake", "0,50"]], [["stake", "lots"]], [["kind", ""]],
    [["count-1", "nine"]], [["big_one", "x"]], [["big_one", "2"]], [["first_turn", "1"]],
    [["method", "hits"]], [["double_double", "1"]], [["cards-0", "KS, 10H"]],
]


def _check_forms(rng: random.Random, lang: str) -> list[dict[str, Any]]:
    """The worked /check forms, and as many again with a change each (later pairs of a
    name win: they come first, as a form sends one value of a name)."""
    forms = check_forms()
    out = [{"op": "check_form", "lang": lang, "fields": f} for f in forms]
    for form in forms:
        change = rng.choice(_CHECK_CHANGES)
        changed = change + [p for p in form if p[0] not in {c[0] for c in change}]
        out.append({"op": "check_form", "lang": lang, "fields": changed})
    out.append({"op": "check_form", "lang": lang, "fields": "players=Ann"})
    return out


#: The new-session form as the phone reads it with no signal (the ``events`` op's ``start``).
START_FORM = [["name", "Basement"], ["player-0", "Ann"], ["player-1", "Bob"],
              ["player-2", "Cy"], ["player-3", ""], ["first_dealer", "1"], ["stake", "0.25"],
              ["currency", "EUR"], ["preset", "pagat"]]
#: The same form, its first dealer an empty seat.
EMPTY_DEALER = [*START_FORM[:5], *START_FORM[6:], ["first_dealer", "3"]]


def night_events(night: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """A random night as the phone keeps it: its events (each with an id and its place), a
    newcomer seated partway, a hand refused as it comes (the phone keeps none such, but the
    op says so), a player leaving near the end."""
    events: list[dict[str, Any]] = [_started(night)]
    for i, hand in enumerate(night["hands"]):
        if i == len(night["hands"]) // 2 and len(night["players"]) < 8:
            events.append({"kind": "joined", "player": "Zoe"})
        events.append({"kind": "hand", "hand": hand})
    if len(night["players"]) > 2 and rng.random() < 0.5:
        events.append({"kind": "left", "player": night["players"][0]})
    return [{"id": f"e{i}", "seq": i, **e} for i, e in enumerate(events, 1)]


#: A night kept on the phone: two hands, Dee seated after them, the second corrected.
CORRECTED: list[dict[str, Any]] = [
    {"kind": "started", "players": ["Ann", "Bob", "Cy"], "rules": {"preset": "pagat"},
     "stake": "0.25", "currency": "EUR", "dealer": "Bob"},
    {"kind": "hand", "hand": {"end": {"kind": "tonk_out", "player": "Ann"}, "dealer": "Bob"}},
    {"kind": "hand", "hand": {"end": {"kind": "drop", "player": "Cy"}, "dealer": "Cy",
                              "counts": {"Ann": 20, "Bob": 15, "Cy": 3}}},
    {"kind": "joined", "player": "Dee"}]
#: The correct form of the second hand (Cy's drop was caught by Bob): its three players.
_CORRECT_FORM = [["number", "2"], ["version", "1"], ["kind", "drop"], ["player", "Cy"],
                 ["count-0", "20"], ["count-1", "2"], ["count-2", "3"], ["dealer", "Cy"],
                 ["reason", " Bob had 2, not 15 "]]


#: The house-rules form: Texas from the next hand on, a stake of 1, hands of six cards.
_RULES_FORM = [["preset", "texas"], ["opt-hand_size", "6"], ["stake", "1"]]


def _events_requests(rng: random.Random, lang: str) -> list[dict[str, Any]]:
    """The ``events`` op: random nights folded, one more hand read from the record form, a
    newcomer added, the new-session form read (good, refused, with a side bet), and bad
    requests."""
    out: list[dict[str, Any]] = []
    for night in random_nights()[:12]:
        events = night_events(night, rng)
        out.append({"op": "events", "lang": lang, "events": events})
        if night["hands"]:
            out.append({"op": "events", "lang": lang, "events": events[:1],
                        "hand": _form(night["hands"][0], night["players"])})
        out.append({"op": "events", "lang": lang, "events": events,
                    "add": {"kind": "joined", "player": rng.choice(["Zed", "Ann", ""])}})
    forms = [START_FORM, START_FORM[:1], [*START_FORM, ["sb-naturals", "1"]],
             [*START_FORM, ["opt-hand_size", "x"]], [*START_FORM[:-1], ["preset", "nope"]],
             EMPTY_DEALER, [*START_FORM, ["stake", "-1"]]]
    out += [{"op": "events", "lang": lang, "events": [], "start": f} for f in forms]
    bets = [{"kind": "started", "players": ["Ann", "Bob", "Cy"], "stake": "0.25",
             "side_bets": {"naturals": {"stake": "0.10"}, "high_card": {"suit": "S"}}}]
    plays = [["kind", "drop"], ["player", "Cy"], ["count-0", "20"], ["count-1", "15"],
             ["count-2", "3"], ["sb-naturals-shown", "1"], ["sb-naturals-in", "Ann"],
             ["sb-naturals-in", "Cy"], ["sb-naturals-winner", "Cy"],
             ["sb-high_card-shown", "1"], ["sb-high_card-in", "Bob"]]
    out += [{"op": "events", "lang": lang, "events": bets, "hand": plays},
            {"op": "events", "lang": lang, "events": bets,
             "hand": [["sb-high_card-winner", "Ann"], *plays]}]
    out += [{"op": "events", "lang": lang, "events": CORRECTED, "rules": f} for f in (
        _RULES_FORM, [["preset", "texas"], ["stake", "lots"]], [["opt-hand_size", "six"]])]
    out += [{"op": "events", "lang": lang, "events": CORRECTED,
             "add": {"kind": "closed", "carry_over": carry}} for carry in (True, False)]
    out += [{"op": "events", "lang": lang, "events": CORRECTED[:3], "correcting": 2,
             "correct": f} for f in (_CORRECT_FORM, _CORRECT_FORM[:-1],
                                     [["number", "9"], *_CORRECT_FORM[1:]])]
    out += [{"op": "events", "lang": lang, "events": "no"},
            {"op": "events", "lang": lang, "events": [1]},
            {"op": "events", "lang": lang, "events": [], "start": "name=Ann"},
            {"op": "events", "lang": lang, "events": [], "hand": [["kind", "drop"]]},
            {"op": "events", "lang": lang, "events": [], "add": 3}]
    return out


def _known(case: dict[str, Any], lang: str) -> dict[str, Any]:
    hand = case["hand"]
    if case.get("table"):
        hand = dict(hand)
        table = {key: hand.pop(key) for key in ("rules", "stake", "players")}
        return {"op": "settle", "lang": lang, "hand": hand, "table": table}
    return {"op": "settle", "lang": lang, "hand": hand}


# -- CPython alone: the door answers as the app does ------------------------------------------

def test_the_door_gives_the_known_answers():
    """In English the phone's door gives the known answers of tests/data exactly (result,
    rule keys, or the refusal's message, field and type)."""
    translators = _translators()
    for case in _loads("settle_answers.json"):
        assert answer(_known(case, "en"), translators) == case["answer"], case["hand"]


def test_the_door_speaks_as_the_command_line_does():
    """The phone reads the compiled catalogues with the standard library's gettext; the app
    reads them with Babel's: the same words in German and Japanese, lists and decimal signs
    included."""
    translators = _translators()
    for case in _loads("examples.json"):
        for lang in ("de", "ja"):
            with speaking(lang):
                try:
                    expected = settle(parse_hand(case["hand"])).to_json()
                except TonkError as exc:
                    expected = {"error": str(exc), "field": exc.field}
            got = answer({"op": "settle", "lang": lang, "hand": case["hand"]}, translators)
            assert got.get("result", {k: got.get(k) for k in ("error", "field")}) == expected


def test_a_request_it_does_not_know_is_refused_with_its_field():
    translators = _translators()
    assert answer({"op": "fly"}, translators)["field"] == "op"
    assert answer({"op": "settle", "lang": "fr"}, translators)["field"] == "lang"
    assert json.loads(answer_json("[1]", translators))["field"] == "body"
    assert json.loads(answer_json("{", translators))["type"] == "RequestError"


# -- CPython against Pyodide ------------------------------------------------------------------

def _bundle() -> dict[str, Any]:
    """What the phone's file system holds: what the app serves its worker (the core, every
    module of app/core, and the compiled catalogues), and Babel from the vendored zip."""
    return {"path": ROOT_IN_PYODIDE, "zips": [str(VENDOR / "babel.zip")],
            "files": {target: str(source) for target, source in bundle().items()}}


@pytest.fixture(scope="module")
def in_pyodide(tmp_path_factory) -> dict[str, str]:
    """Pyodide's answer under Node to every request of this module's tests, by its text:
    one Node process for them all (its cold start is several seconds)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the core cannot be run in Pyodide here")
    lines = list(dict.fromkeys(_text(r) for r in [*requests(), *folded_requests()]))
    tmp = tmp_path_factory.mktemp("pyodide")
    (tmp / "bundle.json").write_text(json.dumps(_bundle()))
    done = subprocess.run(
        [node, str(ROOT / "scripts" / "core_in_pyodide.mjs"), str(VENDOR),
         str(tmp / "bundle.json")], input="\n".join(lines) + "\n", capture_output=True,
        text=True, timeout=240, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp)})
    assert done.returncode == 0, done.stderr[-3000:]
    timing = json.loads(done.stderr.strip().splitlines()[-1])
    print(f"Pyodide: interpreter {timing['start_ms']:.0f} ms, core ready "
          f"{timing['first_ms']:.0f} ms, {timing['count']} requests in "
          f"{timing['answer_ms']:.0f} ms")
    got = done.stdout.splitlines()
    assert len(got) == len(lines)
    return dict(zip(lines, got, strict=True))


@pytest.mark.server
def test_pyodide_answers_every_request_as_cpython_does(in_pyodide):
    asked = requests()
    lines = [_text(r) for r in asked]
    answer_text = door(str(ROOT / "translations"))
    expected = [answer_text(line) for line in lines]
    got = [in_pyodide[line] for line in lines]
    differ = [(r, e, g) for r, e, g in zip(asked, expected, got, strict=True) if e != g]
    assert not differ, f"{len(differ)} answers differ; the first: {differ[0]}"
    # The batch holds what it says: every outcome, many refusals, every op and language.
    answers = [json.loads(e) for e in expected]
    outcomes = {a["result"]["outcome"] for a in answers if "result" in a}
    assert outcomes == {"deal_win", "tonk_out", "run_out", "drop_won", "caught", "stock_out",
                        "draw", "dead"}
    refused = [a for a in answers if "error" in a]
    assert len({a["field"] for a in refused}) >= 30 and len(refused) >= 800
    assert {(r["op"], r["lang"]) for r in asked} == {
        (op, lang) for op in ("settle", "compare", "transfers", "night", "record", "money",
                              "check_form", "events")
        for lang in LANGUAGES}
    nights = [a for r, a in zip(asked, answers, strict=True) if r["op"] == "night"]
    assert all("hands" in n for n in nights)
    assert sum(1 for n in nights if n["pots"]) >= 5
    assert sum(1 for n in nights for h in n["hands"] if "side_bets" in h) >= 100


# -- the night, folded once (issue 40) ---------------------------------------------------------

#: The rules a random night is played under, and the side bets it may play.
NIGHT_RULES: tuple[Any, ...] = (
    "pagat", "texas", "chicago", "rushville", "washington", "dc", "wikipedia",
    {"preset": "pagat", "scoring": "points"}, {"preset": "texas", "scoring": "push_ups"})
NIGHT_BETS: tuple[Any, ...] = (
    None, {"naturals": {}}, {"high_card": {}},
    {"high_card": {"suit": "S", "unclaimed": "return"}, "naturals": {"stake": "2"}})
#: How many random nights the phone counts in Pyodide (each twice: ``night`` and ``record``).
FOLDED_NIGHTS = 200


def _night_hand(rng: random.Random, players: list[str], bets: Any) -> dict[str, Any]:
    """A hand of the table ``players`` with the side bets ``bets``, as the record form can
    give it: now and then a player not at the table (a refused hand)."""
    kind = rng.choice(["run_out", "run_out", "drop", "stock_out", "tonk_out", "deal"])
    end: dict[str, Any] = {"kind": kind}
    counts = {p: rng.randint(0, 50) for p in players}
    if kind in ("run_out", "drop", "tonk_out"):
        end["player"] = rng.choice([*players, *players, "Zed"])
        if kind != "drop" and end["player"] in counts:
            counts[end["player"]] = 0
    hand = {"end": end, "counts": counts, "dealer": rng.choice([None, *players]),
            "multiplier": rng.choice([1, 1, 1, 2, 3])}
    plays = []
    for bet in sorted(bets or ()):
        ins = [p for p in players if rng.random() < 0.7]
        if not ins:
            continue
        play = {"bet": bet, "players": ins, "winner": rng.choice([None, *ins, *ins, "Zed"])}
        if bet == "high_card" and "suit" not in bets[bet]:
            play["suit"] = rng.choice("SHDC")
        plays.append(play)
    return {**hand, "side_bets": plays} if plays else hand


def _random_night(rng: random.Random) -> dict[str, Any]:
    """A table (rules, stake, currency, players, side bets), its hands in order and how many
    of them the server had when the phone's page last saw it."""
    rules = rng.choice(NIGHT_RULES)
    scoring = resolve_rules(rules).scoring
    players = NAMES[:rng.randint(2, 6)]
    bets = None if scoring == "push_ups" else rng.choice(NIGHT_BETS)
    hands = [_night_hand(rng, players, bets) for _ in range(rng.randint(0, 12))]
    return {"rules": rules, "players": players, "side_bets": bets, "hands": hands,
            "stake": rng.choice(["1", "2"] if scoring != "money" else ["0.25", "1", "2"]),
            "currency": rng.choice([None, "EUR", "USD"]), "saved": rng.randint(0, len(hands)),
            "lang": rng.choice(LANGUAGES)}


@functools.cache
def random_nights() -> tuple[dict[str, Any], ...]:
    rng = random.Random(SEED)
    return tuple(_random_night(rng) for _ in range(FOLDED_NIGHTS))


def _started(night: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "started", **{k: night[k] for k in (
        "rules", "stake", "currency", "players", "side_bets")}}


def _folded(night: dict[str, Any], hands: list[dict[str, Any]], counted: Night | None = None
            ) -> tuple[Night, list[bool]]:
    """The core's fold of ``hands`` (from ``counted``, or from the night's start), and
    whether each was refused."""
    state = start(_started(night)) if counted is None else counted
    refused = []
    for hand in hands:
        try:
            state = apply(state, {"kind": "hand", "hand": hand})
        except TonkError:
            refused.append(True)
        else:
            refused.append(False)
    return state, refused


def _saved_copy(night: Night) -> dict[str, Any]:
    """The ``table`` of a ``record`` request: the night as the page last saw it (what
    app.services.sessions.phone_table sends), no payments made."""
    kept = replace(night, hands=(), numbered=night.last_number, base={
        n: Money(m.hands, m.side_bets, Decimal(0)) for n, m in night.money().items()})
    return {"session": 1, "revision": night.last_number, "number": night.last_number,
            "night": night_json(kept), "moved": dict.fromkeys(night.seats, "0")}


def _form(hand: dict[str, Any], seated: list[str]) -> list[list[str]]:
    """A hand as the record form sends it: ``[name, value]`` pairs."""
    end = hand["end"]
    form = [["kind", end["kind"]], ["player", end.get("player", "")],
            ["dealer", hand["dealer"] or ""], ["big_one", str(hand["multiplier"])]]
    form += [[f"count-{i}", str(hand["counts"][p])] for i, p in enumerate(seated)]
    for play in hand.get("side_bets", ()):
        bet = play["bet"]
        form += [[f"sb-{bet}-shown", "1"], [f"sb-{bet}-winner", play["winner"] or ""],
                 [f"sb-{bet}-suit", play.get("suit", "")]]
        form += [[f"sb-{bet}-in", p] for p in play["players"]]
    return form


def _night_request(night: dict[str, Any]) -> dict[str, Any]:
    return {"op": "night", "lang": night["lang"], **_started(night), "hands": night["hands"]}


def _record_request(night: dict[str, Any]) -> dict[str, Any]:
    saved, _ = _folded(night, night["hands"][:night["saved"]])
    return {"op": "record", "lang": night["lang"], "table": _saved_copy(saved),
            "hands": [_form(h, night["players"]) for h in night["hands"][night["saved"]:]]}


#: A row's parts in a ``record`` answer, and its total.
_PARTS = ("hands", "side_bets", "returned", "total")


def folded_requests() -> list[dict[str, Any]]:
    """Each random night as the ``night`` request, and as the ``record`` request of the
    hands after those its page last saw."""
    return [r for night in random_nights()
            for r in (_night_request(night), _record_request(night))]


def test_the_phone_counts_a_night_as_the_fold_does():
    """Random nights: the phone's ``night`` answer, and its ``record`` answer from the
    page's saved copy and the hands waiting after it, refuse the hands the core's fold of
    the whole night refuses and count its money: each player's parts and total, the pots,
    the next dealer, and transfers that square what is open."""
    translators = _translators()
    seen = {"refused": 0, "pots": 0, "hands": 0}
    for night in random_nights():
        folded, refused = _folded(night, night["hands"])
        money = folded.money()
        for request in (_night_request(night), _record_request(night)):
            got = loads(answer_json(_text(request), translators))
            assert "error" not in got, got
            after = refused[night["saved"]:] if request["op"] == "record" else refused
            assert ["error" in h for h in got["hands"]] == after, (request, got)
            if request["op"] == "night":
                assert {n: [Decimal(v), Decimal(got["returned"].get(n, "0"))]
                        for n, v in got["totals"].items()} == {
                    n: [m.hands + m.side_bets, m.pots_back] for n, m in money.items()}, request
                assert {bet: Decimal(v) for bet, v in got["pots"].items()} == {
                    bet: pot.total for bet, pot in folded.pots.items()}, request
            else:
                assert {row["name"]: [Decimal(row[part]["data"]) for part in _PARTS]
                        for row in got["rows"]} == {
                    n: [m.hands, m.side_bets, m.pots_back, m.total]
                    for n, m in money.items()}, request
                assert got["dealer"] == folded.dealer
            left = dict(folded.open())
            for t in got["transfers"]:
                left[t["from"]] += Decimal(t["amount"])
                left[t["to"]] -= Decimal(t["amount"])
            assert not any(left.values()), (request, got["transfers"])
        seen["refused"] += sum(refused)
        seen["hands"] += len(refused) - sum(refused)
        seen["pots"] += bool(folded.pots)
    # the nights hold what the test is about: many hands, refused ones, pots left at the end
    assert seen["hands"] >= 500 and seen["refused"] >= 100 and seen["pots"] >= 15, seen


def test_the_events_op_counts_a_night_kept_on_the_phone_as_the_fold_does():
    """A night kept as events (issue 41): the op's money by part, its transfers and its next
    dealer are the core's fold of the events it takes; an event the night refuses is named
    by its index and counts nothing; what a form gives is the event the fold then takes."""
    translators, rng = _translators(), random.Random(SEED)
    for night in random_nights()[:60]:
        events = night_events(night, rng)
        got = loads(answer_json(_text({"op": "events", "events": events}), translators))
        state, taken = None, []
        for event in events:
            try:
                state = start(event) if state is None else apply(state, event)
            except TonkError:
                continue
            taken.append(event)
        assert state is not None
        assert len(got["refused"]) == len(events) - len(taken)
        assert {row["name"]: [Decimal(row[part]["data"]) for part in _PARTS]
                for row in got["rows"]} == {
            n: [m.hands, m.side_bets, m.pots_back, m.total]
            for n, m in state.money().items()}, night
        assert got["dealer"] == state.dealer and got["players"] == list(state.seated)
        left = dict(state.open())
        for t in got["transfers"]:
            left[t["from"]] += Decimal(t["amount"])
            left[t["to"]] -= Decimal(t["amount"])
        assert not any(left.values())
    read = answer({"op": "events", "events": [], "start": START_FORM}, translators)
    assert read["added"] == {"kind": "started", "name": "Basement",
                             "players": ["Ann", "Bob", "Cy"], "rules": {"preset": "pagat"},
                             "stake": "0.25", "currency": "EUR", "dealer": "Bob"}
    assert [r["name"] for r in read["rows"]] == ["Ann", "Bob", "Cy"]
    refused = answer({"op": "events", "events": [], "start": EMPTY_DEALER}, translators)
    assert refused["added"] is None and list(refused["refusals"]) == ["first_dealer"]
    assert answer({"op": "events", "events": [1]}, translators)["field"] == "events"


def test_the_new_session_form_on_the_phone_says_every_problem_at_once():
    """The phone's new-session form (a night started with no signal) stopped at its first
    problem; the server's page said them all. Both now show the core's refusals of the
    whole form at once (:func:`app.core.tableform.session_refusals`), each by its field, in
    the reader's language, with the form's own problems (codes) beside them; a name too
    long is refused, not cut."""
    translators = _translators()
    long = "Bartholomew Fitzgerald-Montgomery the Third"
    form = [["name", " "], ["player-0", "Ann"], ["player-1", long], ["player-2", "Cy"],
            ["first_dealer", "5"], ["stake", "lots"], ["currency", "EUR"],
            ["preset", "pagat"], ["opt-hand_size", "six"]]
    read = answer({"op": "events", "events": [], "start": form}, translators)
    assert read["added"] is None and read["night"] is None
    assert read["problems"] == {"opt-hand_size": "not_number"}
    assert list(read["refusals"]) == ["name", "player-1", "first_dealer", "stake"], read
    assert "40" in read["refusals"]["player-1"]
    german = answer({"op": "events", "lang": "de", "events": [], "start": form},
                    translators)["refusals"]
    with pytest.raises(TonkError) as too_long:
        parse_players(["Ann", long, "Cy"])
    with speaking("de"):
        assert german["player-1"] == too_long.value.message
    assert german["player-1"] != read["refusals"]["player-1"]


def test_the_events_op_reads_a_correction_as_the_hand_s_own_form():
    """Correcting a hand on the phone (issue 41): the op gives the hand as it stands, its
    version and the fields its own players ask (not the newcomer's); the correct form is
    read under those players into the ``corrected`` event the fold takes, the hand marked
    corrected; no reason, or a hand not there, is refused by field."""
    translators = _translators()
    shown = answer({"op": "events", "events": CORRECTED, "correcting": 2}, translators)
    assert shown["correcting"]["players"] == ["Ann", "Bob", "Cy"]
    assert shown["correcting"]["version"] == 1
    assert shown["correcting"]["hand"]["counts"] == {"Ann": 20, "Bob": 15, "Cy": 3}
    assert "Dee" in shown["players"]  # (the night's fields would ask for four)
    read = answer({"op": "events", "events": CORRECTED, "correct": _CORRECT_FORM}, translators)
    added = read["added"]
    assert added["kind"] == "corrected" and added["number"] == 2 and added["version"] == 1
    assert added["reason"] == "Bob had 2, not 15"
    assert added["hand"]["counts"] == {"Ann": 20, "Bob": 2, "Cy": 3}
    night = apply(apply(apply(apply(start(CORRECTED[0]), CORRECTED[1]), CORRECTED[2]),
                        CORRECTED[3]), added)
    assert {r["name"]: Decimal(r["total"]["data"]) for r in read["rows"]} == {
        n: m.total for n, m in night.money().items()}
    assert [(h["number"], h["version"], h["corrected"]) for h in read["hands"]] == [
        (1, 1, False), (2, 2, True)]
    no_reason = answer({"op": "events", "events": CORRECTED,
                        "correct": [*_CORRECT_FORM[:-1], ["reason", " "]]}, translators)
    assert no_reason["added"] is None and no_reason["refusal"]["field"] == "reason"
    for kind in ("voided", "undone"):  # a reason, as the server asks it, for every change
        bare = answer({"op": "events", "events": CORRECTED,
                       "add": {"kind": kind, "number": 1, "payment": "p1", "reason": " "}},
                      translators)
        assert bare["added"] is None and bare["refusal"]["field"] == "reason", bare
    voided = answer({"op": "events", "events": CORRECTED,
                     "add": {"kind": "voided", "number": 1, "reason": " a  misdeal "}},
                    translators)["added"]
    assert voided == {"kind": "voided", "number": 1, "reason": "a  misdeal"}
    stale = answer({"op": "events", "events": [*CORRECTED, added], "correct": _CORRECT_FORM},
                   translators)
    assert stale["refusal"]["field"] == "version"  # made from version 1, now 2
    missing = answer({"op": "events", "events": CORRECTED, "correcting": 9,
                      "correct": [["number", "9"], *_CORRECT_FORM[1:]]}, translators)
    assert missing["refusal"]["field"] == missing["correcting"]["field"] == "number"


def test_the_events_op_reads_the_house_rules_form_and_closes_the_night():
    """The house rules and stake changed on the phone (issue 41): the form as the server's
    rules page reads it, into the ``rules`` event (an empty stake keeps the night's), its
    refusals beside the form's fields; the rules shown as that form shows them; the night
    closed, its debts kept (or refused while not all is paid), as the fold closes it; a
    session with no name refused as the server refuses it."""
    translators = _translators()
    read = answer({"op": "events", "events": CORRECTED, "rules": _RULES_FORM}, translators)
    assert read["added"] == {"kind": "rules", "rules": {"preset": "texas", "hand_size": 6},
                             "stake": "1"}
    assert read["rules"] == {"preset": "texas", "stake": "1.00", "options": {"hand_size": "6"}}
    kept = answer({"op": "events", "events": CORRECTED, "rules": [["preset", "pagat"]]},
                  translators)["added"]
    assert kept == {"kind": "rules", "rules": {"preset": "pagat"}}  # the stake as it was
    assert answer({"op": "events", "events": CORRECTED, "rules": [["opt-hand_size", "six"]]},
                  translators)["problems"] == {"opt-hand_size": "not_number"}
    stake = answer({"op": "events", "events": CORRECTED,
                    "rules": [["preset", "pagat"], ["stake", "lots"]]}, translators)
    assert stake["added"] is None and stake["refusal"]["field"] == "stake"
    night = answer({"op": "events", "events": CORRECTED}, translators)
    assert night["all_paid"] is False and night["rules"]["stake"] == "0.25"
    carried = answer({"op": "events", "events": CORRECTED,
                      "add": {"kind": "closed", "carry_over": True}}, translators)
    assert carried["night"]["closed"] and carried["night"]["carried"]
    refused = answer({"op": "events", "events": CORRECTED,
                      "add": {"kind": "closed", "carry_over": False}}, translators)
    assert refused["added"] is None and refused["refusal"]["field"] == "carry_over"
    nameless = answer({"op": "events", "events": [], "start": START_FORM[1:]}, translators)
    assert nameless["added"] is None and list(nameless["refusals"]) == ["name"]


def test_side_bets_are_started_and_played_on_the_phone_as_the_server_reads_them():
    """Side bets on a night started offline (issue 41): the new-session form's side-bet
    options read by the core as the server's form reads them (app.core.tableform), the
    hand's lines by the record form's reading, into the events the fold takes; a refusal is
    named by the form's field (the option's, the line's)."""
    translators = _translators()
    form = [*START_FORM, ["sb-naturals", "1"], ["sb-naturals-stake", "0,10"],
            ["sb-high_card", "1"], ["sb-high_card-suit", "H"]]
    read = answer({"op": "events", "events": [], "start": form}, translators)
    assert read["added"]["side_bets"] == {
        "naturals": {"stake": "0.10"},
        "high_card": {"stake": None, "suit": "H", "unclaimed": "carry"}}
    assert sorted((b["bet"], b["suit"], b["stake"]) for b in read["side_bets"]) == [
        ("high_card", "H", "€0.25"), ("naturals", None, "€0.10")]
    bad = answer({"op": "events", "events": [], "start": [["sb-naturals-stake", "x"], *form]},
                 translators)
    assert bad["added"] is None and list(bad["refusals"]) == ["sb-naturals-stake"]
    started = {"id": "e1", "seq": 1, **read["added"]}
    hand = [["kind", "tonk_out"], ["player", "Ann"], ["sb-naturals-shown", "1"],
            ["sb-naturals-in", "Ann"], ["sb-naturals-in", "Bob"], ["sb-naturals-in", "Cy"],
            ["sb-naturals-winner", "Bob"]]
    played = answer({"op": "events", "events": [started], "hand": hand}, translators)
    assert played["added"]["hand"]["side_bets"] == [
        {"bet": "naturals", "players": ["Ann", "Bob", "Cy"], "winner": "Bob"}]
    night = apply(start(started), played["added"])
    assert {r["name"]: Decimal(r["total"]["data"]) for r in played["rows"]} == {
        n: m.total for n, m in night.money().items()}
    assert any(Decimal(r["side_bets"]["data"]) for r in played["rows"])
    outside = answer({"op": "events", "events": [started],
                      "hand": [["sb-naturals-winner", "Zed"], *hand]}, translators)
    assert outside["refusal"]["field"] == "sb-naturals-winner"


def test_a_hand_of_the_night_with_no_dealer_is_dealt_by_the_turn_of_the_deal():
    """As a session deals (the record form's dealer left blank): after Cy dealt, Dee deals,
    so of the two dealt 50 under Newark's rules Ann, nearest Dee's left, wins; the first
    player (Ann) dealing, Bob would."""
    first = {"end": {"kind": "run_out", "player": "Ann"}, "dealer": "Cy",
             "counts": {"Ann": 0, "Bob": 10, "Cy": 10, "Dee": 10}}
    dealt = {"end": {"kind": "deal"}, "counts": {"Ann": 50, "Bob": 50, "Cy": 49, "Dee": 10}}

    def night(dealer: str | None) -> dict[str, Any]:
        hand = dealt if dealer is None else {**dealt, "dealer": dealer}
        return answer({"op": "night", "rules": "newark", "stake": "1",
                       "players": ["Ann", "Bob", "Cy", "Dee"], "hands": [first, hand]}, {})

    assert night(None) == night("Dee") != night("Ann")
    assert night(None)["hands"][1]["result"]["winners"] == ["Ann"]
    assert night("Ann")["hands"][1]["result"]["winners"] == ["Bob"]


@pytest.mark.server
def test_pyodide_counts_the_random_nights_as_cpython_does(in_pyodide):
    """The same nights' ``night`` and ``record`` answers, in Pyodide under Node: byte for
    byte CPython's."""
    answer_text = door(str(ROOT / "translations"))
    for request in folded_requests():
        line = _text(request)
        assert in_pyodide[line] == answer_text(line), request


#: Run in Pyodide from the vendored files: a traceback through the standard library (its
#: frames' lines), and whether its bytecode still holds the columns of its instructions.
_LINES = """
import json, json.decoder, sys, traceback
try:
    json.loads("{")
except ValueError:
    frames = traceback.extract_tb(sys.exc_info()[2])
code = json.decoder.JSONDecoder.raw_decode.__code__
json.dumps({"files": [f.filename for f in frames], "lines": [f.lineno for f in frames],
            "columns": any(p[2] is not None for p in code.co_positions()),
            "code_lines": [line for _, _, line in code.co_lines()]})
"""


@pytest.mark.server
def test_the_standard_library_keeps_its_lines_but_not_its_columns(tmp_path):
    """scripts/vendor_pyodide.py writes the library's location tables again without the
    columns of each instruction (a quarter less brotli'd): a traceback through it still
    names each frame's line."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: Pyodide cannot be run here")
    script = tmp_path / "lines.mjs"
    script.write_text(
        f"import {{ loadPyodide }} from {json.dumps((VENDOR / 'pyodide.mjs').as_uri())};\n"
        f"const py = await loadPyodide({{ indexURL: {json.dumps(str(VENDOR) + '/')}, "
        "packages: [] });\n"
        f"process.stdout.write(py.runPython({json.dumps(_LINES)}));\n")
    done = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=240,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout)
    assert seen["files"][-1].endswith("python314.zip/json/decoder.py")
    assert all(isinstance(line, int) and line > 0 for line in seen["lines"]), seen
    assert [line for line in seen["code_lines"] if line is not None], seen
    assert not seen["columns"]


# -- what the app serves the phone's worker ---------------------------------------------------

def test_the_app_serves_the_bundle_under_addresses_named_by_content(client):
    listed = client.get("/phone/core.json")
    assert listed.status_code == 200 and listed.headers["Cache-Control"] == "no-cache"
    served = listed.get_json()
    assert set(served["files"]) == set(bundle())
    assert {f"{ROOT_IN_PYODIDE}/app/core/phone.py", f"{ROOT_IN_PYODIDE}/app/core/hand.py",
            f"{ROOT_IN_PYODIDE}/translations/ja/LC_MESSAGES/messages.mo"} <= set(bundle())
    for target, url in served["files"].items():
        got = client.get(url)
        assert got.status_code == 200, url
        assert got.data == bundle()[target].read_bytes()
        assert "immutable" in got.headers["Cache-Control"]
        packed = client.get(url, headers={"Accept-Encoding": "gzip, br"})
        assert packed.headers["Content-Encoding"] == "br"
        assert brotli.decompress(packed.data) == got.data
    some = served["files"][f"{ROOT_IN_PYODIDE}/app/core/hand.py"]
    assert client.get(some.replace("/core/", "/core/0", 1)).status_code == 404  # old digest
    version = some.split("/")[3]
    for outside in ("app/__init__.py", "app/core/../../app/__init__.py", "pyproject.toml"):
        assert client.get(f"/phone/core/{version}/{outside}").status_code == 404


def test_the_app_serves_the_vendored_pyodide_under_its_manifests_digest(client):
    served = client.get("/phone/core.json").get_json()
    base = served["pyodide"].rsplit("/", 1)[0]
    assert served["version"] == json.loads((VENDOR / "manifest.json").read_text())["pyodide"]
    wasm = client.get(f"{base}/pyodide.asm.wasm")
    assert wasm.status_code == 200 and wasm.mimetype == "application/wasm"
    assert "immutable" in wasm.headers["Cache-Control"]
    assert client.get(served["zips"][0]).data == (VENDOR / "babel.zip").read_bytes()
    packed = client.get(f"{base}/pyodide.asm.wasm", headers={"Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip" and "immutable" in \
        packed.headers["Cache-Control"]
    assert gzip.decompress(packed.data) == wasm.data and len(packed.data) < len(wasm.data) / 2
    best = client.get(f"{base}/pyodide.asm.wasm", headers={"Accept-Encoding": "gzip, br"})
    assert best.headers["Content-Encoding"] == "br" and "immutable" in \
        best.headers["Cache-Control"] and "Accept-Encoding" in best.headers["Vary"]
    assert brotli.decompress(best.data) == wasm.data and len(best.data) < len(packed.data) * 0.8
    # what the worker fetches: Pyodide's runtime, its library and Babel, not its lock file
    # (the few lines of it Pyodide reads come in the bundle)
    assert [url.rsplit("/", 1)[1] for url in served["cache"]] == list(RUNTIME)
    lock = json.loads((VENDOR / "pyodide-lock.json").read_text())
    assert served["lock"] == lock["info"] and served["lock"]["abi_version"]
    assert client.get(f"{base}/manifest.json").status_code == 404  # only the listed files
    assert client.get(base.replace("/pyodide/", "/pyodide/x") + "/pyodide.mjs").status_code \
        == 404


def test_only_the_worker_may_compile_webassembly(client):
    worker = client.get("/phone/core-worker.js")
    assert worker.status_code == 200 and worker.mimetype == "text/javascript"
    assert "'wasm-unsafe-eval'" in worker.headers["Content-Security-Policy"]
    assert "wasm-unsafe-eval" not in client.get("/check").headers["Content-Security-Policy"]
