"""The parts of a form several areas show: the house rules (a new session, a session's
rules, a league's defaults, the checker, the phone's night) and the hand fields (recording
and correcting a hand, the checker, the phone's night): what their templates need
(``macros.html``'s ``rules_fields``, ``_hand.html``)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core import Rules
from ...core.hand import END_HINTS, END_KINDS
from ...core.handform import PLAYER_ENDS, Asks
from .forms import Errors, RulesValues, option_fields, picker_config, preset_choices
from .present import end_word


def rules_context(values: RulesValues, errors: Errors) -> dict[str, Any]:
    """The house-rule part of a form; the options stay open when one is set or wrong."""
    options_open = any(values.options.values()) or any(k.startswith("opt-") for k in errors)
    return {"rules": values, "presets": preset_choices(), "options": option_fields(),
            "options_open": options_open}


def hand_fields_context(rules: Rules, names: Sequence[str]) -> dict[str, Any]:
    """What the hand fields (``_hand.html``) need under ``rules``."""
    asks = Asks.of(rules)
    kinds = [(k, end_word(k)[:1].upper() + end_word(k)[1:], str(END_HINTS[k]))
             for k in END_KINDS]
    return {"asks": asks, "names": list(names), "kinds": kinds,
            "player_ends": " ".join(PLAYER_ENDS), "config": picker_config(rules, asks)}
