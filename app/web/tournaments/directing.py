"""The tournament director's pages: set an event up, check players in (fee paid, league
members offered), withdraw them, draw each round, follow which tables are done, close a
round, and read the standings and the prize list. Thin: read the form, call
:mod:`app.services.events`, show the message beside its field or go on."""
from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any, TypeVar

from flask import flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import format_percent
from flask_babel import gettext as _
from markupsafe import Markup

from ...core.money import from_minor, plain_decimal
from ...core.placings import TIE_BREAKS, tie_break_words
from ...core.rules import PRESETS
from ...core.tableform import amount_text
from ...db.models import Event
from ...services import events as service
from ...services.leagues import my_leagues
from ..shared import bp
from ..shared.form_tokens import once_per_form
from ..shared.forms import Errors, changed_meanwhile, preset_choices, settings_mark, ticked
from ..shared.links import qr_code
from ..shared.site import attempt, form_change, login_required, me, typed, typed_list
from .standing import board_context

View = TypeVar("View", bound=Callable[..., ResponseReturnValue])

EVENT_FIELDS = ("name", "held_on", "preset", "scoring", "currency", "stake", "table_size",
                "rounds", "hands_per_round", "entry_fee", "prize_kind", "prizes",
                "house_share", "tie_break_1", "tie_break_2", "league")


def _number(text: str) -> Any:
    """A whole number typed in a form (what is not one goes on as typed, to be refused
    beside its field by the service)."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) < 10 else text


def _field(field: str | None) -> str:
    """The form field a service error names."""
    field = field or "name"
    if field.startswith("prizes"):
        return "prizes"
    if field.startswith("rules"):
        return "preset"
    if field == "tie_breaks":
        return "tie_break_1"
    return field if field in EVENT_FIELDS else "name"


def _amounts(text: str) -> list[str]:
    """Prizes typed as a list, each read as a stake is (:func:`amount_text`): split at
    semicolons when there are any (``"0,5; 0,3; 0,2"``, as the German pages write them),
    else at a comma and a space (``"0.5, 0.3, 0.2"``, ``"10,000, 5,000"``: a comma inside
    an amount is its thousands or its decimal comma), else, when that is no one amount, at
    every comma (``"0.5,0.3,0.2"``). Splitting at every comma made "10,000, 5,000" yen four
    prizes, ¥10, ¥0, ¥5 and ¥0."""
    if ";" in text:
        parts = text.split(";")
    else:
        parts = re.split(r",\s+", text)
        if len(parts) == 1 and not plain_decimal(amount_text(text)):
            parts = text.split(",")
    return [amount_text(p) for p in parts if p.strip()]


def _event_from_form(form: Any) -> tuple[dict[str, Any], Errors]:
    values = {name: form.get(name, "").strip() for name in EVENT_FIELDS}
    parts = _amounts(values["prizes"])
    ties = [t for t in (values["tie_break_1"], values["tie_break_2"]) if t]
    league = values["league"]
    spec = {"name": values["name"], "rules": values["preset"] or "pagat",
            "scoring": values["scoring"] or "points", "currency": values["currency"] or None,
            "stake": amount_text(values["stake"]) or None,
            "table_size": _number(values["table_size"]),
            "rounds": _number(values["rounds"]),
            "hands_per_round": _number(values["hands_per_round"]),
            "entry_fee": amount_text(values["entry_fee"]) or None,
            "prizes": ({"fixed": parts} if values["prize_kind"] == "fixed" else parts) or None,
            "house_share": amount_text(values["house_share"]) or None, "tie_breaks": ties,
            "held_on": values["held_on"] or None,
            "league": _number(league) if league else None}
    return {"values": values, "spec": spec}, {}


@bp.get("/events")
@login_required
def events() -> ResponseReturnValue:
    return render_template("events/list.html", events=service.events_of(me()))


#: What the new-event form holds before anything is typed.
NEW_EVENT = {"table_size": "4", "rounds": "3", "hands_per_round": "8", "prize_kind": "shares",
             "scoring": "points", "currency": "USD", "entry_fee": "0",
             "preset": "pagat"}


def _values_of(settings: dict[str, Any]) -> dict[str, str]:
    """An event's settings (:func:`service.settings_of`) as its form holds them (``preset``
    empty: rules changed from their preset, kept as they are unless another preset is
    chosen)."""
    rules, prizes, ties = settings["rules"], settings["prizes"], settings["tie_breaks"]
    changed = set(rules) - {"preset", "scoring"}
    return {"name": settings["name"], "held_on": settings["held_on"],
            "preset": "" if changed else rules.get("preset", "pagat"),
            "scoring": settings["scoring"], "currency": settings["currency"],
            "stake": typed(settings["stake"]), "entry_fee": typed(settings["entry_fee"]),
            "table_size": str(settings["table_size"]), "rounds": str(settings["rounds"]),
            "hands_per_round": str(settings["hands_per_round"]),
            "prize_kind": "fixed" if isinstance(prizes, dict) else "shares",
            "prizes": typed_list(prizes["fixed"] if isinstance(prizes, dict) else prizes),
            "house_share": typed(settings["house_share"]),
            "tie_break_1": ties[0] if ties else "", "tie_break_2": ties[1] if ties[1:] else "",
            "league": str(settings["league"] or "")}


def _settings_page(event: Event | None) -> ResponseReturnValue:
    """A new event's form, or an event's settings (what its tables play under greyed out
    once a round is drawn); saved, the director's page."""
    shown = None if event is None else service.settings_of(event)  # (as they stand now)
    values = {**NEW_EVENT, "prizes": typed_list(["0.5", "0.3", "0.2"])} if shown is None \
        else _values_of(shown)
    locked = {"preset" if f == "rules" else f for f in service.TABLE_SETTINGS} \
        if event is not None and event.round_rows else set()
    final = event is not None and service.is_final(event)
    if final:  # (the results are made from these too)
        locked |= set(service.RESULT_SETTINGS.values()) | {
            "prize_kind", "tie_break_1", "tie_break_2"}
    errors: Errors = {}
    meanwhile = None
    if request.method == "POST":
        read, errors = _event_from_form(request.form)
        if shown is not None:
            meanwhile = changed_meanwhile(shown)
        values = {**values, **{k: v for k, v in read["values"].items() if k not in locked}}
        spec = read["spec"]
        if event is not None and not values["preset"]:
            spec.pop("rules")  # (rules changed from a preset: kept as they are)
        spec = {k: v for k, v in spec.items() if k not in locked and
                not (k == "rules" and "preset" in locked)}
        made, exc = (None, None) if meanwhile else attempt(
            lambda: service.create_event(me(), **spec) if event is None
            else service.change_event(me(), event, **spec))
        if made is not None:
            flash(_("The event is set up: check the players in.") if event is None
                  else _("The settings are saved."), "ok")
            return redirect(url_for(".event", event_id=made.id))
        if exc is not None:  # (every setting refused, each beside its field)
            every = exc.refused if isinstance(exc, service.EventSettingsError) else {
                exc.field: exc}
            errors = {_field(field): refusal.message for field, refusal in every.items()}
        if meanwhile:
            errors = {"form": meanwhile, **errors}
    return render_template(
        "events/new.html", values=values, errors=errors, presets=preset_choices(),
        tie_breaks=[(k, str(w)) for k, w in zip(TIE_BREAKS, tie_break_words(list(TIE_BREAKS)),
                                                 strict=True)],
        leagues=my_leagues(me()), known_presets=PRESETS, event=event,
        locked=locked, final=final, seen=shown and settings_mark(shown)), \
        409 if meanwhile else 422 if errors else 200


