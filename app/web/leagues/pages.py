"""The league pages: my leagues, a new league, a league's standings, ratings and sessions, a
player's page, the hands behind a number, and the league's settings (name, default rules
and stake, members, admins, seasons).

Only a league's admins reach its pages; for anyone else a league is not there (404). The
views are thin: read the query or the form, call :mod:`app.services.leagues`, and hand the page what
it shows, every number already written (see "what the pages show" below).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import wraps
from typing import Any, TypeVar
from urllib.parse import urlencode

from babel.numbers import get_group_symbol
from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import format_decimal, format_percent, get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup
from sqlalchemy.orm import selectinload

from ...core.money import MINUS, average_of_minor, average_places, format_number, from_minor
from ...core.tableform import (
    Options,
    amount_text,
    option_field,
    options_of_form,
    options_of_spec,
    rules_field,
    spec_of_options,
)
from ...db.models import GameSession, League, Season
from ...db.unit import writes
from ...extensions import db
from ...services import leagues as service
from ...services.sessions import is_league_admin, open_debts_of_league, open_debts_of_player
from ..shared.chart import chart_svg
from ..shared.fields import rules_context
from ..shared.forms import Errors, RulesValues, changed_meanwhile, read_rules, settings_mark
from ..shared.links import card_url
from ..shared.present import minor_label, outcome_word, rules_named, score, session_card
from ..shared.queries import page_arg, player_sessions_page
from ..shared.site import attempt, form_change, login_required, me

SESSIONS_PER_PAGE = 20

#: The league pages' blueprint, with their style sheet (``static/leagues.css``).
bp = Blueprint("leagues", __name__, static_folder="static", static_url_path="/leagues/static")

T = TypeVar("T")
LeagueView = Callable[..., ResponseReturnValue]


def league_of(league_id: int) -> League:
    return service.admin_league(me(), league_id)


# -- what the pages show ---------------------------------------------------------------------

COLUMN_TITLES: dict[str, Any] = {
    "player": _l("Player"), "net": _l("Net"), "sessions": _l("Sessions"),
    "hands": _l("Hands"), "hands_won": _l("Won"), "tonks_out": _l("Tonks out"),
    "drops_won": _l("Drops won"), "times_caught": _l("Caught"), "win_rate": _l("Win rate"),
    "average": _l("Per hand"),
}
RATING_TITLES: dict[str, Any] = {
    "player": _l("Player"), "ordinal": _l("Skill"), "mu": _l("Rating ± uncertainty"),
    "sessions": _l("Sessions"),
}
SCORING_TITLES: dict[str, Any] = {"money": _l("Money"), "points": _l("Points"),
                                  "push_ups": _l("Push-ups")}
STAT_TITLES: dict[str, Any] = {
    "net": _l("every hand"), "sessions": _l("every hand"), "hands": _l("every hand"),
    "average": _l("every hand"), "hands_won": _l("hands won"), "win_rate": _l("hands won"),
    "tonks_out": _l("tonks out"), "drops_won": _l("drops won"),
    "times_caught": _l("times caught"),
}


def column_title(column: str, scoring: str) -> str:
    if column == "net" and scoring == "push_ups":
        return _("Pushed up")
    if column == "net" and scoring == "points":
        return _("Points")
    return str(COLUMN_TITLES[column])


def per_hand(average_minor: Any, scoring: str, currency: str | None) -> Markup:
    """An average per hand with its sign (none under push-ups), to the places the league's
    amounts have (a yen league's in whole yen: :func:`app.core.money.average_places`)."""
    places = average_places(scoring, currency)
    rounded = average_of_minor(average_minor, places)
    text = format_number(abs(rounded), places, str(get_locale() or "en"))
    if scoring == "push_ups":
        return Markup('<span class="amt">{}</span>').format(text)
    tone, sign = ("pos", "+") if rounded > 0 else ("neg", MINUS) if rounded < 0 else ("zero", "")
    return Markup('<span class="amt {}">{}{}</span>').format(tone, sign, text)


def rate(fraction: Any) -> str:
    value = Decimal(fraction.numerator) / Decimal(fraction.denominator)
    return str(format_percent(value, format="#,##0.0%"))


def whole(number: int) -> str:
    """A count with the reader's thousands separator (three-digit groups, as in every
    language the pages speak), without Babel's pattern machinery: a table has hundreds."""
    return f"{number:,}".replace(",", get_group_symbol(str(get_locale() or "en")))


def hands_link(league: League, player_id: int, here: Mapping[str, str]) -> Callable[[str], str]:
    """``stat`` → the link to the hands behind that number of ``player_id`` (built once as
    text: a standings table has hundreds of these links)."""
    base = url_for(".hands", league_id=league.id)
    sessions = url_for(".sessions", league_id=league.id)
    tail = urlencode(here)
    return lambda stat: (f"{sessions}?player={player_id}&{tail}" if stat == "sessions"
                         else f"{base}?player={player_id}&stat={stat}&{tail}")


@dataclass(frozen=True)
class Cell:
    """One number of a table, and where it leads (the hands behind it)."""

    column: str
    text: Markup | str
    href: str | None = None


def cells(row: service.Standing, scoring: str, link: Callable[[str], str],
          columns: Sequence[str], currency: str | None) -> list[Cell]:
    """A standings row's numbers, each linked by ``link(stat)`` to the hands behind it;
    money with the places of the league's ``currency``."""
    shown: dict[str, Markup | str] = {
        "net": score(row.net, scoring, currency), "sessions": whole(row.sessions),
        "hands": whole(row.hands), "hands_won": whole(row.hands_won),
        "tonks_out": whole(row.tonks_out), "drops_won": whole(row.drops_won),
        "times_caught": whole(row.times_caught), "win_rate": rate(row.win_rate),
        "average": per_hand(row.average_minor, scoring, currency)}
    return [Cell(c, shown[c], link(c)) for c in columns]


@dataclass(frozen=True)
class Header:
    column: str
    title: str
    href: str
    sorted: str | None  # "asc"/"desc" when the table is sorted by this column


def headers(columns: Sequence[str], titles: Callable[[str], str], current: str,
            direction: str, default: Callable[[str], str],
            url: Callable[[str, str], str]) -> list[Header]:
    """Column headers that sort the table: again on the sorted one turns it around."""
    out = []
    for column in columns:
        if column == current:
            flip = "asc" if direction == "desc" else "desc"
            out.append(Header(column, titles(column), url(column, flip), direction))
        else:
            out.append(Header(column, titles(column), url(column, default(column)), None))
    return out


@dataclass(frozen=True)
class StandingLine:
    place: int
    player_id: int
    name: str
    href: str
    cells: list[Cell]


@dataclass(frozen=True)
class RatingLine:
    player_id: int
    name: str
    href: str
    skill: str
    rating: str
    sessions: str


def rating_line(league: League, row: service.RatingRow) -> RatingLine:
    def one(x: float) -> str:
        text = str(format_decimal(abs(x), format="#,##0.0"))
        return MINUS + text if round(x, 1) < 0 else text

    return RatingLine(row.player_id, row.name,
                      url_for(".player", league_id=league.id, player_id=row.player_id),
                      one(row.ordinal), f"{one(row.mu)} ± {one(row.sigma)}",
                      whole(row.sessions))


@dataclass(frozen=True)
class Tab:
    title: str
    href: str
    current: bool


def scoring_tabs(scorings: Sequence[str], current: str,
                 url: Callable[[str], str]) -> list[Tab]:
    """A tab for each scoring kept (none shown when there is only one)."""
    return [Tab(str(SCORING_TITLES[s]), url(s), s == current) for s in scorings]


def season_value(season: Season | None) -> str:
    return "all" if season is None else str(season.id)


def chosen_season(league: League, value: str | None) -> Season | None:
    """``?season=``: a season's id, ``all`` for all time; none given: the season under way,
    else all time."""
    if value is None or value == "":
        return service.current_season(league)
    if value == "all":
        return None
    return service.get_season(league, value)


def chosen(value: str | None, allowed: Sequence[str]) -> str | None:
    """A query value if it is one of ``allowed``, else None (the page's default)."""
    return value if value in allowed else None


# -- my leagues and a new league -------------------------------------------------------------

@bp.get("/leagues")
@login_required
def index() -> ResponseReturnValue:
    return render_template("leagues/index.html", leagues=service.my_leagues(me()))


@dataclass
class LeagueValues:
    """What the league form shows: name, default stake and currency, house rules."""

    name: str = ""
    stake: str = "1.00"
    currency: str = "USD"
    rules: RulesValues = field(default_factory=RulesValues)
    side_bets: Options = field(default_factory=lambda: options_of_spec(None))

    @classmethod
    def of(cls, league: League) -> LeagueValues:
        return cls(league.name, str(service.league_stake(league)), league.currency,
                   RulesValues.of(service.league_rules(league)),
                   options_of_spec(json.loads(league.side_bets_json or "{}")))


LEAGUE_FIELDS = ("name", "stake", "currency")


def read_league_form(form: Any) -> tuple[LeagueValues, dict[str, Any], Errors]:
    rules, spec, errors = read_rules(form)
    values = LeagueValues(form.get("name", "").strip()[:500],
                          amount_text(form.get("stake", "")),
                          form.get("currency", "").strip()[:500], rules,
                          options_of_form(form))
    args = {"name": values.name, "rules": spec, "stake": values.stake or None,
            "currency": values.currency, "side_bets": spec_of_options(values.side_bets)}
    return values, args, errors


def league_field(field: str | None) -> str:
    if field and field.startswith("side_bets"):
        return option_field(field)
    return rules_field(field) or (field if field in LEAGUE_FIELDS else "form")


def league_form(template: str, values: LeagueValues, errors: Errors,
                status: int | None = None, **context: Any) -> ResponseReturnValue:
    return render_template(template, values=values, errors=errors,
                           **rules_context(values.rules, errors), **context), \
        status or (422 if errors else 200)


@bp.route("/leagues/new", methods=["GET", "POST"])
@writes
@login_required
def new() -> ResponseReturnValue:
    values, errors = LeagueValues(), Errors()
    if request.method == "POST":
        values, args, errors = read_league_form(request.form)
        if not errors:
            league, exc = attempt(lambda: service.create_league(me(), **args))
            if league is not None:
                flash(_("%(name)s is ready: add its seasons, or start its first session.",
                        name=league.name), "ok")
                return redirect(url_for(".league", league_id=league.id))
            assert exc is not None
            errors = {league_field(exc.field): exc.message}
    return league_form("leagues/new.html", values, errors)


# -- a league: standings, ratings, sessions --------------------------------------------------

@bp.get("/leagues/<int:league_id>")
@login_required
def league(league_id: int) -> ResponseReturnValue:
    league = league_of(league_id)
    season = chosen_season(league, request.args.get("season"))
    scoring = chosen(request.args.get("scoring"), service.SCORINGS)
    sort = chosen(request.args.get("sort"), service.SORTS) or "net"
    direction = chosen(request.args.get("dir"), ("asc", "desc"))
    table = service.standings(league, season, scoring, sort=sort, direction=direction)
    here: dict[str, Any] = {"season": season_value(season), "scoring": table.scoring}

    def sort_url(column: str, way: str) -> str:
        return url_for(".league", league_id=league.id, sort=column, dir=way, **here)

    columns = service.SORTS[1:]
    lines = [StandingLine(r.place, r.player_id, r.name,
                          url_for(".player", league_id=league.id, player_id=r.player_id,
                                  scoring=table.scoring),
                          cells(r, table.scoring, hands_link(league, r.player_id, here),
                                columns, league.currency))
             for r in table.rows]
    rsort = chosen(request.args.get("rsort"), service.RATING_SORTS) or "ordinal"
    rdir = chosen(request.args.get("rdir"), ("asc", "desc")) or \
        ("asc" if rsort == "player" else "desc")
    rated = [rating_line(league, r) for r in service.ratings(league, rsort, rdir)]
    pages = db.paginate(service.sessions_query(league).options(
        selectinload(GameSession.seats)), page=page_arg(), per_page=SESSIONS_PER_PAGE,
        error_out=False)
    return render_template(
        "leagues/league.html", league=league, table=table, lines=lines,
        headers=headers(service.SORTS, lambda c: column_title(c, table.scoring), table.sort,
                        table.direction, lambda c: service.default_direction(c, table.scoring),
                        sort_url),
        tabs=scoring_tabs(table.scorings, table.scoring, lambda s: url_for(
            ".league", league_id=league.id, season=here["season"], scoring=s)),
        season=season, here=here, rated=rated,
        rating_headers=headers(
            ("player", "ordinal", "mu", "sessions"), lambda c: str(RATING_TITLES[c]), rsort,
            rdir, lambda c: "asc" if c == "player" else "desc",
            lambda c, way: url_for(".league", league_id=league.id, rsort=c, rdir=way,
                                   **here) + "#ratings"),
        pages=pages, cards=[session_card(gs) for gs in pages.items],
        rules=rules_named(service.league_rules(league)),
        card_link=card_url(service.league_rules(league)),
        stake=service.league_stake(league), scoring=service.league_scoring(league),
        debts=open_debts_of_league(league.id), can_mark=is_league_admin(me(), league.id))


# -- a player's page -------------------------------------------------------------------------

@bp.get("/leagues/<int:league_id>/players/<int:player_id>")
@login_required
def player(league_id: int, player_id: int) -> ResponseReturnValue:
    league = league_of(league_id)
    member = service.get_member(league, player_id)
    scoring = chosen(request.args.get("scoring"), service.SCORINGS)
    record = service.player_record(league, member, scoring)
    columns = service.SORTS[1:]

    def season_cells(season: Season | None, row: service.Standing | None) -> list[Cell]:
        if row is None:
            return []
        here: dict[str, Any] = {"season": season_value(season), "scoring": record.scoring}
        return cells(row, record.scoring, hands_link(league, member.id, here), columns,
                     league.currency)

    seasons = [(s, season_cells(s, row)) for s, row in record.seasons]
    chart = None
    if record.sessions:
        chart = Markup(chart_svg(
            [member.name], [(x, [y]) for x, y in record.running],
            label=minor_label(record.scoring),
            title=_("%(name)s: running total, session by session", name=member.name)))
    return render_template(
        "leagues/player.html", league=league, member=member, record=record,
        headers=[column_title(c, record.scoring) for c in columns], seasons=seasons,
        all_time=season_cells(None, record.all_time), chart=chart,
        debts=open_debts_of_player(member.id), can_mark=is_league_admin(me(), league.id),
        tabs=scoring_tabs(record.scorings, record.scoring, lambda s: url_for(
            ".player", league_id=league.id, player_id=member.id, scoring=s)))


# -- the hands behind a number ---------------------------------------------------------------

@bp.get("/leagues/<int:league_id>/hands")
@login_required
def hands(league_id: int) -> ResponseReturnValue:
    league = league_of(league_id)
    member = service.get_member(league, request.args.get("player"))
    stat = chosen(request.args.get("stat"), tuple(service.STATS)) or "hands"
    season = chosen_season(league, request.args.get("season") or "all")
    scoring = chosen(request.args.get("scoring"), service.SCORINGS) or \
        service.league_scoring(league)
    pages = service.hands_behind(league, member, stat, season, scoring, page_arg())
    net, by_hands = service.net_parts(league, member, season, scoring) \
        if stat in ("net", "average") else (None, None)  # (the average: the net a hand)
    return render_template(
        "leagues/hands.html", league=league, member=member, stat=stat, net=net,
        by_hands=by_hands,
        stat_title=str(STAT_TITLES[stat]), season=season, scoring=scoring, pages=pages,
        outcome_word=outcome_word,
        query={"player": member.id, "stat": stat, "season": season_value(season),
               "scoring": scoring})


@bp.get("/leagues/<int:league_id>/sessions")
@login_required
def sessions(league_id: int) -> ResponseReturnValue:
    """The sessions behind a member's "Sessions" number (not their hands)."""
    league = league_of(league_id)
    member = service.get_member(league, request.args.get("player"))
    season = chosen_season(league, request.args.get("season") or "all")
    scoring = chosen(request.args.get("scoring"), service.SCORINGS) or \
        service.league_scoring(league)
    pages = player_sessions_page(league, member, season, scoring, page_arg())
    rows = [(sid, name, played, hands, from_minor(net))
            for sid, net, hands, name, played in pages.items]
    return render_template(
        "leagues/sessions.html", league=league, member=member, season=season,
        scoring=scoring, pages=pages, rows=rows,
        query={"player": member.id, "season": season_value(season), "scoring": scoring})


# -- settings --------------------------------------------------------------------------------

def settings_page(league: League, values: LeagueValues | None = None,
                  errors: Errors | None = None, typed: Mapping[str, str] | None = None,
                  status: int | None = None) -> ResponseReturnValue:
    """The settings page; ``errors`` (422) beside the field of the form that failed, with
    what was ``typed`` in the small forms."""
    return league_form("leagues/settings.html", values or LeagueValues.of(league),
                       errors or {}, league=league, members=service.members(league),
                       admins=service.admins(league), typed=typed or {},
                       status=status, seen=settings_mark(_defaults_of(league)))


def _defaults_of(league: League) -> tuple[Any, ...]:
    """What the league's form changes, as stored."""
    return (league.name, league.rules_json, league.stake_minor, league.currency,
            league.side_bets_json)


@bp.route("/leagues/<int:league_id>/settings", methods=["GET", "POST"])
@writes
@login_required
def settings(league_id: int) -> ResponseReturnValue:
    league = league_of(league_id)
    if request.method == "GET":
        return settings_page(league)
    meanwhile = changed_meanwhile(_defaults_of(league))
    values, args, errors = read_league_form(request.form)
    if meanwhile:
        return settings_page(league, values, {"form": meanwhile, **errors}, status=409)
    if not errors:
        _done, exc = attempt(lambda: service.edit_league(league, **args))
        if exc is None:
            flash(_("Saved: new sessions in %(name)s start with these rules and stake.",
                    name=league.name), "ok")
            return redirect(url_for(".settings", league_id=league.id))
        errors = {league_field(exc.field): exc.message}
    return settings_page(league, values, errors)


def settings_form(rule: str) -> Callable[[LeagueView], LeagueView]:
    """A small form of a league's settings page, posted to ``rule``: carried out inside the
    write boundary, for one of the league's admins; the view is given the league."""

    def register(view: LeagueView) -> LeagueView:
        @wraps(view)
        def with_league(league_id: int, **args: Any) -> ResponseReturnValue:
            return view(league_of(league_id), **args)

        bp.post(rule)(writes(login_required(with_league)))
        return view

    return register


def small_form(league: League, prefix: str, fields: Sequence[str],
               action: Callable[[Mapping[str, str]], Any], done: str) -> ResponseReturnValue:
    """One of the settings page's small forms (a member, an admin, a season): its fields,
    named ``<prefix>-<field>``, go to ``action``; a domain error is shown beside its field."""
    typed = {f: request.form.get(f"{prefix}-{f}", "").strip()[:500] for f in fields}
    return form_change(
        lambda: action(typed),
        lambda exc: settings_page(
            league, errors={f"{prefix}-{exc.field if exc.field in fields else fields[0]}":
                            exc.message},
            typed={f"{prefix}-{f}": v for f, v in typed.items()}),
        done, url_for(".settings", league_id=league.id))


@settings_form("/leagues/<int:league_id>/members")
def add_member(league: League) -> ResponseReturnValue:
    name = request.form.get("member-name", "")
    return small_form(league, "member", ("name",),
                      lambda t: service.add_member(league, me(), t["name"]),
                      _("%(name)s is a member now.", name=" ".join(name.split())))


@settings_form("/leagues/<int:league_id>/members/<int:player_id>")
def rename_member(league: League, player_id: int) -> ResponseReturnValue:
    service.get_member(league, player_id)
    return small_form(league, f"rename-{player_id}", ("name",),
                      lambda t: service.rename_member(league, player_id, t["name"]),
                      _("Renamed."))


@settings_form("/leagues/<int:league_id>/admins")
def add_admin(league: League) -> ResponseReturnValue:
    return small_form(league, "admin", ("email",),
                      lambda t: service.add_admin(league, t["email"]),
                      _("They can run this league now."))


@settings_form("/leagues/<int:league_id>/admins/<int:user_id>/remove")
def remove_admin(league: League, user_id: int) -> ResponseReturnValue:
    service.remove_admin(league, user_id)  # refused: said on the page it came from
    flash(_("They no longer run this league."), "ok")
    if user_id == me().id:
        return redirect(url_for(".index"))
    return redirect(url_for(".settings", league_id=league.id))


@settings_form("/leagues/<int:league_id>/seasons")
def add_season(league: League) -> ResponseReturnValue:
    return small_form(league, "season", ("name", "starts_on", "ends_on"),
                      lambda t: service.add_season(league, **t), _("Season added."))


@settings_form("/leagues/<int:league_id>/seasons/<int:season_id>/remove")
def remove_season(league: League, season_id: int) -> ResponseReturnValue:
    service.remove_season(league, season_id)
    flash(_("Season removed; its sessions still count all time."), "ok")
    return redirect(url_for(".settings", league_id=league.id))
