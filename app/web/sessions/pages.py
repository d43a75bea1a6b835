"""A session's pages. Each view is thin: read the form, call the ledger, flash, redirect; on a
domain error show the form again with the message beside its field, nothing stored.

Sessions are reached only by their owner (anyone else gets 404) or, read-only, through
their share link ``/s/<token>``. A closed session refuses every change with a flash.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from flask import (
    Response,
    flash,
    get_flashed_messages,
    get_template_attribute,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user
from markupsafe import Markup
from werkzeug.http import quote_etag

from ...core import Rules, TonkError, resolve_rules
from ...core.handform import Asks, chosen_of_form, form_whole, read_side_bets, side_bet_field
from ...core.tableform import amount_text, options_of_spec
from ...db.models import Author, GameSession, Hand
from ...db.unit import writes
from ...http.compress import held
from ...services.errors import SessionClosedError, VersionConflictError
from ...services.leagues import league_rules, league_stake, members, my_leagues
from ...services.sessions import (
    Stamp,
    StateCache,
    change_rules,
    check_room,
    correct_hand,
    create_session,
    get_hand,
    known_player_names,
    ledger_of,
    open_debts_of,
    owned_session,
    owned_stamp,
    phone_table,
    player_names,
    record_hand,
    replace_share_link,
    running_totals,
    seated_names,
    session_rules,
    session_stake,
    shared_session,
    stamp_by_token,
    stamp_of,
    void_hand,
)
from ..shared import bp
from ..shared.chart import WIDTH as CHART_WIDTH
from ..shared.chart import chart_height, chart_svg
from ..shared.fields import hand_fields_context, rules_context
from ..shared.form_tokens import once_per_form
from ..shared.forms import (
    Errors,
    HandValues,
    RulesValues,
    hand_field,
    problem_words,
    read_hand_form,
    read_rules,
)
from ..shared.links import card_url, decode_data, qr_code
from ..shared.pagecache import kept_page
from ..shared.present import (
    hand_detail,
    hand_row,
    hand_rules,
    minor_label,
    other_rules,
    recorded,
    session_card,
    table,
    total_rows,
    use_currency,
)
from ..shared.queries import hands_page, page_arg, sessions_page
from ..shared.sidebets import (
    BET_TITLES,
    chosen_of_hand,
    side_bet_lines,
)
from ..shared.site import attempt, form_change, login_required, me
from .forms import (
    FEW_SEATS,
    MAX_SEATS,
    SessionValues,
    change_rules_field,
    read_session_form,
    session_field,
)
from .pay import SERVICES, pay_views
from .result import result_picture, result_text

T = TypeVar("T")


def form_page(template: str, errors: Errors, status: int | None = None,
              **context: Any) -> ResponseReturnValue:
    """A form page; 422 when it is shown again with errors (``status``: another answer)."""
    return render_template(template, errors=errors, **context), \
        status or (422 if errors else 200)


def open_session(session_id: int) -> GameSession:
    """The signed-in account's session, which must still be open."""
    gs = owned_session(me(), session_id)
    if gs.is_closed:
        raise SessionClosedError("closed")
    return gs


# -- home and new sessions -------------------------------------------------------------------

@bp.get("/")
def index() -> ResponseReturnValue:
    if not current_user.is_authenticated:
        return render_template("sessions/welcome.html")
    pages = sessions_page(me(), page_arg())
    return render_template("sessions/home.html", pages=pages,
                           cards=[session_card(gs) for gs in pages.items],
                           leagues=my_leagues(me()), debts=open_debts_of(me()))


def linked_rules(token: str) -> Rules:
    """A rule card's ``?rules=`` (the whole spec, preset included), or pagat's rules when the
    link holds none: the form then shows them, and any option can still be changed."""
    try:
        return resolve_rules(decode_data(token))
    except ValueError:  # a TonkError too
        return resolve_rules(None)


def league_seats(league: Any) -> list[str]:
    """A league's new session starts with its members in the seats (the README: a
    league's players are its members), the first eight, the rest left to the datalist."""
    names = [m.name for m in members(league)][:MAX_SEATS]
    return names + [""] * (MAX_SEATS - len(names))