@bp.route("/events/new", methods=["GET", "POST"])
@once_per_form
@login_required
def new_event() -> ResponseReturnValue:
    return _settings_page(None)


@bp.post("/events/<int:event_id>/delete")
@once_per_form
@login_required
def delete_event(event_id: int) -> ResponseReturnValue:
    event = service.owned_event(me(), event_id)
    name = event.name
    _done, exc = attempt(lambda: service.delete_event(event))
    if exc is not None:
        flash(exc.message, "error")
        return redirect(url_for(".event", event_id=event_id))
    flash(_("%(name)s is deleted.", name=name), "ok")
    return redirect(url_for(".events"))


@bp.route("/events/<int:event_id>/settings", methods=["GET", "POST"])
@once_per_form
@login_required
def event_settings(event_id: int) -> ResponseReturnValue:
    return _settings_page(service.owned_event(me(), event_id))


def director_page(event: Event, errors: Errors | None = None,
                  typed: str = "") -> ResponseReturnValue:
    """The director's page of ``event``, with a form's errors beside their fields."""
    playing = service.open_round(event)
    board_url = url_for(".board", token=event.board_token, _external=True)
    tables = []
    if playing is not None:
        for table in playing.tables:
            link = url_for(".keeper", token=table.keeper_token, _external=True)
            tables.append({"row": table, "link": link, "qr": Markup(qr_code(link)),
                           "done": service.table_done(event, table),
                           "hands": table.session.hand_count - table.session.voided_hands})
    context = board_context(event)
    payout = service.payout_of(event)
    # what the event was set up with, read before the first draw (no prize list yet)
    settings = {"house": format_percent(Decimal(event.house_share), format="#,##0.##%"),
                "fixed": payout.kind == "fixed",
                "prizes": [format_percent(a, format="#,##0.##%") for a in payout.amounts]
                if payout.kind == "shares" else list(payout.amounts)}
    not_paid = {p.name for p in event.players if service.owes_fee(event, p)}
    unpaid_winners = [name for prize in context["prizes"].prizes for name in prize.players
                      if name in not_paid] if context["prizes"] else []
    return render_template(
        "events/director.html", errors=errors or {}, typed=typed,
        playing=playing, tables=tables, board_url=board_url, fee=from_minor(event.fee_minor),
        offered=service.league_names(event), active=len(service.active_players(event)),
        unpaid=service.unpaid_players(event), unpaid_winners=unpaid_winners,
        settings=settings,
        **context), 422 if errors else 200


