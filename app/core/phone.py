"""The core's one door for a phone with no signal: a JSON request in, a JSON
answer out, in the reader's language, for code that cannot import the app (the core runs
unchanged in Pyodide, in a Web Worker). The same function answers on the server's CPython,
and a test compares the two byte for byte (``tests/test_phone_core.py``).

A request is ``{"op": ..., "lang": "en"|"de"|"ja", ...}``:

- ``settle``: ``hand`` (docs/rules.md §1), or with ``table`` the rules, stake and players as a
  session gives them (``{"rules", "stake", "players"}``) → the result of docs/rules.md §8 and
  each payment's rule key;
- ``compare``: ``hand`` under its own rules and every preset (the dispute checker);
- ``transfers``: ``balances`` → the fewest transfers;
- ``night``: a table (``rules``, ``stake``, ``players``, optional ``side_bets`` and
  ``currency``) and its ``hands`` in order, each with its side-bet plays, folded as a
  session folds them (:mod:`app.core.night`: a hand with no dealer is dealt by the turn of
  the deal) → each hand's result (or refusal) and side bets, every player's running total
  (hands and side bets), what is left in the pots, what they give back, and the transfers
  that settle the night;
- ``record``: a session as its page last saw it (``table``: the server's kept ``night``, the
  core's state in its JSON form holding none of the hands, only what they made, and what
  payments ``moved``) and ``hands`` recorded since, each the record form's fields as
  ``[name, value]`` pairs (what the phone's outbox keeps and the server will read) → each
  hand's result and side bets (or refusal), the totals, pots and dealer after them and the
  fewest transfers that settle what is open: what the server will make of those hands;
- ``money``: ``amounts`` of ``currency`` → how each is written (data, the reader's
  language, signed);
- ``check_form``: the dispute checker's form (``/check``) as ``[name, value]`` pairs →
  the players, what the hand fields ask under the rules typed (or the preset's, while the
  options typed are refused) and the card picker's data, the hand the form gives (for
  ``compare``), the form's own problems (codes, by field) and the core's refusals (by
  field): what the server reads of the same form (:mod:`app.core.tableform`).

Bad input is an answer too: ``{"error", "field", "type"}``, never an exception. The
catalogues are the compiled ``messages.mo`` files, read with the standard library's
``gettext`` (:func:`catalogue_translator`).
"""
from __future__ import annotations

import gettext
import io
import json
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from .compare import compare
from .errors import TonkError
from .hand import parse_hand, parse_players
from .handform import Asks, Fields, chosen_of_form, hand_of_form, picker_data, read_side_bets
from .messages import Message, Translator, set_translator, translator_hooked
from .money import (
    MINUS,
    amount_formatter,
    currency_places,
    format_money,
    format_number,
    loads,
    money_data,
    parse_decimal,
    parse_stake,
    with_sign,
)
from .night import Night, apply, night_of_json, settled_hand, start
from .rules import resolve_rules
from .settle import settle
from .tableform import check_of_form
from .transfers import fewest_transfers, parse_balances

#: The languages a request may ask for (English is the catalogue as written).
LANGUAGES = ("en", "de", "ja")


def catalogue_translator(mo: bytes) -> Translator:
    """A translator of the core's messages from a compiled catalogue (``messages.mo``): the
    message id is the context, as ``pybabel`` extracts it (``app/i18n/extract.py``)."""
    found = gettext.GNUTranslations(io.BytesIO(mo))

    def translate(msg_id: str, template: str) -> str:
        return found.pgettext(msg_id, template)

    return translate


def door(translations: str) -> Callable[[str], str]:
    """:func:`answer_json` with the compiled catalogues of ``translations``
    (``<lang>/LC_MESSAGES/messages.mo``, as ``translations/`` holds them): what the Web
    Worker and the tests call."""
    translators = {}
    for lang in LANGUAGES[1:]:
        with open(f"{translations}/{lang}/LC_MESSAGES/messages.mo", "rb") as mo:
            translators[lang] = catalogue_translator(mo.read())
    return lambda text: answer_json(text, translators)