@bp.route("/sessions/new", methods=["GET", "POST"])
@once_per_form
@login_required
def new_session() -> ResponseReturnValue:
    leagues = {str(league.id): league for league in my_leagues(me())}
    values = SessionValues()
    errors: Errors = {}
    league = leagues.get(request.args.get("league", ""))
    if league is not None:  # "New session in this league": the league's defaults
        values = SessionValues(stake=str(league_stake(league)), currency=league.currency,
                               rules=RulesValues.of(league_rules(league)), league=str(league.id),
                               side_bets=options_of_spec(json.loads(league.side_bets_json
                                                                    or "{}")),
                               players=league_seats(league))
    elif request.args.get("rules"):  # "Start a session with these rules" on a rule card
        values = SessionValues(rules=RulesValues.of(linked_rules(request.args["rules"])))
    if request.method == "POST":
        values, args, errors = read_session_form(request.form)
        league = leagues.get(values.league)
        if values.league and league is None:
            errors["league"] = _("Choose one of the leagues you run.")
        if not errors:
            gs, exc = attempt(lambda: create_session(me(), **args))
            if gs is not None:
                flash(_("%(name)s has started. Shuffle up and deal!", name=gs.name), "ok")
                return redirect(url_for(".session", session_id=gs.id))
            assert exc is not None
            errors = {session_field(exc.field, values.players): exc.message}
    known = ([m.name for m in members(league)] if league is not None
             else known_player_names(me()))
    return form_page("sessions/new_session.html", errors, values=values, seats=range(MAX_SEATS),
                     more_seats=any(values.players[FEW_SEATS:]), few_seats=FEW_SEATS,
                     known=known, leagues=list(leagues.values()), problem_words=problem_words(),
                     **rules_context(values.rules, errors))


# -- the session page and its chart ----------------------------------------------------------
#
# What a page shows of one state of a session (its live part, each hand's card, the chart,
# the QR code of its link) is made once per state and kept per process, keyed by the
# session's stamp (app.services.sessions.live): a key names one state exactly, so a cached part is
# never stale. A page that is asked for again costs the session's row and the page's frame.

LIVE_PARTS: StateCache[Markup] = StateCache(256)
HAND_CARDS: StateCache[Markup] = StateCache(8192)
CHARTS: StateCache[str] = StateCache(128)


def lang() -> str:
    return str(get_locale() or "en")


def hand_card(gs: GameSession, token: str | None, hand: Hand) -> Markup:
    """A hand's card in the list: fixed for each version of the hand (and language)."""
    def make() -> Markup:
        item = get_template_attribute("macros.html", "hand_item")
        return Markup(item(gs, token, hand_row(hand), hand_rules(hand).scoring))
    # (the session's share token too: random, it keeps apart two databases one process
    # has served, as a test run does)
    return HAND_CARDS.get((gs.share_token, hand.id, hand.version, token or "", lang()), make)


def live_url(gs: GameSession, token: str | None, page: int) -> str:
    args: dict[str, Any] = {"page": page} if page > 1 else {}
    return (url_for(".shared_live", token=token, **args) if token is not None
            else url_for(".session_live", session_id=gs.id, **args))


def live_part(gs: GameSession, token: str | None, page: int) -> Markup:
    """What changes with the session: totals, who pays whom, the chart, the hands, when it
    last changed. The page polls the share API and fetches this part again on a change."""
    stamp = stamp_of(gs)

    def make() -> Markup:
        pages = hands_page(gs, page)
        state, rules = ledger_of(gs), session_rules(gs)
        pay = pay_views(gs, ((t.payer, t.payee, t.amount) for t in state.transfers))
        return Markup(render_template(
            "sessions/_live.html", gs=gs, table=table(gs), state=state, pages=pages,
            totals=total_rows(state, gs),
            pay=pay, services=SERVICES, result_text=result_text(
                gs, state, rules.scoring, pay,
                url_for(".shared", token=gs.share_token, _external=True)),
            result_picture=result_picture(gs, state, rules.scoring),
            cards=[hand_card(gs, token, h) for h in pages.items],
            next_dealer=gs.dealer, token=token, stamp=stamp, bet_titles=BET_TITLES,
            phone=phone_table(gs, state) if token is None and not gs.is_closed else None,
            chart_size=(CHART_WIDTH, chart_height(len(player_names(gs)))),
            left={s.name for s in gs.seats if s.left_at is not None}))
    return LIVE_PARTS.get((stamp.tag, gs.share_token, token is not None, lang(), page), make)


def live_response(gs: GameSession, token: str | None) -> ResponseReturnValue:
    stamp = stamp_of(gs)
    tag = f"{stamp.etag(lang())}.{page_arg()}"
    seen = held(tag, request.if_none_match)
    if seen:
        response = Response(status=304)
    else:
        response = Response(live_part(gs, token, page_arg()), mimetype="text/html")
    response.set_etag(seen or tag)
    response.headers["Cache-Control"] = "no-cache"
    response.vary.add("Accept-Language")
    return response


