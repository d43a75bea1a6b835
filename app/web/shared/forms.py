"""The forms' base and the parts several areas' forms share (the house rules, a hand): what
the scorekeeper typed → the arguments the ledger takes, and a domain error's ``field`` → the
form field beside which its message is shown. (A session's own form:
:mod:`app.web.sessions.forms`.)

The forms are plain HTML whose fields depend on the table (a count a player, an input a rule
option), so they are read here rather than declared as WTForms classes; CSRFProtect checks
every POST. Only what a page itself must read (a whole number, the deal-wins shorthand) is
checked here: every fact of the game is checked by the domain core, once, through the ledger.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flask import request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from werkzeug.datastructures import MultiDict

from ...core import (
    OPTIONS,
    PRESETS,
    CardError,
    Rules,
    TonkError,
)
from ...core.hand import END_KINDS, count_problems, missing_counts
from ...core.handform import (
    MAX_TEXT,
    NO_END,
    NOT_BIG_ONE,
    NOT_WHOLE,
    PLAYER_ENDS,
    Asks,
    hand_of_form,
    picker_data,
    text_of,
)
from ...core.messages import Message
from ...core.tableform import (
    NOT_DEAL_WINS,
    NOT_NUMBER,
    OPTION_CHOICES,
    option_text,
    option_widget,
    rules_of_form,
)

Errors = dict[str, str]
Form = MultiDict[str, str]

def settings_mark(settings: Any) -> str:
    """A short mark of settings as a page shows them, which its form carries back (``seen``):
    see :func:`changed_meanwhile`."""
    text = json.dumps(settings, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def changed_meanwhile(settings: Any) -> str | None:
    """Whether ``settings`` were changed after the form posted was shown (in another tab, by
    another admin): then a message to show instead of saving over that change unseen; the
    form, shown again, carries the new mark, so that saving again puts what was typed in
    their place. A form sent without its mark (``seen``) is saved as before."""
    seen = request.form.get("seen")
    if seen is None or seen == settings_mark(settings):
        return None
    return _("These settings were changed meanwhile, in another tab or by someone else. The "
             "form holds what you typed: save again to put it in their place, or open the "
             "settings again to see them as they are now.")


def ticked(name: str) -> bool:
    """Whether the sent form's box ``name`` is ticked (a ticked box sends ``1``)."""
    return request.form.get(name) == "1"


# -- house rules -----------------------------------------------------------------------------

def option_label(name: str) -> str:
    """An option's label on the forms and cards (the core declares it)."""
    return str(OPTIONS[name].label)


@dataclass
class RulesValues:
    """The house-rule part of a form: a preset and the options that override it."""

    preset: str = "pagat"
    options: dict[str, str] = field(default_factory=dict)

    @property
    def scoring(self) -> str:
        """The scoring these values play under (the option, else the preset's): push-ups
        take no stake, so the form hides its stake field."""
        preset = PRESETS.get(self.preset)
        return self.options.get("scoring") or (preset.rules.scoring if preset else "money")

    @classmethod
    def of(cls, rules: Rules) -> RulesValues:
        overrides = rules.overrides()
        return cls(rules.preset, {n: option_text(n, getattr(rules, n)) for n in overrides})


def read_rules(form: Form) -> tuple[RulesValues, dict[str, Any], Errors]:
    """The preset and every option filled in → (what to show again, the rules spec, errors).
    An empty option keeps the preset's value; the reading is the core's
    (:func:`app.core.tableform.rules_of_form`)."""
    spec, problems = rules_of_form(form)
    return rules_typed(form), spec, rules_problems(problems)


def rules_typed(form: Form) -> RulesValues:
    """The preset and the options as typed, to show again."""
    return RulesValues(form.get("preset", "pagat").strip(),
                       {n: form.get(f"opt-{n}", "").strip()[:MAX_TEXT] for n in OPTIONS})


def rules_problems(problems: Mapping[str, str]) -> Errors:
    """The core's problems with the options typed (:mod:`app.core.tableform`), in the
    reader's words."""
    return {field: problem_said(problem, field) for field, problem in problems.items()}


_RULE_PROBLEMS = {
    NOT_DEAL_WINS: _l("Write the instant wins like 49 50 = 2; <=13 = 2; face = 2, or - for "
                      "none; 50 = 2 left gives a rule its own tie."),
    NOT_NUMBER: _l("%(option)s: enter a whole number.")}


