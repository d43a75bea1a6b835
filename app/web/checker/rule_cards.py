"""The house-rule card of any rule set, for anyone, no account needed: ``/rules/<preset>``,
with ``?rules=<base64url JSON of the changes>`` for a session's or a league's own rules.

Each payment rule in the words a ruling on /check gives it, where it is written, and what
differs from the pagat.com rules marked; the setup (deck, counts, ties) in the house-rule
form's words; a QR code of the card's link and "Start a session with these rules". It
prints on one page. No player's name, total or payment handle is ever on a card.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import segno
from flask import abort, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from markupsafe import Markup

from ...core import PRESETS, Rules, TonkError, resolve_rules
from ...core.rule_card import (
    dropped_pagat_rules,
    rule_card,
    setup_differs,
    setup_options,
)
from ..shared import bp
from ..shared.forms import option_label
from ..shared.links import card_url, decode_data, encode_data
from ..shared.present import option_words, rules_words


def card_rules(preset: str, token: str | None) -> Rules:
    """The rules of a card's link: the preset with the changes ``?rules=`` carries
    (ValueError or TonkError when the link does not hold a rule set)."""
    if token is None:
        return resolve_rules(preset)
    changes = decode_data(token)
    if not isinstance(changes, Mapping) or changes.get("preset", preset) != preset:
        raise ValueError("not a rule set")  # (a card's link names no preset but its path's)
    return resolve_rules({**changes, "preset": preset})


def card_context(rules: Rules) -> dict[str, Any]:
    """What the card shows of ``rules``."""
    differs = setup_differs(rules)
    link = card_url(rules)
    return {
        "card_rules": rules, "preset": PRESETS[rules.preset],
        "changed": "; ".join(f"{label}: {words}" for label, words in rules_words(rules)),
        "setup": [(option_label(n), option_words(rules, n), differs[n])
                  for n in setup_options(rules)],
        "lines": rule_card(rules), "dropped": dropped_pagat_rules(rules),
        "link": link,
        "qr": Markup(segno.make(link, error="m").svg_inline(
            scale=3, title=_("QR code of the house-rule card"))),
        "start": url_for(".new_session", rules=encode_data(rules.to_json())),
    }


@bp.get("/rules/<preset>", endpoint="rule_card")
def rule_card_page(preset: str) -> ResponseReturnValue:
    if preset not in PRESETS:
        abort(404)
    try:
        rules = card_rules(preset, request.args.get("rules"))
    except (ValueError, TonkError) as exc:
        message = exc.message if isinstance(exc, TonkError) else _(
            "This link does not hold a rule set: ask for it again.")
        return render_template("checker/card.html", error=message,
                               **card_context(resolve_rules(preset))), 400
    return render_template("checker/card.html", error=None, **card_context(rules))

