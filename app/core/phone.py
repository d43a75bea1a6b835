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
- ``events``: a night kept on the phone as the core's events (:mod:`app.core.night`, as
  ``PUT /api/v1/nights/{uid}/events`` takes them), and optionally one more to ``add`` or
  the form to read it from (``start``: the new-session form's fields; ``hand``: the record
  form's fields; ``correct``: the correct form's, with ``correcting`` the hand whose form
  to show; ``rules``: the house-rules form's), as ``[name, value]`` pairs → the event read
  from the form (or the form's problems: its own by code, ``problems``, and for the
  new-session form every refusal of the core at once, ``refusals``, each by field), each
  event's refusal (by its index), and the night folded: its state
  (:func:`night_json`), each player's money by part as data and as written, the hands, who
  deals next, the fewest transfers of what is open (and whether all is paid), the rules as
  the house-rules form shows them and what the hand fields ask under the night's rules;
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
from .handform import (
    Asks,
    Fields,
    chosen_of_form,
    form_whole,
    hand_of_form,
    picker_data,
    read_side_bets,
    side_bet_field,
)
from .messages import Message, Translator, as_sent, set_translator, translator_hooked
from .money import (
    MINUS,
    amount_formatter,
    currency_places,
    format_money,
    format_number,
    from_minor,
    loads,
    money_data,
    parse_decimal,
    parse_stake,
    with_sign,
)
from .names import change_reason, session_name
from .night import Deal, Night, apply, night_json, night_of_json, settled_hand, start
from .restate import reworded_side_bets
from .rules import resolve_rules
from .settle import settle
from .sidebets import parse_plays, side_bets_json
from .tableform import (
    amount_text,
    check_of_form,
    option_text,
    rules_field,
    rules_of_form,
    session_form_field,
    session_of_form,
    session_refusals,
    spec_of_options,
)
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
        return {"error": f"no language {as_sent(lang)}", "field": "lang", "type": "RequestError"}
    op = _OPS.get(request.get("op"))  # type: ignore[arg-type]
    if op is None:
        return {"error": f"no op {as_sent(request.get('op'))}", "field": "op",
                "type": "RequestError"}
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
        amount = parse_decimal(value, TonkError,
                               Message("api.payment_amount", value=as_sent(value)), f"amounts[{i}]")
        out.append({"data": money_data(amount, currency),
                    "shown": format_money(amount, currency, lang),
                    "signed": with_sign(amount, format_number(amount, 2, lang))})
    return {"amounts": out}


def _form_hand(fields: Any, night: Night, spec: Mapping[str, Any],
               deal: Deal | None = None) -> dict[str, Any]:
    """The record form's fields → the hand the ledger reads (its side bets too), or the
    form's first problem as a refusal; for the correction of ``deal``, read as the hand's
    own players and rules (as the server's correct form reads it)."""
    form = Fields(fields)
    names = night.seated if deal is None else deal.players
    rules = night.rules if deal is None else resolve_rules(deal.data["rules"])
    data, problems = hand_of_form(form, names, rules)
    if problems:
        field, problem = next(iter(problems.items()))
        raise TonkError(problem, field)
    plays, bets = read_side_bets(chosen_of_form(form, spec, names))
    if plays:  # checked here, to name the line's field (the fold would say side_bets[0])
        try:
            parse_plays(plays, night.enabled, names)
        except TonkError as exc:
            raise TonkError(exc.said, side_bet_field(exc.field, bets) or exc.field) from exc
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
    written = _writer(night, lang)
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


def _writer(night: Night, lang: str) -> Callable[[Decimal], dict[str, str]]:
    """How a night's amounts are written: as data (the API's decimal) and as the page shows
    them (signed, in the reader's language; push-ups unsigned)."""
    scoring = night.scoring
    places = currency_places(night.currency) if scoring == "money" else 0

    def written(value: Decimal) -> dict[str, str]:
        text = format_number(abs(value), places, lang)
        return {"data": str(value), "shown": text if scoring == "push_ups"
                else with_sign(value, text)}

    return written


def _events(request: Mapping[str, Any]) -> dict[str, Any]:
    """A night kept on the phone as its events, folded as the server folds them when they
    are sent (:func:`app.core.night.fold`), with one more event read from a form or given
    (``add``), checked against the night: what the phone's night page shows and keeps."""
    events, lang = request.get("events") or [], request.get("lang", "en")
    if not isinstance(events, list):
        return {"error": "send the events as a list", "field": "events",
                "type": "RequestError"}
    night: Night | None = None
    refused: dict[str, Any] = {}
    if not all(isinstance(event, Mapping) for event in events):
        return {"error": "send each event as an object", "field": "events",
                "type": "RequestError"}
    for index, event in enumerate(events):
        try:
            night = start(event) if night is None else apply(night, event)
        except TonkError as exc:
            refused[str(index)] = _refusal(exc)
    answer: dict[str, Any] = {"refused": refused}
    try:
        added = _added(request, night)
        if added is not None:
            night = start(added) if night is None else apply(night, added)
            answer["added"] = added
    except _BadRequest as exc:
        return {"error": "send the form as [name, value] pairs of text", "field": str(exc),
                "type": "RequestError"}
    except _FormProblems as exc:
        answer.update(added=None, problems=exc.problems)
        if exc.refused:
            answer["refusals"] = {field: e.message for field, e in exc.refused.items()}
    except TonkError as exc:
        answer.update(added=None, refusal=_refusal(exc))
    if night is None:
        return {**answer, "night": None}
    if request.get("correcting") is not None:
        try:
            answer["correcting"] = _correcting(night, request["correcting"], lang)
        except TonkError as exc:
            answer["correcting"] = _refusal(exc)
    written = _writer(night, lang)
    fmt = amount_formatter(night.rules, night.currency)
    asks = Asks.of(night.rules)

    def shown(amount: Any) -> str:
        return _money_shown(Decimal(amount), night.currency, lang, night.scoring)
    spec = side_bets_json(night.bets)  # (hands' side-bet lines worded as the server's page)
    left = night.open()
    return {**answer, "night": night_json(night),
            "rows": [{"name": n, "seated": n in night.seated, "hands": written(m.hands),
                      "side_bets": written(m.side_bets), "returned": written(m.pots_back),
                      "total": written(m.total), "data": fmt(m.total)}
                     for n, m in night.money().items()],
            "hands": [{"number": d.number, "dealer": d.data.get("dealer"),
                       "end": d.data.get("end"), "voided": d.voided,
                       "version": d.version, "corrected": d.version > 1 and not d.voided,
                       "multiplier": d.data.get("multiplier", 1),
                       "nets": {n: written(from_minor(v))["shown"] for n, v in d.nets.items()},
                       "side_bets": [{**o, "pot_shown": shown(o["pot"])} for o in
                                     reworded_side_bets(d.outcomes, spec, night.scoring,
                                                        night.currency)]}
                      for d in night.hands],
            "pots": {bet: shown(pot.total) for bet, pot in sorted(night.pots.items())
                     if pot.total},
            "players": list(night.seated), "dealer": night.dealer, "scoring": night.scoring,
            "transfers": [] if night.scoring == "push_ups" else [
                {**t, "shown": shown(t["amount"])}
                for t in _transfers({"balances": left})["transfers"]],
            "asks": asks.to_json(), "picker": picker_data(night.rules, asks),
            "rules": _rules_shown(night), "all_paid": not any(left.values()),
            "side_bets": _bets_shown(night, lang)}


def _added(request: Mapping[str, Any], night: Night | None) -> dict[str, Any] | None:
    """The event to add: given, or read from the new-session form (``start``) or the record
    form (``hand``)."""
    if request.get("start") is not None:
        return _started_of_form(_pairs(request["start"], "start"))
    if request.get("hand") is not None:
        if night is None:
            raise TonkError(Message("night.event", kind="'hand'"), "kind")
        return {"kind": "hand", "hand": _form_hand(_pairs(request["hand"], "hand"), night,
                                                   side_bets_json(night.enabled))}
    if request.get("rules") is not None:
        if night is None:
            raise TonkError(Message("night.event", kind="'rules'"), "kind")
        return _rules_of_form(_pairs(request["rules"], "rules"), night)
    if request.get("correct") is not None:
        if night is None:
            raise TonkError(Message("night.event", kind="'corrected'"), "kind")
        return _corrected_of_form(_pairs(request["correct"], "correct"), night)
    added = request.get("add")
    if added is not None and not isinstance(added, Mapping):
        raise _BadRequest("add")
    if added is not None and added.get("kind") in ("voided", "undone"):
        return {**added, "reason": change_reason(added.get("reason"))}  # (as the server asks)
    return dict(added) if added is not None else None


def _corrected_of_form(fields: list[list[str]], night: Night) -> dict[str, Any]:
    """The correct form (the hand's fields, its ``number``, the ``version`` it was made from
    and the ``reason``) → the night's ``corrected`` event; the hand read as its own players
    and rules, as the server's correct form reads it."""
    form = Fields(fields)
    deal = night.hand(form_whole(form.get("number", "")))  # type: ignore[arg-type]
    version = form_whole(form.get("version", "")) if form.get("version") else deal.version
    hand = _form_hand(fields, night, side_bets_json(night.enabled), deal)
    return {"kind": "corrected", "number": deal.number, "version": version,
            "hand": hand, "reason": change_reason(form.get("reason", ""))}


def _rules_of_form(fields: list[list[str]], night: Night) -> dict[str, Any]:
    """The house-rules form (``/sessions/<id>/rules``: the preset, the options typed, the
    stake; an empty stake keeps the night's) → the night's ``rules`` event, checked against
    the night (a refusal names the form's field)."""
    form = Fields(fields)
    spec, problems = rules_of_form(form)
    if problems:
        raise _FormProblems(problems)
    event: dict[str, Any] = {"kind": "rules", "rules": spec}
    stake = amount_text(form.get("stake", ""))
    if stake:
        event["stake"] = stake
    try:
        apply(night, event)
    except TonkError as exc:
        raise TonkError(exc.said, rules_field(exc.field) or exc.field) from exc
    return event


def _rules_shown(night: Night) -> dict[str, Any]:
    """The night's rules as the house-rules form shows them: the preset, the options that
    differ from it (as typed) and the stake."""
    rules = night.rules
    return {"preset": rules.preset, "stake": str(night.stake),
            "options": {n: option_text(n, v) for n, v in rules.overrides().items()}}


def _correcting(night: Night, number: Any, lang: str) -> dict[str, Any]:
    """What the correct form of hand ``number`` shows: the hand as it stands (pre-filled),
    its version, and its players and what its rules ask (the fields drawn for them)."""
    deal = night.hand(number)
    asks = Asks.of(resolve_rules(deal.data["rules"]))
    return {"number": deal.number, "version": deal.version, "hand": dict(deal.data),
            "players": list(deal.players), "asks": asks.to_json(),
            "picker": picker_data(resolve_rules(deal.data["rules"]), asks),
            "side_bets": _bets_shown(night, lang)}


def _bets_shown(night: Night, lang: str) -> list[dict[str, Any]]:
    """The side bets the night plays now, as the hand form's lines show them: each bet, its
    stake as written and the suit if the table fixes it."""
    return [{"bet": bet, "suit": rule.suit,
             "stake": _money_shown(rule.stake, night.currency, lang, night.scoring)}
            for bet, rule in night.enabled.items()]


class _FormProblems(Exception):
    """A form's own problems (codes by field, as :mod:`.tableform` gives them), and the
    core's refusals of the whole form by field (the new-session form's)."""

    def __init__(self, problems: Mapping[str, str],
                 refused: Mapping[str, TonkError] | None = None) -> None:
        super().__init__(problems)
        self.problems = dict(problems)
        self.refused = dict(refused or {})


def _pairs(fields: Any, name: str) -> list[list[str]]:
    if not _is_pairs(fields):
        raise _BadRequest(name)
    return list(fields)


def _is_pairs(fields: Any) -> bool:
    return isinstance(fields, list) and all(
        isinstance(f, list) and len(f) == 2 and all(isinstance(v, str) for v in f)
        for f in fields)


class _BadRequest(Exception):
    """A request the op cannot read: the answer names its ``field``."""


def _started_of_form(fields: list[list[str]]) -> dict[str, Any]:
    """The new-session form (``/sessions/new``, the same fields) → the night's ``started``
    event: the players in seat order (empty seats skipped), the first dealer by seat, the
    rules and the side bets played as the core reads the form (:mod:`.tableform`), checked
    by the core's start (a refusal names the form's field)."""
    read = session_of_form(Fields(fields))
    refused = session_refusals(read)
    if read.problems or refused:
        raise _FormProblems(read.problems, refused)
    started: dict[str, Any] = {
        "kind": "started", "name": session_name(read.name), "players": read.players,
        "rules": read.spec, "stake": read.stake, "currency": read.currency or None,
        "dealer": read.dealer}
    side_bets = spec_of_options(read.side_bets)
    if side_bets:
        started["side_bets"] = side_bets
    if read.league:
        started["league"] = read.league_id if read.league_id is not None else read.league
    try:
        start(started)
    except TonkError as exc:
        raise TonkError(exc.said, session_form_field(exc.field, read.seats) or exc.field
                        ) from exc
    return started


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
    "record": _record, "money": _money, "check_form": _check_form, "events": _events,
}
