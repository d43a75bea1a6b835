"""A league's own facts: finding it and what it holds (members, admins, seasons, default
rules and stake), and changing them; the table a new league session starts with."""
from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, TypeVar

from sqlalchemy import (
    func,
    select,
)

from ...core import Rules, TonkError, resolve_rules
from ...core.dates import parse_day
from ...core.messages import Message
from ...core.money import parse_stake, stake_of, to_minor
from ...core.names import MAX_NAME, clean_text, name_key
from ...db.ids import is_id, row_by_id
from ...db.models import League, LeagueAdmin, Player, Season, User, utcnow
from ...extensions import db
from ..accounts import normal_email
from ..sessions import is_league_admin, parse_currency, rules_of, side_bets_text
from .common import MAX_LEAGUE_NAME, MAX_SEASON_NAME, LeagueError, LeagueNotFoundError

# -- finding ---------------------------------------------------------------------------------

def _id(value: Any) -> int | None:
    """A database id from a path, a query or a body; None for anything that is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    return value if is_id(value) else None


def my_leagues(user: User) -> list[League]:
    """The leagues ``user`` runs (owns or is an admin of), by name."""
    return list(db.session.scalars(
        select(League).join(LeagueAdmin, LeagueAdmin.league_id == League.id)
        .where(LeagueAdmin.user_id == user.id).order_by(func.lower(League.name), League.id)))


def admin_league(user: User, league_id: Any) -> League:
    """The league ``league_id`` if ``user`` is one of its admins, else
    :class:`LeagueNotFoundError`."""
    league = row_by_id(League, _id(league_id))
    if league is None or not is_league_admin(user, league.id):
        raise LeagueNotFoundError(Message("league.not_yours", league_id=league_id), "league")
    return league


def get_member(league: League, player_id: Any) -> Player:
    return _of_league(league, row_by_id(Player, _id(player_id)),
                      Message("league.no_member", player_id=player_id), "player")


def get_season(league: League, season_id: Any) -> Season:
    return _of_league(league, row_by_id(Season, _id(season_id)),
                      Message("league.no_season", season_id=season_id), "season")


_Held = TypeVar("_Held", Player, Season)


def _of_league(league: League, row: _Held | None, missing: Message, field: str) -> _Held:
    """``row`` if it is ``league``'s, else :class:`LeagueNotFoundError` (``missing``)."""
    if row is None or row.league_id != league.id:
        raise LeagueNotFoundError(missing, field)
    return row


def league_rules(league: League) -> Rules:
    return rules_of(league.rules_json)


def league_stake(league: League) -> Decimal:
    """The default stake, as the league's scoring writes it (the one rule: stake_of)."""
    return stake_of(league.stake_minor, league_rules(league))


def members(league: League) -> list[Player]:
    return list(db.session.scalars(select(Player).where(Player.league_id == league.id)
                                   .order_by(func.lower(Player.name), Player.id)))


def admins(league: League) -> list[User]:
    """The league's admins, its owner first."""
    users = db.session.scalars(select(User).join(LeagueAdmin, LeagueAdmin.user_id == User.id)
                               .where(LeagueAdmin.league_id == league.id)
                               .order_by(func.lower(User.email)))
    return sorted(users, key=lambda u: u.id != league.owner_id)


def current_season(league: League, today: date | None = None) -> Season | None:
    """The season under way today (the latest-starting one, if several are)."""
    today = today or utcnow().date()
    running = [s for s in league.seasons if s.starts_on <= today <= s.ends_on]
    return max(running, key=lambda s: (s.starts_on, s.id)) if running else None


# -- changing a league -----------------------------------------------------------------------

@dataclass(frozen=True)
class _Defaults:
    """A league's validated defaults: rules (JSON text), stake and currency."""

    rules_json: str
    stake_minor: int
    currency: str
    side_bets_json: str | None = None


def _defaults(rules: Any, stake: Any, currency: Any, side_bets: Any = None) -> _Defaults:
    resolved = resolve_rules(rules)
    money = parse_currency(currency)
    amount = parse_stake(stake, resolved, money)
    return _Defaults(json.dumps(resolved.to_json()), to_minor(amount), money,
                  side_bets_text(side_bets, stake=amount, rules=resolved,
                                 currency=money))


def _name(value: Any) -> str:
    return clean_text(value, LeagueError, "name", Message("league.what_name"), MAX_LEAGUE_NAME)


def create_league(user: User, *, name: Any, rules: Any = "pagat", stake: Any = None,
                  currency: Any = None, side_bets: Any = None) -> League:
    """A new league run by ``user``: its owner and first admin."""
    name = _name(name)
    table = _defaults(rules, stake, currency, side_bets)
    league = League(name=name, owner_id=user.id, rules_json=table.rules_json,
                    stake_minor=table.stake_minor, currency=table.currency,
                    side_bets_json=table.side_bets_json,
                    share_token=secrets.token_urlsafe(16), created_at=utcnow())
    db.session.add(league)
    db.session.flush()
    db.session.add(LeagueAdmin(league_id=league.id, user_id=user.id))
    db.session.flush()
    return league