def session_page(gs: GameSession | Callable[[], GameSession], stamp: Stamp, share_token: str,
                 token: str | None, just_recorded: Sequence[Hand] = ()) -> ResponseReturnValue:
    """The session page, for its owner (``token`` None) or read-only through its share link.
    ``gs`` may be a loader: a page kept for this state needs no more than ``stamp``."""
    page = page_arg()

    def render() -> str:
        session = gs() if callable(gs) else gs
        use_currency(session.currency)
        share_url = url_for(".shared", token=share_token, _external=True)
        rules_url = card_url(session_rules(session))
        return render_template(
            "sessions/session.html", gs=session, live=live_part(session, token, page), token=token,
            can_edit=token is None and not session.is_closed, share_url=share_url,
            card_url=rules_url,
            qr=qr_code(share_url), live_url=live_url(session, token, page),
            poll_url=url_for("api.share", token=share_token),
            etag=quote_etag(stamp.etag(lang())),
            recorded=[recorded(h) for h in just_recorded],
            scoring=session_rules(session).scoring if just_recorded else None)
    if just_recorded:
        return render()
    reader = current_user.id if current_user.is_authenticated else None
    return kept_page(("session", stamp.tag, share_token, token is None, reader, lang(), page,
                      request.host_url), render)


@bp.get("/sessions/<int:session_id>")
@login_required
def session(session_id: int) -> ResponseReturnValue:
    numbers = [int(n) for n in map(str, get_flashed_messages(category_filter=["hand"]))
               if n.isdigit()]
    if numbers:  # the hands just recorded, drawn afresh
        gs = owned_session(me(), session_id)
        return session_page(gs, stamp_of(gs), gs.share_token, None,
                            [get_hand(gs, n) for n in numbers])
    stamp, share_token = owned_stamp(me(), session_id)  # a kept page needs no more
    return session_page(lambda: owned_session(me(), session_id), stamp, share_token, None)


@bp.get("/sessions/<int:session_id>/live")
@login_required
def session_live(session_id: int) -> ResponseReturnValue:
    return live_response(owned_session(me(), session_id), None)


def chart(gs: GameSession) -> ResponseReturnValue:
    use_currency(gs.currency)
    stamp = stamp_of(gs)
    tag = stamp.etag(lang())
    seen = held(tag, request.if_none_match)
    if seen:
        response = Response(status=304)
    else:
        response = Response(CHARTS.get((stamp.tag, gs.share_token, lang()), lambda: chart_svg(
            player_names(gs), running_totals(gs),
            label=minor_label(session_rules(gs).scoring),
            title=_("Running totals: %(name)s", name=gs.name))), mimetype="image/svg+xml")
    response.set_etag(seen or tag)
    response.headers["Cache-Control"] = "no-cache"
    response.vary.add("Accept-Language")
    return response


@bp.get("/sessions/<int:session_id>/chart.svg")
@login_required
def session_chart(session_id: int) -> ResponseReturnValue:
    return chart(owned_session(me(), session_id))


# -- recording and correcting hands ----------------------------------------------------------

def hand_names(gs: GameSession, hand: Hand | None) -> tuple[str, ...]:
    """Who a hand form is about: the players at the table now, or a stored hand's own."""
    return tuple(hand.data["players"]) if hand is not None else seated_names(gs)


def hand_form(gs: GameSession, rules: Rules, values: HandValues, errors: Errors,
              correcting: Hand | None = None, version: int | None = None,
              conflict: Hand | None = None, keeper: str | None = None,
              meanwhile: Hand | None = None) -> ResponseReturnValue:
    """The record or correct form; ``version``: the one a correction is made from;
    ``conflict``: the hand as someone else changed it meanwhile, shown beside the form;
    ``meanwhile``: the hand someone else recorded since the record form was opened."""
    names = hand_names(gs, correcting)
    use_currency(gs.currency)
    return form_page(
        "sessions/hand_form.html", errors, 409 if meanwhile is not None else None, gs=gs,
        values=values, correcting=correcting, version=version,
        conflict=hand_detail(conflict) if conflict is not None else None,
        meanwhile=hand_detail(meanwhile) if meanwhile is not None else None,
        side_bets=side_bet_lines(gs.side_bets_spec, names, values.side_bets),
        scoring=rules.scoring, keeper=keeper,
        phone=None if correcting or keeper else phone_table(gs),
        **hand_fields_context(rules, names))


