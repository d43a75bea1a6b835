"""The table's part of a form (the players, the stake, the house rules, the side bets it
plays) → what the core reads, and the dispute checker's whole form (``/check``) → the hand it
asks about: the one home of that reading. The server reads its pages' forms with it
(``app/web/forms.py``, ``app/web/leagues.py``, ``app/web/dispute.py``), and so does the phone
with no signal (:mod:`app.core.phone`'s ``check_form`` and ``events``), so the phone checks
what the server would.

What only a form can get wrong comes back as a problem beside its field (a code, put in the
reader's words by the page); what the core refuses (rules it cannot play, players it cannot
seat) as the core's error, by the form's field.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from babel.numbers import get_decimal_symbol

from .errors import TonkError
from .hand import parse_players
from .handform import MAX_TEXT, FormFields, hand_of_form
from .messages import Message, reader_language
from .money import parse_stake, takes_stake
from .names import player_name, session_currency, session_name
from .rules import (
    OPTIONS,
    PRESETS,
    DealWin,
    Rules,
    resolve_rules,
)
from .sidebets import BETS, parse_side_bets

#: The most of the players' field that is read.
MAX_PLAYERS_TEXT = 400
#: The form's own problems with an option: not the deal-wins shorthand, not a whole number.
NOT_DEAL_WINS, NOT_NUMBER = "not_deal_wins", "not_number"

#: The options chosen from a list, with what each choice means (the core's own words).
OPTION_CHOICES: dict[str, Mapping[str, Message]] = {
    name: option.choices for name, option in OPTIONS.items() if option.choices is not None}
#: Multiples that may be switched off ("0" in the form stands for none).
OPTIONAL_MULTIPLES = frozenset({"tonk_out_by_hits_pays", "first_turn_spread_pays",
                                "double_double_pays"})
#: How the deal-wins shorthand writes an entry's own tie rule (docs/rules.md §4).
TIE_WORDS = {"left": "nearest_left", "draw": "draw"}

_DECIMAL_COMMA = re.compile(r"^\s*-?\d+,\d+\s*$")
#: Thousands in groups of three by ``mark``, then perhaps a decimal part by the other mark.
_GROUPED = {".": re.compile(r"^-?[1-9]\d{0,2}(?:\.\d{3})+(?:,\d+)?$"),
            ",": re.compile(r"^-?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?$")}
_ONE_GROUP = re.compile(r"^-?[1-9]\d{0,2}[.,]\d{3}$")


def amount_text(text: str) -> str:
    """Money as typed, as the reader's language writes it (:func:`reader_language`), for
    the core: ``"0,25"`` (a decimal comma, as the German pages write amounts) reads as
    ``"0.25"``; thousands grouped in threes read as thousands: ``"1.000,50"`` and
    ``"1,000.50"`` anywhere, and one group alone (``"1.000"``, ``"1,000"``) by the mark the
    reader groups with (a German "1.000" is a thousand, "1,000" one; in English the other way
    round). A German fee of "1.000" was read as 1. Full-width digits, as a Japanese keyboard
    types them ("２，０００"), read as digits."""
    text = unicodedata.normalize("NFKC", text.strip()[:MAX_TEXT]).strip()
    decimal = get_decimal_symbol(reader_language())
    for mark, grouped in _GROUPED.items():
        if grouped.match(text) and (mark != decimal or not _ONE_GROUP.match(text)):
            return text.replace(mark, "").replace(",", ".")
    return text.replace(",", ".") if _DECIMAL_COMMA.match(text) else text


def stake_of_form(text: str, spec: Any) -> str | None:
    """The stake field as typed (:func:`amount_text`), or None under rules that take no
    stake (push-ups): the form hides the field then, and what was left in it is not read."""
    try:
        if not takes_stake(resolve_rules(spec)):
            return None
    except TonkError:
        pass  # (rules the form refuses: the stake is read, and said beside its field)
    return amount_text(text)


def player_list(text: str) -> list[str]:
    """``"Ann, Bob,Cy"`` → the names in seat order (the core checks them)."""
    return [" ".join(name.split()) for name in text[:MAX_PLAYERS_TEXT].split(",")
            if name.strip()]


def option_widget(name: str) -> str:
    """How an option is entered: ``choice``, ``optional`` (0 = none), ``deal_wins`` or
    ``number``."""
    if name in OPTION_CHOICES:
        return "choice"
    if name in OPTIONAL_MULTIPLES:
        return "optional"
    return "deal_wins" if name == "deal_wins" else "number"


def parse_deal_wins(text: str) -> list[dict[str, Any]]:
    """The deal-wins shorthand → the JSON the core reads: ``49 50 = 2; <=13 = 2; face = 2``
    (best first), or ``-`` for none; ``50 = 2 left`` (or ``draw``) gives the entry its own
    tie rule. Raises ValueError for anything else."""
    if text.strip() == "-":
        return []
    wins: list[dict[str, Any]] = []
    for part in filter(None, (p.strip() for p in text.split(";"))):
        what, equals, pays = part.rpartition("=")
        if not equals:
            raise ValueError(part)
        pays, _space, tie = pays.strip().partition(" ")
        win: dict[str, Any] = {"pays": int(pays)}
        if tie.strip():
            win["tie"] = TIE_WORDS[tie.strip().lower()] if tie.strip().lower() in TIE_WORDS \
                else tie.strip()
        what = what.strip().lower()
        if "face" in what:
            win["five_face_cards"] = True
        elif what.startswith(("<=", "≤")):
            win["at_most"] = int(what.lstrip("<=≤ "))
        else:
            win["totals"] = [int(t) for t in what.replace(",", " ").replace("/", " ").split()]
        wins.append(win)
    if not wins:
        raise ValueError(text)
    return wins


def format_deal_wins(wins: Sequence[DealWin]) -> str:
    """The shorthand of :func:`parse_deal_wins` for ``wins``."""
    if not wins:
        return "-"
    words = {rule: word for word, rule in TIE_WORDS.items()}
    return "; ".join(("face" if w.five_face_cards else f"<={w.at_most}"
                      if w.at_most is not None else " ".join(map(str, w.totals)))
                     + f" = {w.pays}" + (f" {words[w.tie]}" if w.tie else "") for w in wins)


def option_text(name: str, value: Any) -> str:
    """An option's value as the form shows it."""
    if name == "deal_wins":
        return format_deal_wins(value)
    if value is None:
        return "0"
    return str(value)


