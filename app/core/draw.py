"""The seat draw of a tournament round: how many tables of which size, and who sits where.

Pure arithmetic, repeatable from a kept seed:

* :func:`table_sizes` makes the tables as even as possible: sizes differ by at most one,
  none is over the table size and none under two (10 players at tables of 4: 4, 3, 3;
  9 players: 3, 3, 3).
* :func:`draw_round` seats every player exactly once. Round one is at random (the names
  sorted, then shuffled by ``random.Random(seed)``, so the same players and seed give the
  same draw whatever order they checked in). Later rounds go by standing: the leaders meet
  at table 1, and each seat is given to the best-placed player still free who has sat with
  the fewest of those already at the table (so players who already met are kept apart
  where possible). The dealer of each table is drawn from the same seed.
"""
from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from .errors import TonkError
from .messages import Message

#: The table sizes a tournament may play at.
SMALLEST_TABLE = 2
LARGEST_TABLE = 4
#: Most players one event seats.
MAX_PLAYERS = 400


class DrawError(TonkError):
    """Players or a table size the draw cannot seat."""


@dataclass(frozen=True, slots=True)
class Table:
    """One table of a round: its number (from 1), its players in seat order, its dealer."""

    number: int
    players: tuple[str, ...]
    dealer: str


@dataclass(frozen=True, slots=True)
class Draw:
    """One round's draw: the seed it came from and its tables (largest first)."""

    seed: int
    tables: tuple[Table, ...]

    def seated(self) -> list[str]:
        """Every player seated, table by table."""
        return [name for table in self.tables for name in table.players]


def check_table_size(table_size: int) -> int:
    """``table_size`` if a table may seat that many (2 to 4)."""
    if (isinstance(table_size, bool) or not isinstance(table_size, int)
            or not SMALLEST_TABLE <= table_size <= LARGEST_TABLE):
        raise DrawError(Message("draw.table_size", value=table_size,
                                least=SMALLEST_TABLE, most=LARGEST_TABLE), "table_size")
    return table_size


def table_sizes(players: int, table_size: int) -> tuple[int, ...]:
    """The sizes of the tables ``players`` sit at, largest first: as few tables as fit
    ``table_size``, sizes differing by at most one, none under two."""
    check_table_size(table_size)
    if players < SMALLEST_TABLE:
        raise DrawError(Message("draw.too_few", count=players, least=SMALLEST_TABLE), "players")
    if players > MAX_PLAYERS:
        raise DrawError(Message("draw.too_many", count=players, most=MAX_PLAYERS), "players")
    tables = -(-players // table_size)
    small, bigger = divmod(players, tables)
    if small < SMALLEST_TABLE:
        # Only tables of two can get here: an odd number of players cannot be paired.
        raise DrawError(Message("draw.uneven", count=players, size=table_size), "players")
    return tuple([small + 1] * bigger + [small] * (tables - bigger))


def draw_round(players: Sequence[str], table_size: int, seed: int,
               standing: Sequence[str] | None = None,
               met: Collection[frozenset[str]] = ()) -> Draw:
    """Seat every one of ``players`` once at tables of :func:`table_sizes`.

    Without ``standing`` (round one) the seats are drawn at random from ``seed``. With it
    (best first; every player must be in it) the leaders meet, and ``met`` (pairs of
    players who already sat together) are kept apart where possible: tables are filled
    from the top of the standing, then players are swapped between tables while a swap
    seats fewer such pairs together (the nearest in the standing first).
    """
    names = list(players)
    if len(set(names)) != len(names):
        raise DrawError(Message("draw.twice"), "players")
    sizes = table_sizes(len(names), table_size)
    rng = random.Random(seed)
    if standing is None:
        order = sorted(names, key=lambda n: (n.casefold(), n))
        rng.shuffle(order)
        seats = _cut(order, sizes)
    else:
        ranked = [n for n in standing if n in set(names)]
        if sorted(ranked) != sorted(names):
            raise DrawError(Message("draw.standing"), "standing")
        seats = _by_standing(ranked, sizes, {frozenset(pair) for pair in met})
    tables = tuple(Table(i, tuple(group), rng.choice(group))
                   for i, group in enumerate(seats, start=1))
    return Draw(seed, tables)


def _cut(order: list[str], sizes: Sequence[int]) -> list[list[str]]:
    groups, start = [], 0
    for size in sizes:
        groups.append(order[start:start + size])
        start += size
    return groups


def _by_standing(ranked: list[str], sizes: Sequence[int],
                 met: set[frozenset[str]]) -> list[list[str]]:
    free = list(ranked)
    groups: list[list[str]] = []
    for size in sizes:
        group = [free.pop(0)]
        while len(group) < size:
            # The best-placed free player who has met the fewest of this table.
            best = min(range(len(free)), key=lambda i: (
                sum(frozenset((free[i], other)) in met for other in group), i))
            group.append(free.pop(best))
        groups.append(group)
    return _fewer_repeats(groups, {name: i for i, name in enumerate(ranked)}, met)


def _fewer_repeats(groups: list[list[str]], rank: dict[str, int],
                   met: set[frozenset[str]]) -> list[list[str]]:
    """``groups`` with players swapped between tables, one swap at a time, while a swap seats
    fewer pairs of ``met`` together: of those, the one that saves most, then the one whose
    two players stand nearest (the order by standing kept where it costs no meeting). Filling
    the tables from the top left the last table with whoever was left, however often they
    had met (a newcomer's round three: four pairs again where two were possible)."""
    def meets(name: str, group: list[str], but: str) -> int:
        return sum(frozenset((name, other)) in met for other in group if other != but)

    while met:
        best: tuple[int, int, int, int, int, int] | None = None
        # (a swap that saves a meeting moves a player who meets someone at their table)
        for t, group in enumerate(groups):
            for i, a in enumerate(group):
                if not meets(a, group, a):
                    continue
                for u, other in enumerate(groups):
                    for j, b in enumerate(other if u != t else ()):
                        saved = (meets(a, group, a) + meets(b, other, b)
                                 - meets(b, group, a) - meets(a, other, b))
                        if saved > 0:
                            (t1, i1), (u1, j1) = sorted(((t, i), (u, j)))
                            swap = (-saved, abs(rank[a] - rank[b]), t1, i1, u1, j1)
                            best = swap if best is None else min(best, swap)
        if best is None:
            return groups
        _saved, _apart, t, i, u, j = best
        groups[t][i], groups[u][j] = groups[u][j], groups[t][i]
    return groups


def pairs_of(tables: Sequence[Sequence[str]]) -> set[frozenset[str]]:
    """Every pair of players who sat at one table together."""
    return {frozenset((a, b)) for table in tables for a in table for b in table if a != b}