def typed_hand(gs: GameSession, rules: Rules, names: tuple[str, ...]
               ) -> tuple[HandValues, dict[str, Any], Errors]:
    """The hand form as typed: what it shows again, the hand's data, the form's errors."""
    values, data, errors = read_hand_form(request.form, names, rules, Asks.of(rules))
    values.side_bets = chosen_of_form(request.form, gs.side_bets_spec, names)
    return values, data, errors


def save_hand(gs: GameSession, rules: Rules, save: Callable[[dict[str, Any]], Hand],
              correcting: Hand | None = None
              ) -> tuple[HandValues, Errors, Hand | None, TonkError | None]:
    """Read the hand form and hand it to ``save`` (record or correct)."""
    names = hand_names(gs, correcting)
    values, data, errors = typed_hand(gs, rules, names)
    plays, bets = read_side_bets(values.side_bets or {})
    if plays:
        data["side_bets"] = plays
    if errors:
        return values, errors, None, None
    hand, exc = attempt(lambda: save(data))
    if exc is not None:
        return values, {side_bet_field(exc.field, bets) or hand_field(exc, names):
                        exc.message}, None, exc
    return values, {}, hand, None


@bp.route("/sessions/<int:session_id>/hands/new", methods=["GET", "POST"])
@once_per_form
@login_required
def record(session_id: int) -> ResponseReturnValue:
    gs = open_session(session_id)
    return record_view(gs, me(), url_for(".session", session_id=gs.id))


def record_view(gs: GameSession, author: Author, back: str,
                keeper: str | None = None) -> ResponseReturnValue:
    """The record form of an open session, for its scorekeeper (an account, or a table's
    link): saved, back to ``back`` with the hand shown."""
    rules = session_rules(gs)
    values = HandValues(dealer=gs.dealer)
    errors: Errors = {}
    if request.method == "GET":
        check_room(gs)  # a table that has played its round's hands is not offered the form
    seen = form_whole(request.form.get("after", "")) if request.method == "POST" else ""
    if isinstance(seen, int) and seen < gs.hand_count:
        # A hand was recorded since this form was opened (another phone, another tab): it
        # may be this very hand. Shown, and saved only when sent again (a form made now).
        values, _data, _errors = typed_hand(gs, rules, hand_names(gs, None))
        return hand_form(gs, rules, values, {}, keeper=keeper,
                         meanwhile=get_hand(gs, gs.hand_count))
    if request.method == "POST":
        values, errors, hand, _exc = save_hand(gs, rules,
                                               lambda data: record_hand(gs, author, data))
        if hand is not None:
            flash(str(hand.number), "hand")
            return redirect(back)
    return hand_form(gs, rules, values, errors, keeper=keeper)


def _version_seen() -> int | str | None:
    """The version the correct or void form was made from (its hidden field), as a number
    (None: the form says none)."""
    seen = request.form.get("version", "")
    return form_whole(seen) if seen else None


def correct_view(gs: GameSession, number: int, author: Author, back: str,
                 keeper: str | None = None) -> ResponseReturnValue:
    """The correct form of a hand; saved, on to ``back`` (the hand's page)."""
    hand = get_hand(gs, number)
    rules = hand_rules(hand)
    values = HandValues.of_hand(hand.data, hand_names(gs, hand))
    values.side_bets = chosen_of_hand(hand.data)
    errors: Errors = {}
    version, conflict = hand.version, None
    if request.method == "POST":
        reason, seen = request.form.get("reason", ""), _version_seen()
        values, errors, saved, exc = save_hand(
            gs, rules, lambda data: correct_hand(gs, author, number, data, reason, seen), hand)
        if saved is not None:
            flash(_("Hand %(n)s is corrected; the totals follow.", n=number), "ok")
            return redirect(back)
        if isinstance(exc, VersionConflictError):  # saving again corrects what is there now
            hand = get_hand(gs, number)
            version, conflict = hand.version, hand
        else:
            version = seen if isinstance(seen, int) else hand.version
    return hand_form(gs, rules, values, errors, correcting=hand, version=version,
                     conflict=conflict, keeper=keeper)


