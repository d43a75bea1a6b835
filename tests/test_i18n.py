"""German and Japanese: the catalogues are complete and current, their placeholders match
the English, every page and the API's explanations are read in the reader's language, and
money follows the locale and the currency (yen have no minor unit)."""
from __future__ import annotations

import html
import json
import pathlib
import re
import shutil
import subprocess
from decimal import Decimal
from typing import Any
from urllib.parse import unquote

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from app.core import HandError
from app.core.money import currency_places, format_money, parse_stake
from app.core.rules import resolve_rules
from app.db.models import GameSession, User
from app.db.unit import unit_of_work
from app.extensions import db
from app.i18n import environment_language
from tests.apps import make_app, sqlite_copy
from tests.clients import record, sign_up, start
from tests.expect import fetched, matched, unphrased
from tests.hands import hand_form

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "translations"
LANGS = ("de", "ja")
EXAMPLES = ROOT / "tests" / "data" / "examples.json"
#: ``%(name)s``, ``%(num)d`` and ``{name}`` (a doubled ``{{`` is a literal brace).
_PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]|(?<!\{)\{(\w+)\}(?!\})")


def _key(message) -> tuple[str | None, str]:
    msgid = message.id[0] if message.pluralizable else message.id
    return message.context, msgid


def _catalogue(lang: str):
    with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po", "rb") as fh:
        return read_po(fh, locale=lang)


def _template():
    with open(TRANSLATIONS / "messages.pot", "rb") as fh:
        return read_po(fh)


