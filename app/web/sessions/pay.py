"""Pay links on the table's pages: each open transfer with the payee's links (amount and
note filled in where the service takes them) and a QR code for the payer's phone (a
GiroCode for a euro IBAN), and the form where the scorekeeper writes a player's handles.
Only the table sees them: the settle-up (its owner) and the share view; never /check or a
rule card."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import segno
from flask import flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from markupsafe import Markup

from ...db.models import GameSession
from ...services.pay import (
    FIELDS,
    PayError,
    PayLink,
    epc_qr,
    session_handles,
    set_handles,
    transfer_links,
    transfer_note,
)
from ...services.sessions import owned_session, player_names
from ..shared import bp
from ..shared.form_tokens import once_per_form
from ..shared.site import login_required, me

#: How each service is named on a button (brand names: the same in every language).
SERVICES = {"paypal": "PayPal", "venmo": "Venmo", "cashapp": "Cash App",
            "revolut": "Revolut", "epc": "GiroCode", "iban": "IBAN"}


@dataclass(frozen=True)
class PayView:
    """One open transfer's ways to pay, as its page shows them."""

    links: list[PayLink]
    qr: Markup | None  # the GiroCode, else the first link's QR code
    qr_label: str
    epc: str  # the GiroCode's payload ("" without one)


def pay_views(gs: GameSession, transfers: Iterable[tuple[str, str, Decimal]]
              ) -> dict[tuple[str, str], PayView]:
    """(payer, payee) → the ways to pay each of ``transfers`` (payer, payee, amount)."""
    handles = session_handles(gs)
    views = {}
    for payer, payee, amount in transfers:
        links = transfer_links(gs, handles, payee, amount)
        if not links:
            continue
        epc = next((link for link in links if link.service == "epc"), None)
        url = next((link for link in links if link.url), None)
        qr: Markup | None = None
        label = ""
        if epc is not None:
            label = _("GiroCode: scan it with your banking app to pay %(payee)s", payee=payee)
            qr = Markup(epc_qr(handles[payee], payee, amount, transfer_note(gs)).svg_inline(
                scale=3, title=label))
        elif url is not None:
            label = _("QR code: scan it to pay %(payee)s with %(service)s", payee=payee,
                      service=SERVICES[url.service])
            qr = Markup(segno.make(url.url, error="m").svg_inline(scale=3, title=label))
        views[(payer, payee)] = PayView(links, qr, label, epc.payload if epc else "")
    return views


@bp.route("/sessions/<int:session_id>/players/<name>/pay", methods=["GET", "POST"])
@once_per_form
@login_required
def pay_handles(session_id: int, name: str) -> ResponseReturnValue:
    """The form for where ``name`` takes payment, with each error beside its field."""
    gs = owned_session(me(), session_id)
    if name not in player_names(gs):
        return render_template("not_found.html"), 404
    values: dict[str, Any] = session_handles(gs)[name].to_json()
    errors: dict[str, str] = {}
    if request.method == "POST":
        values = {k: request.form.get(k, "")[:300] for k in FIELDS}
        try:
            set_handles(gs, name, values)
        except PayError as exc:
            errors[exc.field or "form"] = exc.message
        else:
            flash(_("Saved where %(name)s takes payment.", name=name), "ok")
            return redirect(url_for(".settle", session_id=gs.id))
    return render_template("sessions/pay_handles.html", gs=gs, name=name, values=values,
                           errors=errors, services=SERVICES), 422 if errors else 200
