""""Share the result": a night's totals, who pays whom (with the payee's pay links) and the
link, as one text for the group chat in the reader's language (the Web Share API or Copy
sends it), and the facts the page draws its picture of the totals from (a canvas in the
browser: the phone's own fonts write every name, Japanese too, with no image library or
font on the server)."""
from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from flask_babel import gettext as _

from ...core.money import with_sign
from ...db.models import GameSession
from ...services.sessions import Ledger
from ..shared.present import hand_count, money, standings
from .pay import PayView


def _signed(value: Decimal, currency: str, scoring: str) -> str:
    return with_sign(value, money(abs(value), currency, scoring))


def _totals(state: Ledger, scoring: str) -> list[tuple[str, Decimal]]:
    """Best first: the most won (push-ups: the fewest points). Each is the total settled, as
    the totals' table ends and who-pays-whom squares: with what the side bets' pots give
    back at settle-up."""
    settled = {name: m.total for name, m in state.money.items()}
    if scoring == "push_ups":
        return standings(settled)
    return sorted(settled.items(), key=lambda item: -item[1])


def result_text(gs: GameSession, state: Ledger, scoring: str,
                pay: Mapping[tuple[str, str], PayView], link: str) -> str:
    """The night as a message for the chat."""
    lines = [_("%(name)s: Tonk, %(hands)s", name=gs.name,
               hands=hand_count(state.hands, gs.voided_hands))]
    lines.append("")
    lines.append(_("Totals:") if scoring != "push_ups" else _("Points (lowest is best)") + ":")
    for name, value in _totals(state, scoring):
        shown = (money(value, gs.currency, scoring) if scoring == "push_ups"
                 else _signed(value, gs.currency, scoring))
        lines.append(f"{name} {shown}")
    if scoring != "push_ups":
        lines.append("")
        if state.transfers:
            lines.append(_("Who pays whom:"))
            for t in state.transfers:
                lines.append(_("%(payer)s → %(payee)s %(amount)s", payer=t.payer, payee=t.payee,
                               amount=money(t.amount, gs.currency, scoring)))
                view = pay.get((t.payer, t.payee))
                for way in view.links if view else []:
                    if way.url:
                        lines.append(f"  {way.url}")
                    elif way.text:
                        lines.append(f"  {way.text}")
        else:
            lines.append(_("Nobody owes anybody anything."))
    lines.append("")
    lines.append(_("The score: %(link)s", link=link))
    return "\n".join(lines)


def result_picture(gs: GameSession, state: Ledger, scoring: str) -> dict[str, Any]:
    """What the picture of the totals shows, for the page's canvas."""
    return {"title": gs.name,
            "subtitle": hand_count(state.hands, gs.voided_hands),
            "rows": [[name, money(value, gs.currency, scoring) if scoring == "push_ups"
                      else _signed(value, gs.currency, scoring),
                      "pos" if value > 0 else "neg" if value < 0 else "zero"]
                     for name, value in _totals(state, scoring)],
            "footer": _("Tonk Tally")}