@dataclass(frozen=True)
class PresetChoice:
    name: str
    title: str
    summary: str
    scoring: str = "money"


def preset_choices() -> list[PresetChoice]:
    """Every preset with its title and summary, for the select."""
    return [PresetChoice(p.name, str(p.title), str(p.summary), p.rules.scoring)
            for p in PRESETS.values()]


@dataclass(frozen=True)
class OptionField:
    """One rule option as the form shows it: its label, its one-line explanation (the
    core's), how it is entered and, for a list, the choices with what each means."""

    name: str
    label: str
    help: str
    widget: str
    choices: tuple[tuple[str, str], ...] = ()


def option_fields() -> list[OptionField]:
    return [OptionField(name, str(option.label), str(option.meaning), option_widget(name),
                        tuple((value, f"{value}: {meaning}") for value, meaning
                              in OPTION_CHOICES.get(name, {}).items()))
            for name, option in OPTIONS.items()]


# -- a hand ----------------------------------------------------------------------------------

@dataclass
class HandValues:
    """What a hand form shows: the facts as typed (counts by seat, as text)."""

    kind: str = ""
    player: str = ""
    method: str = "spread"
    first_turn: bool = False
    double_double: bool = False
    five_face: list[str] = field(default_factory=list)
    counts: dict[int, str] = field(default_factory=dict)
    cards: dict[int, str] = field(default_factory=dict)
    dealer: str = ""
    multiplier: int = 1
    reason: str = ""
    #: The side-bet lines as typed or stored (app.web.shared.sidebets); None: a new hand's.
    side_bets: dict[str, tuple[tuple[str, ...], str, str]] | None = None

    @property
    def big_one(self) -> bool:
        return self.multiplier > 1

    @property
    def big_value(self) -> int:
        """What the Big One toggle sends: double, or a stored hand's own multiplier."""
        return self.multiplier if self.multiplier > 1 else 2

    @classmethod
    def of_hand(cls, data: Mapping[str, Any], names: Sequence[str]) -> HandValues:
        """A stored hand (docs/rules.md §1) → the form, for a correction."""
        end = data["end"]
        counts, cards = data.get("counts", {}), data.get("cards", {})
        return cls(kind=end["kind"], player=end.get("player", ""),
                   method=end.get("method", "spread"), first_turn=end.get("first_turn", False),
                   double_double=end.get("double_double", False),
                   five_face=list(end.get("five_face_cards", [])),
                   counts={i: str(counts[n]) for i, n in enumerate(names) if n in counts},
                   cards={i: " ".join(cards[n]) for i, n in enumerate(names) if n in cards},
                   dealer=data.get("dealer", ""), multiplier=data.get("multiplier", 1))


def read_hand_form(form: Form, names: Sequence[str], rules: Rules, asks: Asks
                   ) -> tuple[HandValues, dict[str, Any], Errors]:
    """The hand form → (what to show again, the hand for the ledger, errors). The hand is
    read by the core (:func:`app.core.handform.hand_of_form`, as the phone reads it); here
    only what the form shows again and the problems in the reader's words."""
    values = HandValues(
        kind=form.get("kind", ""), player=form.get("player", ""),
        method=form.get("method", "spread"), first_turn="first_turn" in form,
        double_double="double_double" in form, five_face=form.getlist("five_face"),
        counts={i: text_of(form, f"count-{i}") for i in range(len(names))},
        cards={i: text_of(form, f"cards-{i}") for i in range(len(names))},
        dealer=form.get("dealer", ""), reason=form.get("reason", "")[:MAX_TEXT * 2])
    data, problems = hand_of_form(form, names, rules, asks)
    values.multiplier = data["multiplier"]
    errors: Errors = {field: problem_said(problem, field, names)
                      for field, problem in problems.items()}
    kind = values.kind
    if kind in END_KINDS and (kind not in PLAYER_ENDS or values.player in names):
        given = set(data.get("counts", ())) | set(data.get("cards", ()))
        for missing in [*count_problems(kind, data.get("counts", {}), rules),
                        *missing_counts(kind, values.player or None, values.five_face, names,
                                        rules, given)]:  # all at once
            errors.setdefault(hand_field(missing, names), missing.message)
    return values, data, errors