def answer(request: Mapping[str, Any], translators: Mapping[str, Translator]) -> dict[str, Any]:
    """The answer to one request (see the module), in ``request["lang"]``, with the
    ``translators`` of the languages other than English."""
    lang = request.get("lang", "en")
    if lang not in LANGUAGES or (lang != "en" and lang not in translators):
        return {"error": f"no language {lang!r}", "field": "lang", "type": "RequestError"}
    op = _OPS.get(request.get("op"))  # type: ignore[arg-type]
    if op is None:
        return {"error": f"no op {request.get('op')!r}", "field": "op", "type": "RequestError"}
    before = translator_hooked()
    set_translator(translators.get(lang) if lang != "en" else None, lambda: lang)
    try:
        return op(request)
    except TonkError as exc:
        return _refusal(exc)
    finally:
        set_translator(*before)


def answer_json(text: str, translators: Mapping[str, Translator]) -> str:
    """:func:`answer` for JSON text (numbers with a fraction read as Decimal), answered as
    JSON text: what the Web Worker sends and receives."""
    try:
        request = loads(text)
    except (ValueError, RecursionError) as exc:
        return dumps({"error": str(exc)[:120], "field": "body", "type": "RequestError"})
    if not isinstance(request, dict):
        return dumps({"error": "send a JSON object", "field": "body", "type": "RequestError"})
    return dumps(answer(request, translators))


def dumps(answer: Mapping[str, Any]) -> str:
    """An answer as JSON text, the same bytes on every Python."""
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":"))


def _refusal(exc: TonkError) -> dict[str, Any]:
    return {"error": str(exc), "field": exc.field, "type": type(exc).__name__}


def _settle(request: Mapping[str, Any]) -> dict[str, Any]:
    data, table = request.get("hand"), request.get("table")
    if table is None:
        hand = parse_hand(data)
    else:
        rules = resolve_rules(table.get("rules"))
        hand = parse_hand(data, rules=rules, stake=parse_stake(table.get("stake"), rules),
                          players=parse_players(table.get("players")))
    result = settle(hand)
    return {"result": result.to_json(), "keys": [p.key for p in result.payments]}


def _compare(request: Mapping[str, Any]) -> dict[str, Any]:
    hand = request.get("hand")
    if not isinstance(hand, Mapping):
        return _settle(request)  # the same refusal as a hand that is not an object
    return {"results": [ruling.to_json() for ruling in compare(hand)]}


def _transfers(request: Mapping[str, Any]) -> dict[str, Any]:
    balances = parse_balances(request.get("balances"))
    return {"transfers": [{"from": t.payer, "to": t.payee, "amount": str(t.amount)}
                          for t in fewest_transfers(balances)]}


def _night(request: Mapping[str, Any]) -> dict[str, Any]:
    """A table's hands in order, folded as a session folds them (:mod:`app.core.night`): a
    refused hand counts nothing; what is left in the pots goes back at settle-up."""
    night = start({"kind": "started", **{key: request.get(key) for key in (
        "rules", "stake", "currency", "players", "side_bets")}})
    hands: list[dict[str, Any]] = []
    for data in request.get("hands") or ():
        try:
            night, shown = _counted(night, data)
        except TonkError as exc:
            shown = _refusal(exc)
        hands.append(shown)
    fmt = amount_formatter(night.rules, night.currency)
    money = night.money()
    return {"hands": hands,
            "totals": {n: fmt(m.hands + m.side_bets) for n, m in money.items()},
            "pots": {bet: fmt(pot.total) for bet, pot in night.pots.items()},
            "returned": {n: fmt(m.pots_back) for n, m in money.items() if m.pots_back},
            "transfers": _transfers({"balances": night.open()})["transfers"]}


def _counted(night: Night, data: Any) -> tuple[Night, dict[str, Any]]:
    """One hand folded into the night: the night after it, and the hand as an answer shows
    it (its result, and its side bets' outcomes if it played any)."""
    result, _stored = settled_hand(night, data)
    night = apply(night, {"kind": "hand", "hand": data})
    outcomes = night.hands[-1].outcomes
    shown = {"result": result.to_json()}
    return night, {**shown, "side_bets": list(outcomes)} if outcomes else shown


