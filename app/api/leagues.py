"""The league endpoints of the JSON API: a caller's leagues, a new league, its members,
admins and seasons, standings, a player's record, and ratings.

Every endpoint needs a personal token and answers only for the leagues the caller runs
(owns or is an admin of); any other league is "not found". Money and points travel as
decimal strings; ratings (not money) as numbers. The views are thin: read, call
:mod:`app.services.leagues`, answer JSON; errors are raised and answered in ``errors.py``.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Annotated, Any, ClassVar

from flask import Response, jsonify, request, url_for
from flask_babel import gettext as _
from pydantic import Field, SkipValidation, WithJsonSchema, with_config
from typing_extensions import TypedDict

from ..core.money import CENT_PLACES, average_of_minor, from_minor
from ..core.series import MAX_POINTS
from ..db.models import League, Player, Season, User
from ..services import leagues as service
from ..services.leagues import RATING_SORTS, SCORINGS, SORTS
from .answers import ErrorJson
from .door import ABSENT, Body, api, needed
from .errors import BadRequest
from .kinds import (
    DAY,
    DOCSTRINGS,
    Count,
    Currency,
    Day,
    Key,
    Money,
    Name,
    Rules,
    SideBets,
    Stake,
    Text,
    When,
    about,
    choice,
)
from .params import LEAGUE_ID, PLAYER_ID, query
from .routes import created
from .sessions import iso_time

_RATE = Decimal("0.0001")
LG = (LEAGUE_ID,)
_SCORING = {"type": "string", "enum": list(SCORINGS)}
_SCORING_QUERY = query("scoring", _SCORING, "Default: the league's own scoring if played.")
_DIR_QUERY = query("dir", {"type": "string", "enum": ["asc", "desc"]}, "Default: best first.")


class NewLeague(Body):
    """A league to start."""

    what: ClassVar[str] = "a league"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"name": "Fridays", "rules": "chicago", "stake": "0.50", "currency": "EUR"},)
    name: Text = needed()
    rules: Rules = Field(ABSENT, description="Default house rules of its sessions.")
    stake: Stake = ABSENT
    currency: Currency = ABSENT
    side_bets: SkipValidation[SideBets | None] = Field(
        ABSENT, description="What its sessions play unless told otherwise.")


class NewMember(Body):
    """A member to add."""

    what: ClassVar[str] = "a member"
    examples: ClassVar[tuple[dict[str, Any], ...]] = ({"name": "Dee"},)
    name: Name = needed(description="Unique in the league, whatever its case.")


class NewAdmin(Body):
    """Another account to run the league."""

    what: ClassVar[str] = "an admin"
    email: SkipValidation[str] = needed(description="Of an existing account.")


class NewSeason(Body):
    """Both days included (UTC days); seasons may overlap."""

    what: ClassVar[str] = "a season"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"name": "Spring", "starts_on": "2026-03-01", "ends_on": "2026-05-31"},)
    name: Text = needed()
    starts_on: Day = needed()
    ends_on: Day = needed()


# -- answers ---------------------------------------------------------------------------------

Scoring = Annotated[str, choice(SCORINGS)]


@with_config(DOCSTRINGS)
class LeagueSummaryJson(TypedDict):
    """A league in the list of those you run."""

    id: Key
    name: str
    scoring: Scoring
    currency: str
    created_at: When


@with_config(DOCSTRINGS)
class MemberJson(TypedDict):
    """A member of a league."""

    id: Key
    name: str


@with_config(DOCSTRINGS)
class AdminJson(TypedDict):
    """An account that runs a league."""

    email: str
    name: str
    owner: bool


@with_config(DOCSTRINGS)
class SeasonJson(TypedDict):
    """A season of a league."""

    id: Key
    name: str
    starts_on: Annotated[str, WithJsonSchema(DAY)]
    ends_on: Annotated[str, WithJsonSchema(DAY)]


@with_config(DOCSTRINGS)
class LeagueJson(TypedDict):
    """A league: its defaults for new sessions, members, admins and seasons."""

    id: Key
    name: str
    rules: Rules
    """Default house rules."""
    scoring: Scoring
    stake: str
    currency: str
    side_bets: dict[str, Any]
    """What its sessions play unless told otherwise."""
    members: list[MemberJson]
    admins: list[AdminJson]
    seasons: list[SeasonJson]
    created_at: When


@with_config(DOCSTRINGS)
class RecordJson(TypedDict):
    """A player's numbers over a season or all time. Money and points are decimal strings
    (points whole)."""

    player: MemberJson
    net: Annotated[Money, about("Money or points won; under push-ups, points pushed up (lower "
                                "is better).")]
    sessions: Count
    hands: Count
    hands_won: Count
    tonks_out: Count
    drops_won: Count
    times_caught: Count
    win_rate: Annotated[str, about("Hands won / hands, 4 places.")]
    average: Annotated[str, about("Net per hand, 2 places.")]


@with_config(DOCSTRINGS)
class StandingJson(RecordJson):
    """A row of the standings."""

    place: Key
    """By net, best first (push-ups: lowest total first); equal nets share a place."""


@with_config(DOCSTRINGS)
class StandingsJson(TypedDict):
    """Standings for a season or all time."""

    season: SeasonJson | None
    """null: all time."""
    scoring: Scoring
    scorings: list[Scoring]
    """The scorings played in the league."""
    currency: str
    sort: str
    dir: Annotated[str, choice(["asc", "desc"])]
    rows: list[StandingJson]


@with_config(DOCSTRINGS)
class SessionResultJson(TypedDict):
    """A session's result for a player."""

    session: Key
    name: str
    played_at: When
    net: Money
    hands: Count


