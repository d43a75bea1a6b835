"""The dispute checker for anyone at the table, no account needed: ``/check``.

The form is the record-hand form's fields (_hand.html) with the players, the
stake and the house rules (the session form's rules part). A hand that settles is sent on to
its permalink, ``/check?hand=<base64url of the hand's JSON>``, which shows the ruling, its
explanation, the source behind each payment, a QR code of the link and the same hand under
every preset. Nothing is stored.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import segno
from flask import redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from markupsafe import Markup

from ...core import PlayedHand, Result, Rules, TonkError, parse_hand, resolve_rules, settle
from ...core.compare import compare
from ...core.hand import MAX_PLAYERS
from ...core.handform import Asks
from ...core.sources import Source, ruling_sources, source_of
from ...core.tableform import MAX_PLAYERS_TEXT, check_of_form, player_list, rules_field
from ..shared import bp
from ..shared.fields import hand_fields_context, rules_context
from ..shared.forms import (
    Errors,
    HandValues,
    RulesValues,
    hand_field,
    picker_words,
    problem_words,
    read_hand_form,
    read_rules,
)
from ..shared.links import decode_data, encode_data
from ..shared.present import hand_line, ruling_rows


@dataclass(frozen=True)
class SourcedPayment:
    """A payment with the rule that made it and where that rule is written."""

    payer: str
    payee: str
    amount: Decimal
    rule: str
    source: Source


def sourced_payments(result: Result) -> list[SourcedPayment]:
    """Each payment of a ruling with the rule behind it and where that rule is written."""
    rules = result.hand.rules
    return [SourcedPayment(p.payer, p.payee, p.amount, p.rule, source_of(rules, p.key))
            for p in result.payments]


def encode_hand(hand: PlayedHand) -> str:
    """The permalink's ``hand``: the hand's JSON (docs/rules.md §1), base64url without padding."""
    return encode_data(hand.to_json())


def decode_hand(token: str) -> Any:
    """``?hand=`` back to JSON-like data; ValueError when it is not such a link."""
    return decode_data(token)


class CheckForm:
    """What the checker's form shows and reads: players, stake, rules and the hand."""

    def __init__(self, players: str = "", stake: str = "1",
                 rules: RulesValues | None = None, hand: HandValues | None = None) -> None:
        self.players, self.stake = players, stake
        self.rules = rules or RulesValues()
        self.hand = hand or HandValues()

    @classmethod
    def of_hand(cls, hand: PlayedHand) -> CheckForm:
        data = hand.to_json()
        return cls(", ".join(hand.players), str(hand.stake), RulesValues.of(hand.rules),
                   HandValues.of_hand(data, hand.players))


def read_check_form(form: Any) -> tuple[CheckForm, Rules, dict[str, Any], Errors]:
    """The form → (what to show again, the rules it is drawn for, the hand, errors). The hand
    is the core's reading (:func:`app.core.tableform.check_of_form`, as the phone reads it
    with no signal); here only what the form shows again and the errors in the reader's
    words."""
    read = check_of_form(form)
    values, _spec, errors = read_rules(form)
    errors.update({field: exc.message for field, exc in read.refused.items()})
    hand_values, _data, hand_errors = read_hand_form(form, read.names, read.rules,
                                                     Asks.of(read.rules))
    check = CheckForm(form.get("players", "")[:MAX_PLAYERS_TEXT], read.hand["stake"] or "",
                      values, hand_values)
    return check, read.rules, read.hand, {**errors, **hand_errors}


def _page(check: CheckForm, rules: Rules, errors: Errors, result: Result | None = None,
          link: str | None = None) -> ResponseReturnValue:
    names = player_list(check.players)
    context: dict[str, Any] = {}
    if result is not None and link is not None:
        hand = result.hand
        payments = sourced_payments(result)
        data = hand.to_json()
        context = {
            "result": result, "outcome": hand_line(result.outcome, result.winners, data),
            "payments": payments,
            "sources": ruling_sources(result), "scoring": hand.rules.scoring,
            "net_values": list((result.pushed or result.net or {}).items()),
            "net_data": {name: str(value) for name, value in (
                result.to_json().get("net") or result.pushed or {}).items()},
            "permalink": link, "rows": ruling_rows(compare(data), hand.players, data),
            "qr": Markup(segno.make(link, error="m").svg_inline(scale=3))}
    return render_template(
        "checker/check.html", check=check, values=check.hand, errors=errors,
        ready=bool(names) and "players" not in errors, **rules_context(check.rules, errors),
        **hand_fields_context(rules, names), **_offline_context(), **context
    ), 422 if errors else 200


def _offline_context() -> dict[str, Any]:
    """What the phone needs to draw the hand fields and say what is wrong with no signal
    (static/check-offline.js): every part of the fields, a seat for each placeholder name
    it fills in, the picker's words with the rules' numbers left to fill in (the rest of its
    data is the core's), and the form's own problems in the reader's words."""
    return {"blank": HandValues(), "seat_marks": [f"@@seat{i}@@" for i in range(MAX_PLAYERS)],
            "marked_config": {"msg": picker_words("{max}", "{size}")},
            "problem_words": problem_words()}


@bp.route("/check", methods=["GET", "POST"])
def check() -> ResponseReturnValue:
    if request.method == "POST":
        form, rules, data, errors = read_check_form(request.form)
        if request.form.get("step") == "setup" or not form.players.strip():
            if not form.players.strip():  # (either step: the hand needs its players first)
                errors = {"players": _("Write the players’ names, clockwise, with commas.")}
            return _page(form, rules, {k: v for k, v in errors.items()
                                       if k in ("players", "preset") or k.startswith("opt-")})
        if not errors:
            try:
                hand = parse_hand(data)
            except TonkError as exc:
                errors = {_check_field(exc, data["players"]): exc.message}
            else:
                return redirect(url_for(".check", hand=encode_hand(hand)))
        return _page(form, rules, errors)
    token = request.args.get("hand")
    if token is None:
        return _page(CheckForm(), resolve_rules(None), {})
    try:
        hand = parse_hand(decode_hand(token))
    except ValueError as exc:
        message = exc.message if isinstance(exc, TonkError) else _(
            "This link does not hold a hand: ask for it again, or enter the hand below.")
        return _page(CheckForm(), resolve_rules(None), {"form": message})
    link = url_for(".check", hand=token, _external=True)
    return _page(CheckForm.of_hand(hand), hand.rules, {}, settle(hand), link)


def _check_field(exc: TonkError, names: list[str]) -> str:
    """A domain error → the checker's field: its own fields, the rules' or the hand's."""
    if exc.field in ("players", "stake") or (exc.field or "").startswith("players["):
        return "players" if exc.field != "stake" else "stake"
    return rules_field(exc.field) or hand_field(exc, names)