def _money(request: Mapping[str, Any]) -> dict[str, Any]:
    currency, lang = request.get("currency"), request.get("lang", "en")
    out = []
    for i, value in enumerate(request.get("amounts") or ()):
        amount = parse_decimal(value, TonkError, Message("api.payment_amount", value=repr(value)),
                               f"amounts[{i}]")
        out.append({"data": money_data(amount, currency),
                    "shown": format_money(amount, currency, lang),
                    "signed": with_sign(amount, format_number(amount, 2, lang))})
    return {"amounts": out}


def _form_hand(fields: Any, night: Night, spec: Mapping[str, Any]) -> dict[str, Any]:
    """The record form's fields → the hand the ledger reads (its side bets too), or the
    form's first problem as a refusal."""
    form = Fields(fields)
    data, problems = hand_of_form(form, night.seated, night.rules)
    if problems:
        field, problem = next(iter(problems.items()))
        raise TonkError(problem, field)
    plays, _bets = read_side_bets(chosen_of_form(form, spec, night.seated))
    return {**data, "side_bets": plays} if plays else data


def _record(request: Mapping[str, Any]) -> dict[str, Any]:
    """Hands recorded on the phone after the state its page last saw, folded into it as the
    server folds a hand recorded after all the others (:mod:`app.core.night`): what the
    server will make of those hands."""
    table, lang = request.get("table") or {}, request.get("lang", "en")
    kept = table.get("night") if isinstance(table, Mapping) else None
    try:
        night = night_of_json(kept)  # type: ignore[arg-type]
    except (KeyError, TypeError, AttributeError, ArithmeticError):
        return {"error": "send the table's kept night", "field": "table", "type": "RequestError"}
    spec = kept.get("side_bets") or {}  # type: ignore[union-attr]
    hands: list[dict[str, Any]] = []
    for fields in request.get("hands") or ():
        try:
            data = _form_hand(fields, night, spec)
            night, shown = _counted(night, data)
        except TonkError as exc:
            hands.append(_refusal(exc))
            continue
        deal = night.hands[-1]
        hands.append({"number": deal.number, "dealer": deal.data["dealer"], **shown})
    currency, scoring = night.currency, night.scoring
    places = currency_places(currency) if scoring == "money" else 0

    def written(value: Decimal) -> dict[str, str]:
        text = format_number(abs(value), places, lang)
        return {"data": str(value), "shown": text if scoring == "push_ups"
                else with_sign(value, text)}

    money = night.money()
    moved = {n: Decimal(str(v)) for n, v in (table.get("moved") or {}).items()}
    rows = [{"name": n, "hands": written(m.hands), "side_bets": written(m.side_bets),
             "returned": written(m.pots_back), "total": written(m.total)}
            for n, m in money.items()]
    open_ = {n: str(m.total + moved.get(n, Decimal(0))) for n, m in money.items()}
    return {"hands": hands, "rows": rows, "dealer": night.dealer,
            "pots": {bet: _money_shown(pot.total, currency, lang, scoring)
                     for bet, pot in sorted(night.pots.items()) if pot.total},
            "transfers": [] if scoring == "push_ups" else [
                {**t, "shown": _money_shown(Decimal(t["amount"]), currency, lang, scoring)}
                for t in _transfers({"balances": open_})["transfers"]]}


def _money_shown(amount: Decimal, currency: str | None, lang: str, scoring: str) -> str:
    """An amount with its currency as the pages write it (points: the number alone)."""
    if scoring != "money":
        return format_number(amount, 0, lang).replace("-", MINUS)
    return format_money(amount, currency, lang)


def _check_form(request: Mapping[str, Any]) -> dict[str, Any]:
    """The dispute checker's form, read as the server reads it."""
    fields = request.get("fields")
    if not isinstance(fields, list) or not all(
            isinstance(f, list) and len(f) == 2 and all(isinstance(v, str) for v in f)
            for f in fields):
        return {"error": "send the form as [name, value] pairs of text", "field": "fields",
                "type": "RequestError"}
    read = check_of_form(Fields(fields))
    asks = Asks.of(read.rules)
    return {"players": read.names, "scoring": read.rules.scoring, "asks": asks.to_json(),
            "picker": picker_data(read.rules, asks), "hand": read.hand,
            "problems": read.problems,
            "refused": {field: exc.message for field, exc in read.refused.items()}}


_OPS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "settle": _settle, "compare": _compare, "transfers": _transfers, "night": _night,
    "record": _record, "money": _money, "check_form": _check_form,
}