def rules_of_form(form: FormFields) -> tuple[dict[str, Any], dict[str, str]]:
    """The preset and every option filled in → (the rules spec, the form's problems by field:
    :data:`NOT_DEAL_WINS` or :data:`NOT_NUMBER` beside ``opt-<name>``). An empty option
    keeps the preset's value."""
    spec: dict[str, Any] = {"preset": form.get("preset", "pagat").strip()}
    problems: dict[str, str] = {}
    for name in OPTIONS:
        text = form.get(f"opt-{name}", "").strip()[:MAX_TEXT]
        if not text:
            continue
        widget = option_widget(name)
        try:
            if widget == "choice":
                spec[name] = text
            elif widget == "deal_wins":
                spec[name] = parse_deal_wins(text)
            else:
                number = int(text)
                spec[name] = None if widget == "optional" and number == 0 else number
        except ValueError:
            problems[f"opt-{name}"] = NOT_DEAL_WINS if widget == "deal_wins" else NOT_NUMBER
    return spec, problems


def rules_field(field: str | None) -> str | None:
    """``rules.catch`` → ``opt-catch``, ``rules.deal_wins[0].pays`` → ``opt-deal_wins``,
    ``rules.preset`` → ``preset``; None if the field is not about the rules."""
    if field is None or not (field == "rules" or field.startswith("rules.")):
        return None
    name = field[len("rules."):].split("[")[0].split(".")[0]
    return f"opt-{name}" if name in OPTIONS else "preset"


