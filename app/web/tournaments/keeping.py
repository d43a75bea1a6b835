"""The tournament pages. First the table's scorekeeping link, ``/t/<token>``: the phone
that holds it records, corrects and voids hands at that one table while its round is open,
with no account (on behalf of the director, named by table and round in each hand's
history). The record and correct forms and the hand page are the session's own
(:mod:`app.web.sessions`); only who records and where the page goes back to differ."""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from flask import g, get_flashed_messages, render_template, url_for
from flask.typing import ResponseReturnValue
from markupsafe import Markup

from ...db.models import EventTable
from ...services.events import keeper_author, keeper_table, linked_table, round_over, table_result
from ...services.sessions import get_hand, ledger_of, session_rules
from ..sessions import correct_view, hand_page, record_view, void_hand_view
from ..shared import bp
from ..shared.form_tokens import once_per_form
from ..shared.links import qr_code
from ..shared.present import hand_row, recorded, table
from ..shared.queries import hands_page, page_arg

View = TypeVar("View", bound=Callable[..., Any])


def _table(token: str) -> EventTable:
    """The table of a scorekeeping link (its round open), kept for the request."""
    found: EventTable = g.get("keeper_table") or keeper_table(token)
    g.keeper_table = found
    return found


def by_keeper(view: View) -> View:
    """A view reached by a table's scorekeeping link: the link must lead to a table of an
    open round; its forms are carried out once, kept under the director's account."""
    once = once_per_form(view)

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        found = _table(kwargs["token"])
        g.form_owner = keeper_author(found)
        return once(*args, **kwargs)

    return cast(View, wrapper)


@bp.get("/t/<token>")
def keeper(token: str) -> ResponseReturnValue:
    found = linked_table(token)
    if round_over(found):
        return _after_round(found)
    g.keeper_table = found
    gs = found.session
    event = found.round.event
    pages = hands_page(gs, page_arg())
    link = url_for(".keeper", token=token, _external=True)
    return render_template(
        "events/keeper.html", gs=gs, event=event, found=found, token=token,
        table=table(gs), state=ledger_of(gs), rows=[hand_row(h) for h in pages.items],
        pages=pages, scoring=session_rules(gs).scoring, link=link,
        qr=Markup(qr_code(link)), share_url=url_for(".shared", token=gs.share_token),
        counted=gs.hand_count - gs.voided_hands, needed=event.hands_per_round,
        recorded=[recorded(get_hand(gs, int(n))) for n in map(str, get_flashed_messages(
            category_filter=["hand"])) if n.isdigit()])


def _after_round(found: EventTable) -> ResponseReturnValue:
    """A table's link once its round is over: how the table ended (its places, totals and
    hands), its players' places in the event so far and where each sits in the next round
    once it is drawn; read-only (recording is refused, :func:`by_keeper`)."""
    gs = found.session
    pages = hands_page(gs, page_arg())
    return render_template(
        "events/keeper_done.html", gs=gs, event=found.round.event, found=found,
        token=found.keeper_token, result=table_result(found),
        scoring=session_rules(gs).scoring, rows=[hand_row(h) for h in pages.items],
        pages=pages)


@bp.route("/t/<token>/hands/new", methods=["GET", "POST"])
@by_keeper
def keeper_record(token: str) -> ResponseReturnValue:
    found = _table(token)
    return record_view(found.session, keeper_author(found), url_for(".keeper", token=token),
                       keeper=token)


@bp.get("/t/<token>/hands/<int:number>")
def keeper_hand(token: str, number: int) -> ResponseReturnValue:
    gs = _table(token).session
    return hand_page(gs, get_hand(gs, number), None, keeper=token)


@bp.route("/t/<token>/hands/<int:number>/correct", methods=["GET", "POST"])
@by_keeper
def keeper_correct(token: str, number: int) -> ResponseReturnValue:
    found = _table(token)
    return correct_view(found.session, number, keeper_author(found),
                        url_for(".keeper_hand", token=token, number=number), keeper=token)


@bp.post("/t/<token>/hands/<int:number>/void")
@by_keeper
def keeper_void(token: str, number: int) -> ResponseReturnValue:
    found = _table(token)
    return void_hand_view(found.session, number, keeper_author(found),
                          url_for(".keeper_hand", token=token, number=number), keeper=token)
