"""A session's own forms: the new-session form (its seats, stake, currency, house rules and
league) → the arguments of ``create_session``, and a domain error's ``field`` → the field of
the new-session or house-rules form beside which it is shown. (The parts other areas show too,
the house rules and a hand, are :mod:`app.web.shared.forms`.)"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from flask_babel import gettext as _

from ...core.tableform import MAX_SEATS as MAX_SEATS  # (the form's seats, for the page)
from ...core.tableform import (
    Options,
    options_of_spec,
    rules_field,
    session_form_field,
    session_of_form,
    session_refusals,
    spec_of_options,
)
from ..shared.forms import Errors, Form, RulesValues, rules_problems, rules_typed

FEW_SEATS = 4  # seats shown at once; the rest fold away


@dataclass
class SessionValues:
    """What the new-session form shows: a name, up to eight seats, the first dealer's seat,
    stake, currency and house rules."""

    name: str = ""
    players: list[str] = field(default_factory=lambda: [""] * MAX_SEATS)
    first_dealer: int = 0
    stake: str = "1.00"
    currency: str = "USD"
    rules: RulesValues = field(default_factory=RulesValues)
    league: str = ""  # the league's id, or "" for a session of the account's own
    side_bets: Options = field(default_factory=lambda: options_of_spec(None))


def read_session_form(form: Form) -> tuple[SessionValues, dict[str, Any], Errors]:
    """The new-session form → (what to show again, arguments of ``create_session``,
    errors). Empty seats are skipped; the first dealer is chosen by seat. The reading and
    every refusal of it at once are the core's (:func:`app.core.tableform.session_of_form`
    and ``session_refusals``, as the phone reads it); the league is the page's."""
    read = session_of_form(form)
    errors = rules_problems(read.problems)
    for where, exc in session_refusals(read).items():
        errors.setdefault(where, exc.message)
    values = SessionValues(read.name, list(read.seats), read.dealer_seat, read.stake_text,
                           read.currency, rules_typed(form), read.league, read.side_bets)
    args = {"name": values.name, "players": read.players, "rules": read.spec,
            "stake": read.stake, "currency": values.currency,
            "side_bets": spec_of_options(values.side_bets),
            "first_dealer": read.dealer or None, "league_id": read.league_id}
    if values.league and read.league_id is None:
        errors["league"] = _("Choose one of the leagues you run.")
    return values, args, errors


def session_field(field: str | None, players: Sequence[str]) -> str:
    """A domain error's field → the new-session form's field. ``players[i]`` counts only the
    filled-in seats, so it is mapped back to the seat's input."""
    return session_form_field(field, players) or (
        field if field in ("name", "stake", "currency", "first_dealer", "players", "league")
        else "form")


def change_rules_field(field: str | None) -> str:
    return rules_field(field) or ("stake" if field == "stake" else "form")