@dataclass(frozen=True)
class CheckRead:
    """The dispute checker's form as the core reads it: the players, the rules the hand
    fields are drawn for (the preset's own while the options typed are refused), the hand
    (docs/rules.md §1, with the rules as typed, the players and the stake), the form's own
    problems (codes) and the core's refusals, each by the field it is shown beside."""

    names: list[str]
    rules: Rules
    hand: dict[str, Any]
    problems: dict[str, str]
    refused: dict[str, TonkError]


def check_of_form(form: FormFields) -> CheckRead:
    """The checker's form (players, stake, house rules and the hand's facts) → what it asks."""
    spec, problems = rules_of_form(form)
    refused: dict[str, TonkError] = {}
    try:
        rules = resolve_rules(spec)
    except TonkError as exc:
        refused[rules_field(exc.field) or "preset"] = exc
        rules = resolve_rules(spec["preset"] if spec["preset"] in PRESETS else None)
    names = player_list(form.get("players", ""))
    if names:  # "Ann, ann" is refused at once, not once the whole hand is typed
        try:
            parse_players(names)
        except TonkError as exc:
            refused["players"] = exc
    data, hand_problems = hand_of_form(form, names, rules)
    data.update({"rules": spec, "players": names,
                 "stake": amount_text(form.get("stake", "")) or None})
    try:  # (said with the hand's own problems, not once they are put right)
        parse_stake(data["stake"], rules)
    except TonkError as exc:
        refused["stake"] = exc
    return CheckRead(names, rules, data, {**problems, **hand_problems}, refused)


# -- the side bets a session plays: the new-session form's options ---------------------------

#: The side-bet options as the form shows them: bet → on ("1" or ""), stake, suit, unclaimed.
Options = dict[str, dict[str, str]]
def options_of_spec(spec: Mapping[str, Any] | None) -> Options:
    """Stored side bets (or a league's, for its new session) → the form."""
    return {bet: {"on": "1" if bet in (spec or {}) else "",
                  "stake": str((spec or {}).get(bet, {}).get("stake") or ""),
                  "suit": (spec or {}).get(bet, {}).get("suit") or "",
                  "unclaimed": (spec or {}).get(bet, {}).get("unclaimed") or "carry"}
            for bet in BETS}


def options_of_form(form: FormFields) -> Options:
    """The form's side-bet options as typed (the new-session form's, a league's)."""
    return {bet: {"on": "1" if form.get(f"sb-{bet}", "") else "",
                  "stake": amount_text(form.get(f"sb-{bet}-stake", "")[:100]),
                  "suit": form.get(f"sb-{bet}-suit", "").strip()[:10],
                  "unclaimed": form.get(f"sb-{bet}-unclaimed", "carry").strip()[:10]}
            for bet in BETS}


def spec_of_options(options: Options) -> dict[str, Any]:
    """The form → ``side_bets`` for the ledger (docs/rules.md §9): only the bets ticked; an empty
    stake is the table's own."""
    spec: dict[str, Any] = {}
    for bet, chosen in options.items():
        if not chosen["on"]:
            continue
        bet_spec: dict[str, Any] = {"stake": chosen["stake"] or None}
        if bet == "high_card":
            bet_spec["suit"] = chosen["suit"] or None
            bet_spec["unclaimed"] = chosen["unclaimed"] or "carry"
        spec[bet] = bet_spec
    return spec


#: The new-session form's seats.
MAX_SEATS = 8


@dataclass(frozen=True)
class SessionForm:
    """The new-session form (``/sessions/new``) as read, the one reading of it for the
    server's page and the phone's night started with no signal: the name, each seat's
    player (inner spaces folded; "" for an empty seat), the first dealer's seat (-1: no
    number), the rules spec with the form's own problems with them (:func:`rules_of_form`),
    the stake as typed and as read (None under rules that take none: :func:`stake_of_form`),
    the currency, the league as typed and the side bets' options."""

    name: str
    seats: tuple[str, ...]
    dealer_seat: int
    spec: dict[str, Any]
    problems: dict[str, str]
    stake_text: str
    stake: str | None
    currency: str
    league: str
    side_bets: Options

    @property
    def players(self) -> list[str]:
        """The players in seat order, empty seats skipped."""
        return [name for name in self.seats if name]

    @property
    def dealer(self) -> str:
        """The first dealer ("" for a seat with nobody in it, or none)."""
        return self.seats[self.dealer_seat] if 0 <= self.dealer_seat < len(self.seats) else ""

    @property
    def league_id(self) -> int | None:
        """The league chosen, by id (None: none, or not an id: :attr:`league` as typed)."""
        return int(self.league) if self.league.isascii() and self.league.isdigit() else None