@with_config(DOCSTRINGS)
class SeasonRecordJson(TypedDict):
    """A player's record in a season (null: did not play in it)."""

    season: SeasonJson
    record: RecordJson | None


@with_config(DOCSTRINGS)
class RunningJson(TypedDict):
    """The running total after a session."""

    session: Count
    """The session's place in the player's sessions, from 1."""
    total: Money


@with_config(DOCSTRINGS)
class HeadToHeadJson(TypedDict):
    """A player against one opponent, over the sessions both played."""

    player: MemberJson
    sessions: Count
    ahead: Count
    behind: Count
    even: Count
    net: Money
    their_net: Money


@with_config(DOCSTRINGS)
class PlayerRecordJson(TypedDict):
    """A member's record: by season, running total, best and worst sessions, head to head."""

    player: MemberJson
    scoring: Scoring
    scorings: list[Scoring]
    sessions: Count
    all_time: RecordJson | None
    seasons: list[SeasonRecordJson]
    running: Annotated[list[RunningJson], about(
        f"Running total after each session (thinned to at most {MAX_POINTS} points, keeping "
        "every swing).")]
    best: list[SessionResultJson]
    """Biggest wins (push-ups: lowest totals), at most 5."""
    worst: list[SessionResultJson]
    """Biggest losses (push-ups: highest totals), at most 5."""
    head_to_head: list[HeadToHeadJson]


@with_config(DOCSTRINGS)
class RatingJson(TypedDict):
    """A member's openskill (Plackett-Luce) rating."""

    player: MemberJson
    mu: float
    """openskill (Plackett-Luce) rating."""
    sigma: float
    """Its uncertainty."""
    ordinal: float
    """mu - 3 sigma: the skill shown."""
    sessions: Count


def _amounts(scoring: str) -> Callable[[int], str]:
    """Hundredths → a decimal string: money with two places, points as whole numbers."""
    if scoring == "money":
        return lambda minor: f"{from_minor(minor):.2f}"
    return lambda minor: f"{from_minor(minor):.0f}"


def _exact(value: Fraction, places: Decimal) -> str:
    return str((Decimal(value.numerator) / Decimal(value.denominator))
               .quantize(places, rounding=ROUND_HALF_EVEN))


def season_json(season: Season) -> SeasonJson:
    return {"id": season.id, "name": season.name, "starts_on": season.starts_on.isoformat(),
            "ends_on": season.ends_on.isoformat()}


def member_json(player: Player) -> MemberJson:
    return {"id": player.id, "name": player.name}


