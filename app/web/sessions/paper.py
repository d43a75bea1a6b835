"""The night on paper: one page that prints a session whole (its totals, every hand in a
table with who did what and each player's net, the settle-up with what was paid, the pay
links' words, and the house-rule card's link as a QR code), for its owner and through its
share link. Chromium prints it on A4 and Letter with nothing cut (templates print.css)."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import segno
from flask import render_template
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from markupsafe import Markup
from sqlalchemy import select

from ...db.models import GameSession, Hand
from ...extensions import db
from ...services.sessions import (
    ledger_of,
    owned_session,
    player_names,
    session_rules,
    shared_session,
)
from ..shared import bp
from ..shared.links import card_url
from ..shared.present import facts, hand_row, table, total_rows, use_currency
from ..shared.site import login_required, me
from .pay import SERVICES, pay_views


@dataclass(frozen=True)
class PaperHand:
    """One hand as a row of the printed table."""

    number: int
    dealer: str
    said: str  # who did what ("Dee dropped, caught by Bob"), then the counts and extras
    nets: tuple[Decimal | None, ...]  # by player, in the session's seat order
    voided: bool
    corrected: bool


def paper_hands(gs: GameSession, names: tuple[str, ...]) -> list[PaperHand]:
    rows = []
    for hand in db.session.scalars(select(Hand).where(Hand.session_id == gs.id)
                                   .order_by(Hand.number)):
        row = hand_row(hand)
        nets = dict(row.nets)
        rows.append(PaperHand(hand.number, hand.data.get("dealer", ""),
                              " · ".join([row.outcome, *facts(hand.data)[1:]]),
                              tuple(nets.get(n) for n in names), row.voided, row.corrected))
    return rows


def paper(gs: GameSession, token: str | None) -> ResponseReturnValue:
    use_currency(gs.currency)
    names = player_names(gs)
    state = ledger_of(gs)
    link = card_url(session_rules(gs))
    return render_template(
        "sessions/paper.html", gs=gs, token=token, table=table(gs), state=state, names=names,
        totals=total_rows(state, gs), hands=paper_hands(gs, names), card_link=link,
        services=SERVICES,
        pay=pay_views(gs, ((t.payer, t.payee, t.amount) for t in state.transfers)),
        card_qr=Markup(segno.make(link, error="m").svg_inline(
            scale=2, title=_("QR code of the house-rule card"))))


@bp.get("/sessions/<int:session_id>/print")
@login_required
def session_paper(session_id: int) -> ResponseReturnValue:
    return paper(owned_session(me(), session_id), None)


@bp.get("/s/<token>/print")
def shared_paper(token: str) -> ResponseReturnValue:
    return paper(shared_session(token), token)