def session_of_form(form: FormFields) -> SessionForm:
    """The new-session form's fields read (see :class:`SessionForm`; the core checks them)."""
    spec, problems = rules_of_form(form)
    try:
        dealer_seat = int(form.get("first_dealer", "0"))
    except ValueError:
        dealer_seat = -1
    return SessionForm(
        form.get("name", "").strip()[:MAX_TEXT],
        tuple(" ".join(form.get(f"player-{i}", "").split())[:MAX_TEXT]
              for i in range(MAX_SEATS)),
        dealer_seat, spec, problems, amount_text(form.get("stake", "")),
        stake_of_form(form.get("stake", ""), spec), form.get("currency", "").strip()[:MAX_TEXT],
        form.get("league", "").strip()[:MAX_TEXT], options_of_form(form))


def session_refusals(read: SessionForm) -> dict[str, TonkError]:
    """Every refusal of the new-session form at once, in the core's words, by the field it is
    shown beside: the name, the currency, the rules (an option's field, or ``preset``), the
    stake and the side bets played at it, the seats (a seat's field, or ``players``) and
    the first dealer's seat. What the core's start refuses, all of it where its start stops
    at the first: the server's page and the phone's night started with no signal show them
    (the form's own problems are :attr:`SessionForm.problems`)."""
    refused: dict[str, TonkError] = {}

    def checked(where: str, check: Callable[[], Any]) -> Any:
        try:
            return check()
        except TonkError as exc:
            refused.setdefault(session_form_field(exc.field, read.seats) or exc.field or where,
                               exc)
            return None

    checked("name", lambda: session_name(read.name))  # (in about the form's order)
    if checked("players", lambda: parse_players(read.players)) is None:
        for seat, name in enumerate(read.players):  # (each seat's own, past the first refused)
            checked("players", partial(player_name, name, seat))
    if read.players and not read.dealer:  # (a seat of nobody's; with no seats, "players")
        refused["first_dealer"] = TonkError(
            Message("session.dealer_seat", seat=read.dealer_seat + 1), "first_dealer")
    rules = checked("preset", lambda: resolve_rules(read.spec))
    if rules is not None:
        currency = read.currency or None
        stake = checked("stake", lambda: parse_stake(read.stake, rules, currency))
        if stake is not None:
            checked("side_bets", lambda: parse_side_bets(
                spec_of_options(read.side_bets), stake=stake, scoring=rules.scoring,
                currency=currency))
    checked("currency", lambda: session_currency(read.currency))
    return refused


def session_form_field(field: str | None, seats: Sequence[str]) -> str | None:
    """A refusal's field → the new-session form's input: a rule's option, a side bet's, or
    ``players[i]`` (counting only the filled-in ``seats``) → that seat's input; None for a
    field that is not one of these (the form shows it where it shows its own)."""
    where = rules_field(field)
    if where is not None:
        return where
    if field and field.startswith("side_bets"):
        return option_field(field)
    if field and field.startswith("players[") and field.endswith("]"):
        filled = [i for i, p in enumerate(seats) if p]
        index = int(field[len("players["):-1])
        return f"player-{filled[index]}" if index < len(filled) else "players"
    return None


def option_field(field: str) -> str:
    """``side_bets.naturals.stake`` → ``sb-naturals-stake``; ``side_bets`` as it is."""
    parts = field.split(".")
    if len(parts) >= 2 and parts[1] in BETS:
        return f"sb-{parts[1]}-{parts[2]}" if len(parts) > 2 else f"sb-{parts[1]}"
    return "side_bets"