def hand_page(gs: GameSession, hand: Hand, token: str | None,
              errors: Errors | None = None, keeper: str | None = None) -> ResponseReturnValue:
    """A hand, for its scorekeeper (an account, or ``keeper``: a table's link) or read-only
    through the share link ``token``."""
    use_currency(gs.currency)
    return render_template("sessions/hand.html", gs=gs, detail=hand_detail(hand), token=token,
                           scoring=hand_rules(hand).scoring, errors=errors or {},
                           other_rulings=other_rules(hand), keeper=keeper,
                           can_edit=(token is None or keeper is not None)
                           and not gs.is_closed), \
        422 if errors else 200


@bp.get("/sessions/<int:session_id>/hands/<int:number>")
@login_required
def hand(session_id: int, number: int) -> ResponseReturnValue:
    gs = owned_session(me(), session_id)
    return hand_page(gs, get_hand(gs, number), None)


def void_hand_view(gs: GameSession, number: int, author: Author, back: str,
                   keeper: str | None = None) -> ResponseReturnValue:
    """Void a hand with its reason; done, on to ``back`` (the hand's page)."""
    get_hand(gs, number)
    return form_change(
        lambda: void_hand(gs, author, number, request.form.get("reason", ""),
                          _version_seen()),
        lambda exc: hand_page(  # a conflict: the page shows the hand as it is now
            gs, get_hand(gs, number), None,
            {"reason" if exc.field == "reason" else "void": exc.message}, keeper=keeper),
        _("Hand %(n)s is void: it no longer counts.", n=number), back)


def owners_hand(view: Callable[[GameSession, int, Author, str], ResponseReturnValue]
                ) -> Callable[[int, int], ResponseReturnValue]:
    """``view`` (correct, void: as a table's link has them, :mod:`app.web.tournaments`) for
    the signed-in account's own open session, its forms carried out once; done, on to the
    hand's page."""

    @once_per_form
    @login_required
    def owners(session_id: int, number: int) -> ResponseReturnValue:
        gs = open_session(session_id)
        return view(gs, number, me(), url_for(".hand", session_id=gs.id, number=number))

    return owners


bp.add_url_rule("/sessions/<int:session_id>/hands/<int:number>/correct", "correct",
                owners_hand(correct_view), methods=["GET", "POST"])
bp.add_url_rule("/sessions/<int:session_id>/hands/<int:number>/void", "void",
                owners_hand(void_hand_view), methods=["POST"])


# -- house rules -----------------------------------------------------------------------------

@bp.route("/sessions/<int:session_id>/rules", methods=["GET", "POST"])
@once_per_form
@login_required
def rules(session_id: int) -> ResponseReturnValue:
    gs = open_session(session_id)
    values, stake = RulesValues.of(session_rules(gs)), str(session_stake(gs))
    errors: Errors = {}
    if request.method == "POST":
        values, spec, errors = read_rules(request.form)
        stake = amount_text(request.form.get("stake", ""))
        if not errors:
            changed, exc = attempt(lambda: change_rules(gs, me(), rules=spec,
                                                        stake=stake or None))
            if exc is None:
                flash(_("New house rules from hand %(n)s on.", n=gs.hand_count + 1) if changed
                      else _("Nothing changed: the house rules and stake stay as they were."),
                      "ok" if changed else "info")
                return redirect(url_for(".session", session_id=gs.id))
            errors = {change_rules_field(exc.field): exc.message}
    return form_page("sessions/rules.html", errors, gs=gs, table=table(gs), stake=stake,
                     **rules_context(values, errors))


# -- the share link --------------------------------------------------------------------------

@bp.post("/sessions/<int:session_id>/share")
@writes
@login_required
def replace_share(session_id: int) -> ResponseReturnValue:
    """Revoke the share link and make a new one (a link that went too far)."""
    gs = owned_session(me(), session_id)
    replace_share_link(gs)
    flash(_("The old share link no longer works; here is a new one."), "ok")
    return redirect(url_for(".session", session_id=gs.id))


@bp.get("/s/<token>")
def shared(token: str) -> ResponseReturnValue:
    return session_page(lambda: shared_session(token), stamp_by_token(token), token, token)


@bp.get("/s/<token>/live")
def shared_live(token: str) -> ResponseReturnValue:
    return live_response(shared_session(token), token)


@bp.get("/s/<token>/chart.svg")
def shared_chart(token: str) -> ResponseReturnValue:
    return chart(shared_session(token))


@bp.get("/s/<token>/hands/<int:number>")
def shared_hand(token: str, number: int) -> ResponseReturnValue:
    gs = shared_session(token)
    return hand_page(gs, get_hand(gs, number), token)