#: The form's own problems (:mod:`app.core.handform`), in the reader's words.
_FORM_PROBLEMS = {NO_END: _l("Choose how the hand ended."),
                  NOT_WHOLE: _l("Enter a whole number of points for %(player)s."),
                  NOT_BIG_ONE: _l("The Big One doubles the stakes: tick it or leave it.")}


#: Every problem only a form gets (the hand's and the rules'), by its code.
_PROBLEMS = {**_FORM_PROBLEMS, **_RULE_PROBLEMS}
#: What a form's problem names, by its field: the player of a count, the option of a rule.
_NAMED = {NOT_WHOLE: "player", NOT_NUMBER: "option"}


def problem_said(code: str, field: str, names: Sequence[str] = ()) -> str:
    """A form's own problem (:mod:`app.core.handform`, :mod:`app.core.tableform`) beside its
    ``field``, in the reader's words, naming whose count (``count-1``: the second of
    ``names``) or which rule (``opt-hand_size``: its label) it is about."""
    word, named = _PROBLEMS[code], _NAMED.get(code)
    if named == "player":
        return str(word) % {"player": names[int(field.rsplit("-", 1)[1])]}
    if named == "option":
        return str(word) % {"option": option_label(field.removeprefix("opt-"))}
    return str(word)


def problem_words() -> dict[str, str]:
    """The core's codes for what only a form gets wrong (:mod:`app.core.handform`,
    :mod:`app.core.tableform`), in the reader's words: for a page that reads its form on
    the phone, which fills in ``{player}`` or ``{option}`` (``TonkPage.problem``)."""
    return {code: _left_blank(code) for code in _PROBLEMS}


def _left_blank(code: str) -> str:
    """A problem's words with what it names left as ``{player}`` or ``{option}``."""
    named = _NAMED.get(code)
    return str(_PROBLEMS[code]) % {named: "{" + named + "}"} if named else str(_PROBLEMS[code])


#: One card of a player's (``[0]``: the first), after their name in a field.
_A_CARD = re.compile(r"\[\d+\]$")
_HAND_FIELDS = {"end.kind": "kind", "end.player": "player", "end.method": "method",
                "end.first_turn": "first_turn", "end.double_double": "double_double",
                "end.five_face_cards": "five_face", "dealer": "dealer", "multiplier": "big_one",
                "reason": "reason", "counts": "counts", "cards": "counts"}


def hand_field(exc: TonkError, names: Sequence[str]) -> str:
    """A domain error about a hand → the form field it belongs beside: ``counts.Bob`` →
    ``count-1``, ``cards.Bob`` (or one of them, ``cards.Bob[0]``) → ``cards-1``,
    ``end.player`` → ``player``; ``form`` when it is about the whole hand."""
    where = exc.field
    if where is None:
        return "counts" if isinstance(exc, CardError) else "form"
    head, _dot, name = where.partition(".")
    if head in ("counts", "cards") and name:
        if name not in names and head == "cards":
            name = _A_CARD.sub("", name)
        if name in names:
            return f"{'count' if head == 'counts' else 'cards'}-{names.index(name)}"
        return "counts"
    return _HAND_FIELDS.get(where, "form")


def picker_config(rules: Rules, asks: Asks) -> dict[str, Any]:
    """What the hand page's script needs: the core's :func:`~app.core.handform.picker_data`
    and its messages in the reader's words."""
    return {**picker_data(rules, asks), "msg": picker_words(rules.max_count, rules.hand_size)}


def picker_words(max_count: int | str, hand_size: int | str) -> dict[str, str]:
    """The hand script's messages (``max_count`` and ``hand_size`` filled in: a page that
    draws the fields itself passes ``{max}`` and ``{size}``)."""
    return {"whole": _left_blank(NOT_WHOLE),
            "negative": str(Message("counts.negative", player="{player}", count="{n}")),
            "max": _("At most %(max)s points.", max=max_count),
            "play": _("No hand of this deck adds up to {n}."),
            "deal": _("No hand of this deck is dealt {n}."),
            "full": _("A hand holds %(n)s cards.", n=hand_size),
            "joker": _("Joker"), "done": _("Done")}