def admin_json(user: User, league: League) -> AdminJson:
    return {"email": user.email, "name": user.name, "owner": user.id == league.owner_id}


def league_summary(league: League) -> LeagueSummaryJson:
    return {"id": league.id, "name": league.name,
            "scoring": service.league_scoring(league), "currency": league.currency,
            "created_at": iso_time(league.created_at)}


def league_json(league: League) -> LeagueJson:
    """A league: its defaults for new sessions, members, admins and seasons."""
    return {"id": league.id, "name": league.name,
            "rules": json.loads(league.rules_json),
            "scoring": service.league_scoring(league),
            "stake": str(service.league_stake(league)), "currency": league.currency,
            "side_bets": json.loads(league.side_bets_json or "{}"),
            "members": [member_json(p) for p in service.members(league)],
            "admins": [admin_json(u, league) for u in service.admins(league)],
            "seasons": [season_json(s) for s in league.seasons],
            "created_at": iso_time(league.created_at)}


def standing_json(row: service.Standing, scoring: str) -> StandingJson:
    """A row of the standings: its place, the player and their numbers."""
    return {"place": row.place, **record_json(row, scoring)}


def record_json(row: service.Standing, scoring: str) -> RecordJson:
    """A player's numbers over a season or all time."""
    amount = _amounts(scoring)
    return {"player": {"id": row.player_id, "name": row.name},
            "net": amount(row.net_minor), "sessions": row.sessions, "hands": row.hands,
            "hands_won": row.hands_won, "tonks_out": row.tonks_out,
            "drops_won": row.drops_won, "times_caught": row.times_caught,
            "win_rate": _exact(row.win_rate, _RATE),
            "average": str(average_of_minor(row.average_minor, CENT_PLACES))}


def _query(name: str) -> str | None:
    """A query parameter: absent is None (the default); given, it must say something (the
    OpenAPI document's enums hold no empty value: ``?sort=`` is a 422 naming it, as any
    other value that is not one of them)."""
    if name not in request.args:
        return None
    value = request.args[name].strip()
    if not value:
        raise BadRequest(_("%(name)s is empty: give one of its values, or leave it out",
                           name=name), name, 422)
    return value


def _season(league: League) -> Season | None:
    """``?season=``: a season's id; absent, empty or ``all``: all time (the document allows
    the empty value; a form's "all time" choice may well send it)."""
    value = request.args.get("season", "").strip()
    return None if value in ("", "all") else service.get_season(league, value)


def _league(user: User, league_id: int) -> League:
    return service.admin_league(user, league_id)


@api.get("/leagues", "The leagues you run.",
         {"200": ("Summaries.", list[LeagueSummaryJson])})
def list_leagues(user: User) -> Response:
    return jsonify([league_summary(league) for league in service.my_leagues(user)])


@api.post("/leagues", "Start a league: you are its owner and first admin.",
          {"201": ("The league.", LeagueJson)})
def create_league(user: User, body: NewLeague) -> Response:
    league = service.create_league(user, name=body.name,
                                   rules=body.sent().get("rules", "pagat"), stake=body.stake,
                                   currency=body.currency, side_bets=body.side_bets)
    return created(league_json(league), url_for("api.get_league", league_id=league.id))


@api.get("/leagues/<int:league_id>", "A league: defaults, members, admins, seasons.",
         {"200": ("The league.", LeagueJson)}, LG)
def get_league(user: User, league_id: int) -> Response:
    return jsonify(league_json(_league(user, league_id)))


@api.post("/leagues/<int:league_id>/members", "Add a member.",
          {"201": ("The member.", MemberJson)}, LG)
def add_member(user: User, league_id: int, body: NewMember) -> Response:
    league = _league(user, league_id)
    player = service.add_member(league, user, body.name)
    return created(member_json(player), url_for("api.get_player", league_id=league.id,
                                                 player_id=player.id))


@api.post("/leagues/<int:league_id>/admins", "Let another account run the league.",
          {"201": ("The admin.", AdminJson)}, LG)
def add_admin(user: User, league_id: int, body: NewAdmin) -> Response:
    league = _league(user, league_id)
    admin = service.add_admin(league, body.email)
    return created(admin_json(admin, league), url_for("api.get_league", league_id=league.id))