def _text(value: str | bytes | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def placeholders(text: str) -> set[str]:
    return {a or b for a, b in _PLACEHOLDER.findall(text.replace("{{", "").replace("}}", ""))}


# -- the catalogues --------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_every_message_has_a_translation(lang):
    """Lists exactly which messages of messages.pot lack a translation (after
    ``bash scripts/i18n.sh``, translate those)."""
    found = {_key(m): m for m in _catalogue(lang) if m.id}
    missing = []
    for message in _template():
        if not message.id:
            continue
        translated = found.get(_key(message))
        strings = translated.string if translated else None
        if not strings or (isinstance(strings, tuple) and not all(strings)) or \
                (translated is not None and translated.fuzzy):
            missing.append(_key(message))
    assert not missing, f"{lang}: {len(missing)} without a translation:\n" + "\n".join(
        f"  {ctx + ' | ' if ctx else ''}{msgid}" for ctx, msgid in missing)


@pytest.mark.parametrize("lang", LANGS)
def test_translations_keep_the_placeholders(lang):
    wrong = []
    for message in _catalogue(lang):
        if not message.id or not message.string:
            continue
        ids = message.id if message.pluralizable else (message.id,)
        strings = message.string if message.pluralizable else (message.string,)
        expected = set().union(*(placeholders(i) for i in ids))
        for string in strings:
            got = placeholders(string)
            # a plural form may leave the count out ("one thing"), nothing else
            if got != expected and not (message.pluralizable and got == expected - {"num"}):
                wrong.append(f"  {_key(message)}: {sorted(got)} ≠ {sorted(expected)}")
    assert not wrong, f"{lang}: placeholders differ:\n" + "\n".join(wrong)


def test_the_catalogues_are_current(tmp_path):
    """messages.pot and both .po hold exactly what the sources mark today, and the compiled
    .mo are those .po: re-extracting gives the same messages."""
    pybabel = shutil.which("pybabel", path=str(pathlib.Path(__import__("sys").executable)
                                               .parent))
    assert pybabel, "pybabel is missing"
    out = tmp_path / "messages.pot"
    subprocess.run([pybabel, "-q", "extract", "-F", "babel.cfg", "-k", "_l",
                    "-k", "lazy_ngettext:1,2", "-k", "pgettext:1c,2", "--no-location",
                    "-o", str(out), "."], cwd=ROOT, check=True)
    with open(out, "rb") as fh:
        fresh = {_key(m) for m in read_po(fh) if m.id}
    committed = {_key(m) for m in _template() if m.id}
    assert fresh == committed, (
        "run bash scripts/i18n.sh: new " + repr(sorted(fresh - committed, key=str)[:20])
        + ", gone " + repr(sorted(committed - fresh, key=str)[:20]))
    for lang in LANGS:
        po = {_key(m): m.string for m in _catalogue(lang) if m.id}
        assert set(po) == fresh, f"{lang}: run bash scripts/i18n.sh"
        with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.mo", "rb") as fh:
            mo = {(_text(m.context), _key(m)[1]): tuple(m.string or ()) if m.pluralizable
                  else m.string for m in read_mo(fh) if m.id}
        assert mo == po, f"{lang}: the .mo is older than the .po: run bash scripts/i18n.sh"


def test_the_glossary_terms_are_used():
    """The words of the glossaries are the ones the catalogues use for the game."""
    de = {m.context: m.string for m in _catalogue("de") if m.context}
    ja = {m.context: m.string for m in _catalogue("ja") if m.context}
    assert "hingelegt" in de["explain.drop_won"] and "gefangen" in de["explain.caught"]
    assert "Hochtreiben" in de["preset.push_ups.title"] and "Meldung" in de["explain.how.spread"]
    assert "ドロップ" in ja["explain.drop_won"] and "捕まった" in ja["explain.caught"]
    assert ja["preset.push_ups.title"] == "プッシュアップ"  # not 腕立て伏せ, the exercise
    assert "スプレッド" in ja["explain.how.spread"]


GLOSSARY = pathlib.Path(__file__).resolve().parents[1] / "docs" / "glossary.md"


def _forbidden() -> list[tuple[str, str, str]]:
    """docs/glossary.md's forbidden words: (language, pattern, what to use instead)."""
    text = GLOSSARY.read_text(encoding="utf-8")
    table = text[text.index("## Forbidden words"):]
    rows = re.findall(r"^\| (en|de|ja) \| `([^`]+)` \| ([^|]+) \|$", table, re.M)
    assert len(rows) >= 20, "the glossary's table of forbidden words is not where it was"
    return [(lang, pattern.replace("\\\\", "\\"), use.strip()) for lang, pattern, use in rows]


def _messages(lang: str) -> list[tuple[str, str]]:
    """Every message of a catalogue as read: (its id, its text in ``lang``); English: the
    message ids themselves (the core's catalogue and every page's strings)."""
    out: list[tuple[str, str]] = []
    for m in _catalogue("de" if lang == "en" else lang):
        if not m.id:
            continue
        ids = [m.id] if isinstance(m.id, str) else list(m.id)
        texts = ids if lang == "en" else (
            [m.string] if isinstance(m.string, str) else list(m.string))
        out.extend((f"{m.context or ''}|{ids[0]}", t) for t in texts)
    return out


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_no_message_uses_a_word_the_glossary_forbids(lang):
    """One term, one spelling: every message of every catalogue is read for the glossary's
    forbidden words (a German "Hereinleger", a Japanese プレイヤー beside プレーヤー, 清算
    beside 精算, 腕立て伏せ for push-ups)."""
    rules = [(re.compile(p), use) for lg, p, use in _forbidden() if lg == lang]
    assert rules
    found = [(msg_id[:60], text[:80], use) for msg_id, text in _messages(lang)
             for rule, use in rules if rule.search(text)]
    assert found == []


def test_the_forbidden_words_test_finds_what_it_should():
    """The patterns do catch the words they are for, and spare what they must spare."""
    rules = {p: re.compile(p) for _lg, p, _use in _forbidden()}
    doubles = next(r for p, r in rules.items() if p.startswith("ダブル"))
    assert doubles.search("49はダブル") and not doubles.search("ダブルダブルは4倍")
    assert rules["[Hh]ereingelegt"].search("Hereingelegt · Cy")
    assert rules["プレイヤー"].search("プレイヤーの参加")


# -- the language of a request ---------------------------------------------------------------

def _lang_of(page: str) -> str:
    return matched(r'<html lang="([^"]+)"', page).group(1)


def test_the_language_follows_the_account_then_the_browser(app):
    client = app.test_client()
    assert _lang_of(client.get("/").get_data(as_text=True)) == "en"
    page = client.get("/", headers={"Accept-Language": "ja,en;q=0.5"}).get_data(as_text=True)
    assert _lang_of(page) == "ja" and "ログイン" in page
    # the switcher's cookie, signed out
    resp = client.post("/language", data={"code": "de", "next": "/check"})
    assert resp.status_code == 303 and resp.location.endswith("/check")
    page = client.get("/check", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert _lang_of(page) == "de" and 'name="code" value="ja" lang="ja"' in page
    # signed in, the account's choice wins over the cookie and the browser
    sign_up(client)
    client.post("/language", data={"code": "ja", "next": "/"})
    with app.app_context():
        assert db.session.scalar(db.select(User.locale)) == "ja"
    fresh = app.test_client()
    fresh.post("/signin", data={"email": "sam@example.com", "password": "secret-table-9"})
    assert _lang_of(fresh.get("/", headers={"Accept-Language": "de"}).get_data(
        as_text=True)) == "ja"
    # only a path of this site is a place to go back to
    resp = client.post("/language", data={"code": "en", "next": "//evil.example/"})
    assert resp.location == "/"


def test_the_command_line_reads_the_environment():
    assert environment_language({"LANG": "de_DE.UTF-8"}) == "de"
    assert environment_language({"LANGUAGE": "ja:en", "LANG": "de_DE.UTF-8"}) == "ja"
    assert environment_language({"LC_ALL": "C"}) == "en"
    assert environment_language({}) == "en"


# -- every page, in German and Japanese ------------------------------------------------------

def _english_sentences() -> list[str]:
    """The fixed parts (between placeholders) of every English message that reads
    differently in German and in Japanese, long enough to be a sentence or a phrase."""
    de = {_key(m): m.string for m in _catalogue("de") if m.id}
    found = set()
    for message in _template():
        if not message.id:
            continue
        ids = message.id if message.pluralizable else (message.id,)
        translated = de.get(_key(message))
        for text in ids:
            if translated in (text, (text,)):
                continue
            for part in re.split(r"%\(\w+\)[sd]|\{\w+\}|<[^>]*>", text):
                part = part.strip(" .,:;()“”\"'")
                if len(part) >= 14 and " " in part:
                    found.add(part)
    return sorted(found, key=len, reverse=True)


def visible_text(page: str) -> str:
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r"<[^>]+>", " ", page)
    return " ".join(html.unescape(page).split())


def _walk(app, lang: str) -> dict[str, str]:
    """Every page a night, a league and a dispute show, as read in ``lang``."""
    from app.services import leagues
    from app.services.sessions import ledger

    client = app.test_client()
    pages: dict[str, str] = {}
    header = {"Accept-Language": lang}

    def get(path: str, status: int = 200) -> None:
        resp = client.get(path, headers=header)
        assert resp.status_code == status, (path, resp.status_code)
        pages[path] = resp.get_data(as_text=True)

    for path in ("/", "/signin", "/signup", "/check"):
        get(path)
    client.post("/language", data={"code": lang})  # the switcher: what is flashed follows it too
    sign_up(client)
    with app.app_context():  # the language chosen before signing up is the account's
        assert db.session.scalar(db.select(User.locale)) == lang
    sid = start(client, players=("Ann", "Bob", "Cy", "Dee"))
    record(client, sid, kind="tonk_out", player="Ann", dealer="Dee")
    record(client, sid, kind="drop", player="Bob", dealer="Ann",
           **{"count-0": "12", "count-1": "9", "count-2": "9", "count-3": "20"})
    record(client, sid, kind="stock_out", dealer="Bob",
           **{"count-0": "5", "count-1": "9", "count-2": "12", "count-3": "3"})
    with app.app_context(), unit_of_work():
        gs = fetched(GameSession, sid)
        token = gs.share_token
        user = db.session.scalar(db.select(User))
        league = leagues.create_league(user, name="Thursday Tonk", rules="chicago",
                                       stake="0.50", currency="EUR")
        leagues.add_season(league, name="Early", starts_on="2025-01-01",
                           ends_on="2025-12-31")
        night = ledger.create_session(user, name="Night one", players=["Ann", "Bob", "Cy"],
                                      rules="pagat", stake="0.25", league_id=league.id)
        ledger.record_hand(night, user, {"end": {"kind": "run_out", "player": "Cy"}})
        lid = league.id
        pid = leagues.members(league)[0].id
        nid = night.id
    for path in ("/", "/sessions/new", f"/sessions/{sid}", f"/sessions/{sid}/hands/new",
                 f"/sessions/{sid}/hands/1", f"/sessions/{sid}/hands/2",
                 f"/sessions/{sid}/hands/2/correct", f"/sessions/{sid}/settle",
                 f"/sessions/{sid}/rules", "/account", "/account/password", f"/s/{token}",
                 f"/s/{token}/hands/2", "/leagues", "/leagues/new", f"/leagues/{lid}",
                 f"/leagues/{lid}/settings", f"/leagues/{lid}/players/{pid}",
                 f"/leagues/{lid}/hands?player={pid}&stat=hands_won",
                 f"/leagues/{lid}/sessions?player={pid}", "/import"):
        get(path)
    get("/sessions/999", 404)
    get(f"/leagues/{lid + 1}", 404)
    checked = client.post("/check", data=hand_form("pagat", "drop"), headers=header)
    get(checked.location.replace("http://localhost", ""))
    # forms sent with mistakes: the messages beside the fields
    bad = client.post("/sessions/new", headers=header,
                      data={"name": "", "stake": "-1", "currency": "USD", "preset": "pagat",
                            "player-0": "Ann", "first_dealer": "0"})
    pages["/sessions/new (errors)"] = bad.get_data(as_text=True)
    bad = client.post(f"/sessions/{sid}/hands/new", headers=header,
                      data={"kind": "drop", "player": "Bob", "count-0": "x"})
    pages["/hands/new (errors)"] = bad.get_data(as_text=True)
    pages.update(_walk_the_table(app, client, header, lid, pid, nid))
    return pages


def _walk_the_table(app, client, header: dict[str, str], lid: int, pid: int,
                    night_id: int) -> dict[str, str]:
    """The pages of changing seats: seats, side bets and their pots, a settle-up with a part
    payment and an undone one, a closed session with debts carried over (one marked paid),
    the archived sessions and a player's page with a debt, and their forms' errors."""
    from app.services.sessions import archive, debts, ledger, seats

    pages: dict[str, str] = {}

    def get(path: str) -> None:
        resp = client.get(path, headers=header)
        assert resp.status_code == 200, (path, resp.status_code)
        pages[path] = resp.get_data(as_text=True)

    def post(name: str, path: str, data: dict[str, str]) -> None:
        resp = client.post(path, headers=header, data=data)
        assert resp.status_code == 422, (name, resp.status_code)
        pages[name] = resp.get_data(as_text=True)
        assert 'role="alert"' in pages[name], name  # the message is shown, beside its field

    with app.app_context(), unit_of_work():
        user = db.session.scalar(db.select(User))
        gs = ledger.create_session(user, name="Side bets", players=["Ann", "Bob", "Cy"],
                                   rules="pagat", stake="1", currency="EUR",
                                   side_bets={"high_card": {"stake": "0.50"},
                                              "naturals": {"stake": "0.25"}})
        seats.change_seats(gs, user, join="Fay", after="Bob")
        ledger.record_hand(gs, user, {"end": {"kind": "tonk_out", "player": "Ann"},
                                      "side_bets": [{"bet": "high_card", "suit": "S",
                                                     "winner": "Bob"},
                                                    {"bet": "naturals"}]})
        ledger.record_hand(gs, user, {"end": {"kind": "run_out", "player": "Cy"},
                                      "side_bets": [{"bet": "naturals", "winner": "Cy"}]})
        ledger.record_hand(gs, user, {"end": {"kind": "run_out", "player": "Bob"},
                                      "side_bets": [{"bet": "naturals"}]})
        seats.change_seats(gs, user, leave="Fay")
        first = ledger.ledger_of(gs).transfers[0]
        kept = ledger.record_payment(gs, user, first.payer, first.payee, "0.10")
        undone = ledger.record_payment(gs, user, first.payer, first.payee, "0.05")
        ledger.undo_payment(gs, user, undone, "tapped twice")
        bid = gs.id
        night = fetched(GameSession, night_id)
        ledger.close_session(night, carry_over=True)
        carried = debts.debts_of_session(night_id)
        debts.mark_paid(user, carried[0].id)
        old = ledger.create_session(user, name="Old night", players=["Ann", "Bob"])
        archive.set_archived(old, True)
        yen = ledger.create_session(user, name="Yen", players=["Ann", "Bob"], stake="100",
                                    currency="JPY")
        ledger.record_hand(yen, user, {"end": {"kind": "tonk_out", "player": "Ann"}})
        yid = yen.id
    for path in (f"/sessions/{bid}", f"/sessions/{bid}/seats", f"/sessions/{bid}/hands/new",
                 f"/sessions/{bid}/hands/1", f"/sessions/{bid}/hands/2",
                 f"/sessions/{bid}/settle", f"/sessions/{bid}/settle?player=Fay",
                 f"/sessions/{night_id}", f"/sessions/{night_id}/settle",
                 "/sessions/archived", "/", f"/leagues/{lid}", f"/leagues/{lid}/players/{pid}",
                 f"/sessions/{yid}/settle"):
        get(path)
    post("/seats (errors)", f"/sessions/{bid}/seats", {"join": "Ann"})
    post("/payments (yen errors)", f"/sessions/{yid}/payments",
         {"payer": "Bob", "payee": "Ann", "amount": "0.5"})
    assert "JPY" in visible_text(pages["/payments (yen errors)"])  # the yen message
    post("/undo (errors)", f"/sessions/{bid}/payments/{kept}/undo", {"reason": " "})
    return pages


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_is_in_the_language(app, lang):
    sentences = _english_sentences()
    assert len(sentences) > 300
    left = {}
    for path, page in _walk(app, lang).items():
        assert _lang_of(page) == lang, path
        shown = visible_text(page)
        english = [s for s in sentences if s in shown]
        if english:
            left[path] = english[:5]
    assert not left, f"English left in {lang}: {json.dumps(left, indent=1)}"


# -- the settle API's explanations -----------------------------------------------------------

def _one_per_end() -> list[dict[str, Any]]:
    examples = json.loads(EXAMPLES.read_text())
    seen: dict[str, dict[str, Any]] = {}
    for example in examples:
        kind = example["hand"].get("end", {}).get("kind")
        if kind and kind not in seen and "error" not in example.get("expect", {}):
            seen[kind] = example
    return list(seen.values())


ENDS = _one_per_end()
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


@pytest.mark.skipif(not ENDS, reason="the shared examples are not here")
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("example", ENDS, ids=lambda e: e["hand"]["end"]["kind"])
def test_the_settle_api_explains_in_the_language(open_client, lang, example):
    english = open_client.post("/api/v1/settle", json=example["hand"]).get_json()
    resp = open_client.post("/api/v1/settle", json=example["hand"],
                            headers={"Accept-Language": lang})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["net"] == english["net"]  # the same ruling, only the words differ
    sentences = _english_sentences()
    for said, english_line in zip(body["explanation"], english["explanation"], strict=True):
        assert said != english_line or not re.search(r"[a-z]{4} [a-z]{4}", said), said
        assert not [s for s in sentences if s in said], said
        if lang == "ja":
            assert JAPANESE.search(said), said
    for payment in body["payments"]:
        if lang == "ja":
            assert JAPANESE.search(payment["rule"]), payment


@pytest.mark.parametrize("lang, words", [("de", "muss"), ("ja", "ください")])
def test_api_errors_are_in_the_language(open_client, lang, words):
    resp = open_client.post("/api/v1/settle", json={"players": "Ann"},
                            headers={"Accept-Language": lang})
    assert resp.status_code == 422
    assert words in resp.get_json()["error"] and resp.get_json()["field"] == "players"


# -- money per locale and currency -----------------------------------------------------------

@pytest.mark.parametrize("amount, currency, locale, shown", [
    ("1234.50", "EUR", "de", "1.234,50\xa0€"),
    ("1235", "JPY", "ja", "￥1,235"),
    ("1234.5", "USD", "en", "$1,234.50"),
    ("1234.5", "chips", "de", "1.234,50 chips"),
])
def test_money_is_written_as_the_locale_writes_it(amount, currency, locale, shown):
    assert format_money(Decimal(amount), currency, locale) == shown


def test_a_currency_has_its_own_decimal_places():
    assert currency_places("JPY") == 0 and currency_places("jpy") == 0
    assert currency_places("EUR") == 2 and currency_places("$") == 2
    money = resolve_rules("pagat")
    assert parse_stake("500", money, "JPY") == Decimal("500.00")
    with pytest.raises(HandError) as caught:
        parse_stake("0.5", money, "JPY")
    assert caught.value.field == "stake" and "JPY" in caught.value.message
    assert parse_stake("0.5", money, "EUR") == Decimal("0.50")


def test_a_yen_stake_of_half_a_yen_is_refused_beside_the_field(app):
    client = app.test_client()
    sign_up(client)
    resp = client.post("/sessions/new", headers={"Accept-Language": "ja"},
                       data={"name": "夜", "stake": "0.5", "currency": "JPY",
                             "preset": "pagat", "player-0": "Ann", "player-1": "Bob",
                             "first_dealer": "0"})
    assert resp.status_code == 422
    assert 'id="err-stake">JPYの賭け金は整数です' in unphrased(resp.get_data(as_text=True))
    sid = start(client, stake="500", currency="JPY")
    page = client.get(f"/sessions/{sid}", headers={"Accept-Language": "ja"})
    assert "￥500" in page.get_data(as_text=True)


def test_a_stored_hand_is_read_in_the_language_of_the_api_reader(app):
    from tests.clients import Api, account

    api = Api(app.test_client(), account(app, "ann@example.com", "Ann"))
    sid = api.start()
    stored = api.ok("POST", f"/sessions/{sid}/hands",
                    {"end": {"kind": "drop", "player": "Bob"},
                     "counts": {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 20}}, 201)
    assert "caught" in " ".join(stored["result"]["explanation"])  # stored in English
    german = api("GET", f"/sessions/{sid}/hands/1", headers={"Accept-Language": "de"})
    result = german.get_json()["result"]
    assert "gefangen" in " ".join(result["explanation"])
    assert all("Standardfang" in p["rule"] for p in result["payments"])
    assert [p["amount"] for p in result["payments"]] == \
        [p["amount"] for p in stored["result"]["payments"]]
    # the token's account chose Japanese: its answers follow, whatever the header says
    with app.app_context(), unit_of_work():
        from app.services.accounts import set_locale

        set_locale(db.session.scalar(db.select(User)), "ja")
    japanese = api("GET", f"/sessions/{sid}/hands/1", headers={"Accept-Language": "de"})
    assert "捕まった" in " ".join(japanese.get_json()["result"]["explanation"])


def test_numbers_in_sentences_follow_the_language_and_data_does_not(open_client):
    hand = {"rules": "pagat", "stake": "0.25", "players": ["Ann", "Bob", "Cy"],
            "end": {"kind": "drop", "player": "Bob"}, "counts": {"Ann": 12, "Bob": 9, "Cy": 9}}
    body = open_client.post("/api/v1/settle", json=hand,
                            headers={"Accept-Language": "de"}).get_json()
    assert "Bob zahlt Cy 0,50" in " ".join(body["explanation"])
    assert body["net"] == {"Ann": "-0.25", "Bob": "-0.50", "Cy": "0.75"}
    assert [p["amount"] for p in body["payments"]] == ["0.50", "0.25"]


def test_yen_payments_and_side_bet_stakes_are_whole_beside_their_field(app):
    from tests.clients import Api, account, api_error

    api = Api(app.test_client(), account(app, "ann@example.com", "Ann"))
    resp = api("POST", "/sessions", {"name": "夜", "players": ["Ann", "Bob"], "stake": "100",
                                     "currency": "JPY",
                                     "side_bets": {"high_card": {"stake": "0.5"}}})
    api_error(resp, 422, "side_bets.high_card.stake", "a side bet's stake in JPY is a whole")
    sid = api.start(stake="100", currency="JPY", side_bets={"high_card": {"stake": "50"}})
    api.ok("POST", f"/sessions/{sid}/hands", {"end": {"kind": "tonk_out", "player": "Ann"}},
           201)
    resp = api("POST", f"/sessions/{sid}/payments",
               {"from": "Bob", "to": "Ann", "amount": "0.5"})
    api_error(resp, 422, "amount", "the amount in JPY is a whole amount")
    german = api("POST", f"/sessions/{sid}/payments",
                 {"from": "Bob", "to": "Ann", "amount": "0.5"},
                 headers={"Accept-Language": "de"})
    api_error(german, 422, "amount", "der Betrag in JPY ist ein ganzer Betrag")
    api.ok("POST", f"/sessions/{sid}/payments", {"from": "Bob", "to": "Ann", "amount": "100"})


def test_side_bet_lines_are_read_in_the_language_of_the_reader(app):
    from tests.clients import Api, account

    api = Api(app.test_client(), account(app, "ann@example.com", "Ann"))
    sid = api.start(side_bets={"naturals": {"stake": "0.10"}})
    for winner in (None, "Cy"):
        german = api("POST", f"/sessions/{sid}/hands",
                     {"end": {"kind": "tonk_out", "player": "Ann"},
                      "side_bets": [{"bet": "naturals", "winner": winner}]},
                     headers={"Accept-Language": "de"})
        assert german.status_code == 201, german.get_json()
    for number, english in ((1, "Nobody won it: the pot of 0.40 carries"),
                            (2, "Cy wins the pot: 0.80 (0.40 of it carried over")):
        stored = api.ok("GET", f"/sessions/{sid}/hands/{number}")["result"]["side_bets"]
        assert english in " ".join(stored[0]["explanation"])  # stored in English
        for lang, words in (("de", "Kasse"), ("ja", "ポット")):
            read = api("GET", f"/sessions/{sid}/hands/{number}",
                       headers={"Accept-Language": lang}).get_json()["result"]["side_bets"]
            assert words in " ".join(read[0]["explanation"]), read
            assert read[0]["net"] == stored[0]["net"] and read[0]["pot"] == stored[0]["pot"]


# -- the language switcher's way back ------------------------------------------------------

def test_a_way_back_with_a_line_break_or_a_backslash_goes_home(client):
    for target in ("/%0A", "/%0D%0ASet-Cookie:%20x=1", "/%09", "/\\evil.example", "/%5Cevil"):
        resp = client.post("/language", data={"code": "de", "next": unquote(target)})
        assert resp.status_code == 303, target
        assert resp.location == "/", (target, resp.location)
    assert client.post("/language", data={"code": "de", "next": "/check"}).location == "/check"


# -- the language changes only by a POST from this site ------------------------------------

def test_the_language_changes_only_by_a_post_from_this_site(app_with_csrf):
    app = app_with_csrf
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    form = matched(r'<form method="post" action="/language".*?</form>', page, re.S).group(0)
    assert 'name="csrf_token"' not in form  # signed out: no session cookie for a switcher
    assert client.get_cookie("session") is None
    resp = client.post("/language", data={"code": "de", "next": "/check"})
    assert resp.status_code == 303 and resp.location == "/check"
    assert _lang_of(client.get("/check").get_data(as_text=True)) == "de"
    token = matched(r'name="csrf_token"[^>]*value="([^"]+)"',
                    client.get("/signup").get_data(as_text=True)).group(1)
    assert client.post("/signup", data={"name": "Sam", "email": "sam@example.com",
                                        "password": "secret-table-9",
                                        "csrf_token": token}).status_code == 302
    page = client.get("/").get_data(as_text=True)
    form = matched(r'<form method="post" action="/language".*?</form>', page, re.S).group(0)
    token = matched(r'name="csrf_token"[^>]*value="([^"]+)"', form).group(1)
    for code in ("en", "de", "ja"):
        assert f'<button class="link" name="code" value="{code}" lang="{code}"' in form

    # an image or a link elsewhere: nothing changes
    assert client.get("/language/ja").status_code == 404
    assert client.get("/language?code=ja").status_code == 405
    # a form elsewhere (no token of this site's): refused, nothing changes
    assert client.post("/language", data={"code": "ja"}).status_code == 400
    assert client.post("/language", data={"code": "ja", "csrf_token": "forged"}
                       ).status_code == 400
    with app.app_context():
        assert db.session.scalar(db.select(User.locale)) == "de"  # chosen before signing up
    resp = client.post("/language", data={"code": "ja", "next": "/sessions/new",
                                          "csrf_token": token})
    assert resp.status_code == 303 and resp.location == "/sessions/new"
    with app.app_context():
        assert db.session.scalar(db.select(User.locale)) == "ja"
    assert _lang_of(client.get("/sessions/new").get_data(as_text=True)) == "ja"


@pytest.fixture
def app_with_csrf(tmp_path, sqlite_schema):
    app = make_app(sqlite_copy(sqlite_schema, tmp_path), WTF_CSRF_ENABLED=True)
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
