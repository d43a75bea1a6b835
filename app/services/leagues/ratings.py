"""Ratings (openskill, Plackett-Luce): updated as each league session closes, or replayed
from the start; and the league's sessions."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Select,
    delete,
    select,
)

from ...db.models import GameSession, League, Player, Rating, utcnow
from ...db.storage import begin_write
from ...extensions import db
from ..sessions import session_closed
from .common import PSS, RATING_MODEL, SCORINGS
from .standings import best_first, check_sort

# -- ratings ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class RatingRow:
    """A member's skill: openskill's mu and its uncertainty sigma; ``ordinal`` (mu − 3σ) is
    the cautious figure the table sorts by."""

    player_id: int
    name: str
    mu: float
    sigma: float
    sessions: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


def _ranks(results: Sequence[tuple[int, int]], scoring: str) -> list[int]:
    """Each player's place (1 best; equal results share a place) from (player, net)."""
    sign = -1 if best_first(scoring) else 1
    return [1 + sum(sign * other < sign * net for _, other in results)
            for _, net in results]


def _session_results(rows: Iterable[Any]) -> tuple[str, list[tuple[int, int]]] | None:
    """A session's PlayerSessionStat rows → (scoring, [(player, net)]) under the scoring
    most of its hands were played under; None if fewer than two players counted."""
    by_scoring: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        by_scoring[row.scoring].append(row)
    if not by_scoring:
        return None
    scoring = max(by_scoring, key=lambda s: (max(r.hands for r in by_scoring[s]),
                                             -SCORINGS.index(s)))
    results = sorted((r.player_id, r.net_minor) for r in by_scoring[scoring])
    return (scoring, results) if len(results) >= 2 else None


def _rate(ratings: dict[int, tuple[float, float, int]], scoring: str,
          results: Sequence[tuple[int, int]]) -> None:
    """One match: every player of the session a team of one, ranked by their result."""
    teams = [[RATING_MODEL.rating(*ratings[p][:2]) if p in ratings else RATING_MODEL.rating()]
             for p, _ in results]
    rated = RATING_MODEL.rate(teams, ranks=[float(r) for r in _ranks(results, scoring)])
    for (player_id, _), [after] in zip(results, rated, strict=True):
        sessions = ratings[player_id][2] if player_id in ratings else 0
        ratings[player_id] = (after.mu, after.sigma, sessions + 1)


def _stat_rows(*conditions: Any) -> Any:
    """Each counted player's result in the sessions the conditions pick."""
    return (select(PSS.session_id, PSS.player_id, PSS.scoring, PSS.net_minor, PSS.hands)
            .where(PSS.hands > 0, *conditions))


def rate_session(gs: GameSession) -> None:
    """Update the ratings of a league session's players from their results in it, once it
    has closed (:data:`app.services.sessions.ledger.session_closed`), under the league's lock, as a
    re-rating is; commits. A session with fewer than two players' hands counted changes nothing."""
    if gs.league_id is None:
        return
    begin_write()
    db.session.get(League, gs.league_id, with_for_update=True)
    _rate_in_transaction(gs)
    db.session.flush()


session_closed.append(rate_session)


def _rate_in_transaction(gs: GameSession) -> None:
    """The ratings of a closed session's players, moved (in the caller's transaction)."""
    match = _session_results(db.session.execute(_stat_rows(PSS.session_id == gs.id)))
    if match is None:
        return
    scoring, results = match
    stored = {r.player_id: r for r in db.session.scalars(select(Rating).where(
        Rating.league_id == gs.league_id, Rating.player_id.in_([p for p, _ in results]))
        .with_for_update())}
    ratings = {p: (r.mu, r.sigma, r.sessions) for p, r in stored.items()}
    _rate(ratings, scoring, results)
    now = utcnow()
    for player_id, (mu, sigma, sessions) in ratings.items():
        row = stored.get(player_id)
        if row is None:
            db.session.add(Rating(league_id=gs.league_id, player_id=player_id, mu=mu,
                                  sigma=sigma, sessions=sessions, updated_at=now))
        else:
            row.mu, row.sigma, row.sessions, row.updated_at = mu, sigma, sessions, now


def rerate_league(league: League) -> None:
    """Rate the league afresh: every closed session replayed in the order it was played
    (then by id), from the model's starting rating. Deterministic; commits. Under the
    league's lock, as a session closing is (no rating is lost between read and write)."""
    begin_write()
    db.session.get(League, league.id, with_for_update=True)
    rows = db.session.execute(
        _stat_rows(GameSession.league_id == league.id, GameSession.closed_at.is_not(None),
                   PSS.league_id == league.id)
        .join(GameSession, GameSession.id == PSS.session_id)
        .order_by(GameSession.created_at, GameSession.id, PSS.player_id, PSS.scoring)).all()
    ratings: dict[int, tuple[float, float, int]] = {}
    start = 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or rows[i].session_id != rows[start].session_id:
            match = _session_results(rows[start:i])
            if match is not None:
                _rate(ratings, *match)
            start = i
    db.session.execute(delete(Rating).where(Rating.league_id == league.id))
    now = utcnow()
    db.session.add_all(Rating(league_id=league.id, player_id=p, mu=mu, sigma=sigma,
                              sessions=n, updated_at=now)
                       for p, (mu, sigma, n) in ratings.items())
    db.session.flush()


RATING_SORTS = ("player", "ordinal", "mu", "sigma", "sessions")


def ratings(league: League, sort: str = "ordinal", direction: str = "desc") -> list[RatingRow]:
    """The league's ratings, best skill (ordinal) first unless sorted otherwise."""
    check_sort(sort, direction, RATING_SORTS)
    rows = [RatingRow(r.player_id, name, r.mu, r.sigma, r.sessions)
            for r, name in db.session.execute(
                select(Rating, Player.name).join(Player, Player.id == Rating.player_id)
                .where(Rating.league_id == league.id))]

    def key(row: RatingRow) -> Any:
        return row.name.casefold() if sort == "player" else getattr(row, sort)

    by_skill = sorted(rows, key=lambda r: (-r.ordinal, r.name.casefold()))
    return sorted(by_skill, key=key, reverse=direction == "desc")


# -- the league's sessions -------------------------------------------------------------------

def sessions_query(league: League) -> Select[Any]:
    """The league's sessions, newest first (for a paged list)."""
    return (select(GameSession).where(GameSession.league_id == league.id)
            .order_by(GameSession.created_at.desc(), GameSession.id.desc()))