def edit_league(league: League, *, name: Any, rules: Any, stake: Any = None,
                currency: Any = None, side_bets: Any = None) -> None:
    """A new name, and new defaults for the sessions started from now on (their side bets
    too: None for none)."""
    name = _name(name)
    table = _defaults(rules, stake, currency, side_bets)
    league.name, league.rules_json = name, table.rules_json
    league.stake_minor, league.currency = table.stake_minor, table.currency
    league.side_bets_json = table.side_bets_json
    db.session.flush()


def add_admin(league: League, email: Any) -> User:
    """Let the account with this email run the league too."""
    try:
        address = normal_email(email)
    except TonkError as exc:
        raise LeagueError(exc.message, "email") from None
    user: User | None = db.session.scalar(
        select(User).where(func.lower(User.email) == address))
    if user is None:
        raise LeagueError(Message("league.no_account", address=address), "email")
    if db.session.get(LeagueAdmin, (league.id, user.id)) is not None:
        raise LeagueError(Message("league.already_admin", address=address), "email")
    db.session.add(LeagueAdmin(league_id=league.id, user_id=user.id))
    db.session.flush()
    return user


def remove_admin(league: League, user_id: Any) -> None:
    found = _id(user_id)
    admin = db.session.get(LeagueAdmin, (league.id, found)) if found is not None else None
    if admin is None:
        raise LeagueNotFoundError(Message("league.no_admin", user_id=user_id), "admin")
    if admin.user_id == league.owner_id:
        raise LeagueError(Message("league.owner_runs"), "admin")
    db.session.delete(admin)
    db.session.flush()


def _member_name(league: League, value: Any, keep: Player | None = None) -> str:
    name = clean_text(value, LeagueError, "name", Message("league.what_member"), MAX_NAME)
    taken = db.session.scalar(select(Player).where(
        Player.league_id == league.id, Player.name_key == name_key(name)))
    if taken is not None and taken is not keep:
        raise LeagueError(Message("league.member_twice", name=taken.name), "name")
    return name


def add_member(league: League, user: User, name: Any) -> Player:
    """A new member (names are unique in a league, whatever their case or Unicode form)."""
    player = Player(owner_id=user.id, league_id=league.id, name=_member_name(league, name))
    db.session.add(player)
    db.session.flush()
    return player


def rename_member(league: League, player_id: Any, name: Any) -> Player:
    """A member's new name, for the league's pages and the sessions to come; the sessions
    already played keep the name they were played under."""
    player = get_member(league, player_id)
    player.name = _member_name(league, name, keep=player)
    db.session.flush()
    return player


def _day(value: Any, field: str, what: str) -> date:
    return parse_day(value, LeagueError, field, what)


def add_season(league: League, *, name: Any, starts_on: Any, ends_on: Any) -> Season:
    """A season: a name and its first and last day (both included). Seasons may overlap."""
    name = clean_text(name, LeagueError, "name", Message("league.what_season"),
                      MAX_SEASON_NAME)
    first = _day(starts_on, "starts_on", "the first day")
    last = _day(ends_on, "ends_on", "the last day")
    if last < first:
        raise LeagueError(Message("league.season_order", last=last, first=first),
                          "ends_on")
    twin = next((s for s in league.seasons if name_key(s.name) == name_key(name)), None)
    if twin is not None:  # (the season picker would show two alike)
        raise LeagueError(Message("league.season_twice", name=twin.name), "name")
    season = Season(league_id=league.id, name=name, starts_on=first, ends_on=last)
    db.session.add(season)
    db.session.flush()
    db.session.refresh(league)
    return season


def remove_season(league: League, season_id: Any) -> None:
    """Drop a season (a date range only: no session or hand changes)."""
    db.session.delete(get_season(league, season_id))
    db.session.flush()
    db.session.expire(league, ["seasons"])  # read again without it


def session_table(user: User, data: Mapping[str, Any]) -> dict[str, Any]:
    """For a new session that may name a league: the checked league id, and the rules,
    stake and currency sent, the league's defaults filling in what is not."""
    table = {k: data.get(k) for k in ("rules", "stake", "currency", "side_bets")}
    if data.get("league") is None:
        return {"league_id": None, **table}
    league = admin_league(user, data["league"])
    defaults = {"rules": json.loads(league.rules_json), "stake": str(league_stake(league)),
                "currency": league.currency,
                "side_bets": json.loads(league.side_bets_json or "{}") or None}
    return {"league_id": league.id,
            **{k: defaults[k] if v is None else v for k, v in table.items()}}
