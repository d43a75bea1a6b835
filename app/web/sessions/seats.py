"""The seats on the session page: a player joins (at the dealer's right, or after a named
player) or leaves, with a small form; a leaver is pointed to their own transfers at
settle-up. Thin: the change is :func:`app.services.sessions.seats.change_seats`'s."""
from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _

from ...core.handform import MAX_TEXT
from ...services.sessions import change_seats, seated_names
from ..shared import bp
from ..shared.form_tokens import once_per_form
from ..shared.site import attempt, login_required, me
from .pages import open_session


@bp.route("/sessions/<int:session_id>/seats", methods=["GET", "POST"])
@once_per_form
@login_required
def seats(session_id: int) -> ResponseReturnValue:
    gs = open_session(session_id)
    errors: dict[str, str] = {}
    typed = {k: request.form.get(k, "").strip()[:MAX_TEXT] for k in ("join", "after", "leave")}
    if request.method == "POST":
        joining = bool(typed["join"]) or "leave" not in request.form
        if not joining and not typed["leave"]:
            errors = {"leave": _("Choose who leaves.")}
            return render_template("sessions/seats.html", gs=gs, seated=seated_names(gs),
                                   errors=errors, typed=typed), 422
        _done, exc = attempt(lambda: change_seats(
            gs, me(), join=typed["join"] if joining else None,
            after=typed["after"] or None if joining else None,
            leave=None if joining else typed["leave"]))
        if exc is None:
            if joining:
                flash(_("%(name)s joins the table.", name=typed["join"]), "ok")
            else:
                flash(_("%(name)s left the table: their total stays in settle-up.",
                        name=typed["leave"]), "ok")
            return redirect(url_for(".session", session_id=gs.id))
        errors = {exc.field if exc.field in ("join", "after", "leave") else "join":
                  exc.message}
    return render_template("sessions/seats.html", gs=gs, seated=seated_names(gs), errors=errors,
                           typed=typed), 422 if errors else 200