@api.post("/leagues/<int:league_id>/seasons", "Add a season.",
          {"201": ("The season.", SeasonJson)}, LG)
def add_season(user: User, league_id: int, body: NewSeason) -> Response:
    league = _league(user, league_id)
    season = service.add_season(league, name=body.name, starts_on=body.starts_on,
                                ends_on=body.ends_on)
    return created(season_json(season), url_for("api.get_league", league_id=league.id))


@api.get("/leagues/<int:league_id>/standings", "Standings for a season or all time.", {
    "200": ("The standings.", StandingsJson),
    "422": ("An unknown scoring, sort or direction.", ErrorJson)},
    (LEAGUE_ID, {**query("season", {"type": "string"}, "A season's id, or all (the default, "
                         "as is an empty value): all time."), "allowEmptyValue": True},
     _SCORING_QUERY, query("sort", {"type": "string", "enum": list(SORTS)}, "Default: net."),
     _DIR_QUERY))
def get_standings(user: User, league_id: int) -> Response:
    league = _league(user, league_id)
    table = service.standings(league, _season(league), _query("scoring"),
                              sort=_query("sort") or "net", direction=_query("dir"))
    answer: StandingsJson = {
        "season": season_json(table.season) if table.season else None,
        "scoring": table.scoring, "scorings": list(table.scorings),
        "currency": league.currency, "sort": table.sort, "dir": table.direction,
        "rows": [standing_json(row, table.scoring) for row in table.rows]}
    return jsonify(answer)


@api.get("/leagues/<int:league_id>/players/<int:player_id>", "A member's record: by season, "
         "running total, best and worst sessions, head to head.", {
             "200": ("The record.", PlayerRecordJson), "422": ("An unknown scoring.", ErrorJson)},
         (LEAGUE_ID, PLAYER_ID, _SCORING_QUERY))
def get_player(user: User, league_id: int, player_id: int) -> Response:
    league = _league(user, league_id)
    player = service.get_member(league, player_id)
    record = service.player_record(league, player, _query("scoring"))
    amount = _amounts(record.scoring)

    def result(r: service.SessionResult) -> SessionResultJson:
        return {"session": r.session_id, "name": r.name, "played_at": iso_time(r.played_at),
                "net": amount(r.net_minor), "hands": r.hands}

    answer: PlayerRecordJson = {
        "player": member_json(player), "scoring": record.scoring,
        "scorings": list(record.scorings), "sessions": record.sessions,
        "all_time": record_json(record.all_time, record.scoring)
        if record.all_time else None,
        "seasons": [{"season": season_json(s),
                     "record": record_json(row, record.scoring) if row else None}
                    for s, row in record.seasons],
        "running": [{"session": n, "total": amount(total)} for n, total in record.running],
        "best": [result(r) for r in record.best],
        "worst": [result(r) for r in record.worst],
        "head_to_head": [{"player": {"id": h.opponent_id, "name": h.name},
                          "sessions": h.sessions, "ahead": h.ahead, "behind": h.behind,
                          "even": h.even, "net": amount(h.net_minor),
                          "their_net": amount(h.their_net_minor)}
                         for h in record.head_to_head]}
    return jsonify(answer)


@api.get("/leagues/<int:league_id>/ratings", "The members' openskill ratings, best skill "
         "first.", {"200": ("The ratings.", list[RatingJson]),
                    "422": ("An unknown sort or direction.", ErrorJson)},
         (LEAGUE_ID, query("sort", {"type": "string", "enum": list(RATING_SORTS)},
                           "Default: ordinal."), _DIR_QUERY))
def get_ratings(user: User, league_id: int) -> Response:
    league = _league(user, league_id)
    sort = _query("sort") or "ordinal"
    direction = _query("dir") or ("asc" if sort == "player" else "desc")
    answer: list[RatingJson] = [
        {"player": {"id": r.player_id, "name": r.name}, "mu": r.mu, "sigma": r.sigma,
         "ordinal": r.ordinal, "sessions": r.sessions}
        for r in service.ratings(league, sort, direction)]
    return jsonify(answer)
