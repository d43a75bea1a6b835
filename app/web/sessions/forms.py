"""A session's own forms: the new-session form (its seats, stake, currency, house rules and
league) → the arguments of ``create_session``, and a domain error's ``field`` → the field of
the new-session or house-rules form beside which it is shown. (The parts other areas show too,
the house rules and a hand, are :mod:`app.web.shared.forms`.)"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from flask_babel import gettext as _

from ...core import TonkError, resolve_rules
from ...core.hand import parse_players
from ...core.money import parse_stake
from ...core.tableform import MAX_SEATS as MAX_SEATS  # (the form's seats, for the page)
from ...core.tableform import (
    Options,
    options_of_spec,
    rules_field,
    session_form_field,
    session_of_form,
    spec_of_options,
)
from ...services.sessions import parse_session_name
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
    errors). Empty seats are skipped; the first dealer is chosen by seat. The reading is
    the core's (:func:`app.core.tableform.session_of_form`, as the phone reads it)."""
    read = session_of_form(form)
    errors = rules_problems(read.problems)
    players, seated, spec, stake = list(read.seats), read.players, read.spec, read.stake
    values = SessionValues(read.name, players, read.dealer_seat, read.stake_text, read.currency,
                           rules_typed(form), read.league, read.side_bets)
    # Everything the page can tell at once (the core then checks the rest, one by one).
    checks: list[tuple[str, Callable[[], Any]]] = [
        ("name", lambda: parse_session_name(values.name)),
        ("players", lambda: parse_players(seated))]
    if "preset" not in errors:
        checks.append(("stake", lambda: parse_stake(stake, resolve_rules(spec),
                                                    values.currency)))
    for where, check in checks:
        try:
            check()
        except TonkError as exc:
            errors.setdefault(session_field(exc.field, players) if exc.field != "rules"
                              else where, exc.message)
    if "players" not in errors and not read.dealer:
        errors["first_dealer"] = _("Choose a seat that has a player.")
    args = {"name": values.name, "players": seated, "rules": spec, "stake": stake,
            "currency": values.currency, "side_bets": spec_of_options(values.side_bets),
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
