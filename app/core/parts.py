"""What a hand's current version means for each seat: how much it moves the seat's total
(in minor units; pushes under push-ups), the seat's part (its net, and whether it won,
tonked out, won a drop or was caught), and what that part adds to the player's session
record. Pure arithmetic, shared by the ledger (hand by hand) and the bulk importer."""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from .money import to_minor
from .settle import Result


def seat_nets(names: Sequence[str], result: Result) -> list[int]:
    """A hand's effect on each seat's total, in minor units (pushes under push-ups); 0 for
    a seat that was not at the table for it."""
    if result.pushed is not None:
        return [result.pushed.get(n, 0) * 100 for n in names]
    assert result.net is not None
    return [to_minor(result.net[n]) if n in result.net else 0 for n in names]


class Part(NamedTuple):
    """A seat's part in a hand's current version: what its stored entry holds."""

    amount_minor: int
    won: bool
    tonked_out: bool
    drop_won: bool
    caught: bool


def seat_parts(names: Sequence[str], nets: Sequence[int], result: Result) -> list[Part]:
    """Each seat's part in a hand: its net, and what the player's record counts (as
    :func:`parts_and_counts` works them out)."""
    flat = parts_and_counts(names, nets, result)[0]
    size = len(Part._fields)
    return [Part(*flat[k:k + size]) for k in range(0, len(flat), size)]  # type: ignore[arg-type]


class _Counted(Protocol):
    """A :class:`Part` or a stored entry: whatever a record counts."""

    @property
    def amount_minor(self) -> int: ...
    @property
    def won(self) -> bool: ...
    @property
    def tonked_out(self) -> bool: ...
    @property
    def drop_won(self) -> bool: ...
    @property
    def caught(self) -> bool: ...


#: The counters of a player's session record, in the order :func:`stat_counts` gives them.
STAT_FIELDS = ("net_minor", "hands", "hands_won", "tonks_out", "drops_won", "times_caught")


def stat_counts(part: _Counted) -> tuple[int, int, int, int, int, int]:
    """What one entry adds to its player's session record, in :data:`STAT_FIELDS` order."""
    return (part.amount_minor, 1, int(part.won), int(part.tonked_out), int(part.drop_won),
            int(part.caught))


def parts_and_counts(names: Sequence[str], nets: Sequence[int], result: Result
                     ) -> tuple[tuple[int | bool, ...], list[tuple[int, ...]]]:
    """Each seat's part (:class:`Part`'s fields, seat after seat, laid end to end: the one
    place the rule of who won, tonked out, won a drop or was caught is written) and what
    each adds to its player's record (:func:`stat_counts` of the part), in one pass: a bulk
    import makes them for every hand."""
    winners, outcome = result.winners, result.outcome
    dropper = result.hand.end.player if outcome == "caught" else None
    tonk, drop = outcome == "tonk_out", outcome == "drop_won"
    flat: list[int | bool] = []
    counts: list[tuple[int, ...]] = []
    for name, amount in zip(names, nets, strict=True):
        won = name in winners
        caught = name == dropper
        flat += (amount, won, tonk and won, drop and won, caught)
        counts.append((amount, 1, int(won), int(tonk and won), int(drop and won), int(caught)))
    return tuple(flat), counts