@bp.get("/events/<int:event_id>")
@login_required
def event(event_id: int) -> ResponseReturnValue:
    return director_page(service.owned_event(me(), event_id))


def _act(event_id: int, action: Any, field: str, done: str,
         typed: str = "", own: frozenset[str] = frozenset()) -> ResponseReturnValue:
    """Do ``action`` on the event, then go back to its page; a refusal is shown beside
    ``field`` (or beside its own field, when it is one of ``own``)."""
    event = service.owned_event(me(), event_id)
    return form_change(
        lambda: action(event),
        lambda exc: director_page(service.owned_event(me(), event_id),
                                  {exc.field if exc.field in own else field: exc.message}, typed),
        done, url_for(".event", event_id=event_id))


def director_form(rule: str) -> Callable[[View], View]:
    """A form of the director's pages, posted to ``rule``: carried out once (its one-time
    token), for the signed-in director."""

    def register(view: View) -> View:
        bp.post(rule)(once_per_form(login_required(view)))
        return view

    return register


@director_form("/events/<int:event_id>/players")
def event_check_in(event_id: int) -> ResponseReturnValue:
    name = request.form.get("name", "")
    return _act(event_id, lambda e: service.check_in(e, name, ticked("paid")),
                "name", _("%(name)s is checked in.", name=name.strip()), name)


@director_form("/events/<int:event_id>/players/<name>/paid")
def event_paid(event_id: int, name: str) -> ResponseReturnValue:
    return _act(event_id, lambda e: service.set_paid(e, name, ticked("paid")), "players",
                _("%(name)s: the fee is recorded.", name=name))


@director_form("/events/<int:event_id>/players/<name>/withdraw")
def event_withdraw(event_id: int, name: str) -> ResponseReturnValue:
    return _act(event_id, lambda e: service.withdraw(e, name), "players",
                _("%(name)s is withdrawn from the next round on.", name=name))


@director_form("/events/<int:event_id>/rounds")
def event_draw(event_id: int) -> ResponseReturnValue:
    seed = request.form.get("seed", "").strip()
    chosen = _number(seed) if seed else None
    unpaid = request.form.get("unpaid") or None
    return _act(event_id, lambda e: service.draw_next_round(e, me(), chosen, unpaid), "draw",
                _("The round is drawn: hand each table its link."), own=frozenset({"unpaid"}))


@director_form("/events/<int:event_id>/rounds/<int:number>/close")
def event_close(event_id: int, number: int) -> ResponseReturnValue:
    return _act(event_id, lambda e: service.close_round(e, number, ticked("force")), "close",
                _("Round %(n)s is closed.", n=number))


@bp.get("/events/<int:event_id>/rounds/<int:number>/links")
@login_required
def event_links(event_id: int, number: int) -> ResponseReturnValue:
    """Every table's scorekeeping link of a round with its QR code, on one sheet to print
    and lay on the tables."""
    event = service.owned_event(me(), event_id)
    this = service.get_round(event, number)
    tables = []
    for table in this.tables:
        link = url_for(".keeper", token=table.keeper_token, _external=True)
        tables.append({"row": table, "link": link, "qr": Markup(qr_code(link))})
    return render_template("events/links.html", event=event, round=this, tables=tables)


@director_form("/events/<int:event_id>/rounds/<int:number>/tables/<int:table>/link")
def event_new_link(event_id: int, number: int, table: int) -> ResponseReturnValue:
    return _act(event_id, lambda e: service.replace_keeper_link(e, number, table), "close",
                _("Table %(t)s has a new link; the old one no longer works.", t=table))
