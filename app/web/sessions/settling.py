"""The settle-up pages: the plan with what was paid along it, payments in full or in part
(along the plan or outside it), undoing a payment with a reason, closing (with the open
debts carried over, if asked), carried debts marked paid; and putting sessions away
(archive, unarchive, delete an empty one).
"""
from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from flask import flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _

from ...core.tableform import amount_text
from ...db.models import GameSession
from ...services.sessions import (
    archived_sessions_of,
    close_session,
    debts_of_session,
    delete_session,
    ledger_of,
    mark_paid,
    owned_session,
    phone_table,
    player_names,
    record_payment,
    seated_names,
    session_rules,
    set_archived,
    taken_back,
    undo_payment,
)
from ..shared import bp
from ..shared.form_tokens import once_per_form
from ..shared.forms import ticked
from ..shared.present import money, session_card, standings, table, total_rows
from ..shared.site import attempt, back, form_change, login_required, me
from .pages import open_session
from .pay import SERVICES, pay_views

#: Where a form's error is shown: (payer, payee) of a planned transfer, ("", "") for the
#: payment outside the plan, ("undo", id) for an undo, ("close", "") for closing.
ErrorKey = tuple[str, str]


def settle_page(gs: GameSession, errors: Mapping[ErrorKey, str] | None = None,
                typed: Mapping[ErrorKey, str] | None = None) -> ResponseReturnValue:
    state = ledger_of(gs)
    leaving = request.args.get("player") if request.args.get("player") in state.totals \
        else None
    seated = seated_names(gs)
    gone = [name for name in state.totals if name not in seated]  # left the table
    left = leaving is not None and leaving not in seated  # gone, not just going
    owing = [n for n, v in state.open.items() if v < 0]
    owed = [n for n, v in state.open.items() if v > 0]
    here = url_for(".settle", session_id=gs.id, player=request.args.get("player"))
    return render_template("sessions/settle.html", gs=gs, table=table(gs), state=state,
                           address=here if request.full_path.rstrip("?") != here else None,
                           standings=standings({n: m.total for n, m in state.money.items()}),
                           errors=errors or {},
                           totals=total_rows(state, gs),
                           typed=typed or {}, can_edit=not gs.is_closed, owing=owing,
                           owed=owed, names=player_names(gs), services=SERVICES,
                           pay=pay_views(gs, ((t.payer, t.payee, t.open) for t in state.plan
                                              if t.open)),
                           debts=debts_of_session(gs.id) if gs.is_closed else [],
                           leaving=leaving, left=left, gone=gone,
                           phone=None if gs.is_closed else phone_table(gs, state),
                           taken_back=taken_back(gs, leaving) if left and leaving else None), \
        422 if errors else 200


@bp.get("/sessions/<int:session_id>/settle")
@login_required
def settle(session_id: int) -> ResponseReturnValue:
    return settle_page(owned_session(me(), session_id))


@bp.post("/sessions/<int:session_id>/payments")
@once_per_form
@login_required
def pay(session_id: int) -> ResponseReturnValue:
    """A payment along a planned transfer, or (``outside``) between any two players."""
    gs = open_session(session_id)
    payer, payee = request.form.get("payer", ""), request.form.get("payee", "")
    key = ("", "") if request.form.get("outside") else (payer, payee)
    typed = amount_text(request.form.get("amount", ""))
    return form_change(
        lambda: record_payment(gs, me(), payer, payee, typed),
        lambda exc: settle_page(gs, {key: exc.message}, {key: typed}),
        lambda: _("%(payer)s paid %(payee)s %(amount)s.", payer=payer, payee=payee,
                  amount=money(Decimal(typed), gs.currency, session_rules(gs).scoring)),
        url_for(".settle", session_id=gs.id))


@bp.post("/sessions/<int:session_id>/payments/<int:payment_id>/undo")
@once_per_form
@login_required
def undo(session_id: int, payment_id: int) -> ResponseReturnValue:
    gs = open_session(session_id)
    reason, key = request.form.get("reason", ""), ("undo", str(payment_id))
    return form_change(lambda: undo_payment(gs, me(), payment_id, reason),
                       lambda exc: settle_page(gs, {key: exc.message}, {key: reason}),
                       _("The payment is undone: it stays in the history."),
                       url_for(".settle", session_id=gs.id))


@bp.post("/sessions/<int:session_id>/close")
@once_per_form
@login_required
def close(session_id: int) -> ResponseReturnValue:
    gs = open_session(session_id)
    carry = ticked("carry_over")
    return form_change(
        lambda: close_session(gs, carry),
        lambda exc: settle_page(gs, {("close", ""): exc.message}),
        _("The session is closed; what was still open is kept as debts until paid.") if carry
        else _("The session is closed. Good game!"), url_for(".session", session_id=gs.id))


@bp.post("/debts/<int:debt_id>/paid")
@once_per_form
@login_required
def debt_paid(debt_id: int) -> ResponseReturnValue:
    debt = mark_paid(me(), debt_id)  # refused: said on the page it came from
    flash(_("%(payer)s has paid %(payee)s: the debt is settled.", payer=debt.payer,
            payee=debt.payee), "ok")
    return redirect(back())


# -- putting sessions away -------------------------------------------------------------------

@bp.post("/sessions/<int:session_id>/archive")
@once_per_form
@login_required
def archive(session_id: int) -> ResponseReturnValue:
    gs = owned_session(me(), session_id)
    archived = request.form.get("archived", "1") == "1"
    set_archived(gs, archived)
    if archived:
        flash(_("%(name)s is archived: find it under Archived sessions.", name=gs.name), "ok")
        return redirect(url_for(".index"))
    flash(_("%(name)s is back on your home page.", name=gs.name), "ok")
    return redirect(url_for(".session", session_id=gs.id))


@bp.post("/sessions/<int:session_id>/delete")
@once_per_form
@login_required
def delete(session_id: int) -> ResponseReturnValue:
    gs = owned_session(me(), session_id)
    name = gs.name
    _done, exc = attempt(lambda: delete_session(gs))
    if exc is not None:
        flash(exc.message, "error")
        return redirect(url_for(".session", session_id=session_id))
    flash(_("%(name)s is deleted.", name=name), "ok")
    return redirect(url_for(".index"))


@bp.get("/sessions/archived")
@login_required
def archived() -> ResponseReturnValue:
    return render_template("sessions/archived.html",
                           cards=[session_card(gs) for gs in archived_sessions_of(me())])
