"""A tournament's standings: totals over all rounds, best first, ties broken by the
director's rule.

Each player brings their total of every round, how many hands they played and how many of
them they were caught in (dropped and lost the comparison). Places go by total, highest
first; players still equal after the event's tie-breaks, applied in the order chosen, share
a place (1, 2, 2, 4). The tie-breaks are named by :data:`TIE_BREAKS`.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from .errors import TonkError
from .messages import Message

#: The tie-breaks a director may choose, each with the message id that words it.
TIE_BREAKS: dict[str, str] = {
    "best_round": "tie_break.best_round",
    "fewest_caught": "tie_break.fewest_caught",
    "most_won": "tie_break.most_won",
    "fewest_hands": "tie_break.fewest_hands",
}


class StandingsError(TonkError):
    """A tie-break rule that is not one of :data:`TIE_BREAKS`."""


@dataclass(frozen=True, slots=True)
class Record:
    """One player's play over the event: their total in each round (None for a round they
    did not sit in: no round broken even), hands played, hands won and hands caught."""

    player: str
    rounds: tuple[Decimal | None, ...]
    hands: int = 0
    won: int = 0
    caught: int = 0

    @property
    def played(self) -> tuple[Decimal, ...]:
        """The totals of the rounds they sat in."""
        return tuple(r for r in self.rounds if r is not None)

    @property
    def sat_in(self) -> tuple[bool, ...]:
        """Whether they sat in each round."""
        return tuple(r is not None for r in self.rounds)

    @property
    def round_totals(self) -> tuple[Decimal, ...]:
        """Each round's total as data carries it: 0 for a round they did not sit in (which
        :attr:`sat_in` tells apart)."""
        return tuple(Decimal(0) if r is None else r for r in self.rounds)

    @property
    def total(self) -> Decimal:
        """The sum of the rounds."""
        return sum(self.played, Decimal(0))

    @property
    def best_round(self) -> Decimal:
        """The best single round they played (0 before any)."""
        return max(self.played, default=Decimal(0))


@dataclass(frozen=True, slots=True)
class Placing:
    """A place of the standings: a player's record and the place they hold (shared when
    tied)."""

    place: int
    record: Record


def parse_tie_breaks(value: object) -> tuple[str, ...]:
    """The list of tie-break names, in the order they apply (none: ties share a place)."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise StandingsError(Message("tie_break.list", choices=", ".join(TIE_BREAKS)),
                             "tie_breaks")
    for name in value:
        if name not in TIE_BREAKS:
            raise StandingsError(Message("tie_break.unknown", value=name,
                                         choices=", ".join(TIE_BREAKS)), "tie_breaks")
    if len(set(value)) != len(value):
        raise StandingsError(Message("tie_break.twice"), "tie_breaks")
    return tuple(value)


def tie_break_words(tie_breaks: Sequence[str]) -> list[Message]:
    """Each tie-break in words, in the order it applies."""
    return [Message(TIE_BREAKS[name]) for name in tie_breaks]


def _key(record: Record, tie_breaks: Sequence[str]) -> tuple[Decimal | int, ...]:
    """Sorts best first: every part is negated where more is better."""
    parts: list[Decimal | int] = [-record.total]
    for name in tie_breaks:
        if name == "best_round":
            parts.append(-record.best_round)
        elif name == "fewest_caught":
            parts.append(record.caught)
        elif name == "most_won":
            parts.append(-record.won)
        else:
            parts.append(record.hands)
    return tuple(parts)


def standings(records: Iterable[Record], tie_breaks: Sequence[str] = ()) -> list[Placing]:
    """Every record in place order, best first; equal records share the better place.
    Players of one place are listed by name."""
    ranked = sorted(records, key=lambda r: (_key(r, tie_breaks), r.player.casefold(),
                                            r.player))
    places: list[Placing] = []
    for index, record in enumerate(ranked):
        if places and _key(places[-1].record, tie_breaks) == _key(record, tie_breaks):
            place = places[-1].place
        else:
            place = index + 1
        places.append(Placing(place, record))
    return places
