"""The catch schemes of docs/rules.md §5: who pays whom when a dropper is caught.

Each scheme is one entry of the :data:`CATCH_SCHEMES` registry, looked up by name with
:func:`find_catch` (an unknown name is a :class:`~app.core.errors.RulesError`), and has the
same interface: it takes the :class:`CaughtDrop` (the dropper, the winners, the catchers and
the others, in the game's words) and returns who wins and the payments. Its title and summary
are in the message catalogue (``catch.<name>.title``, ``catch.<name>.summary``), the text of
each rule it pays by under ``rule.catch.<name>.<rule>``.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .errors import RulesError
from .messages import Message

#: A payment while settling: (payer seat, payee seat, multiple of the stake, rule key).
Pay = tuple[int, int, int, str]


@dataclass(frozen=True, slots=True)
class CaughtDrop:
    """A caught drop, by seat: the ``dropper``; the ``winners`` (the other players with the
    lowest count); the ``catchers`` (every other player at or below the dropper's count,
    winners included); the ``others`` (everyone but the dropper and the winners). Each in
    order from the dealer's left, as is ``everyone``."""

    dropper: int
    winners: tuple[int, ...]
    catchers: tuple[int, ...]
    others: tuple[int, ...]
    counts: tuple[int | None, ...]
    everyone: tuple[int, ...]
    catch_factor: int

    @property
    def players(self) -> int:
        """How many sit at the table."""
        return len(self.everyone)

    def count(self, seat: int) -> int:
        count = self.counts[seat]
        assert count is not None  # a drop needs every count
        return count


Payout = tuple[tuple[int, ...], list[Pay]]


@dataclass(frozen=True, slots=True)
class CatchScheme:
    """One way of paying a caught drop. ``pays_catchers``: every catcher is paid something
    (otherwise a catcher who is not among the winners gets nothing)."""

    name: str
    payout: Callable[[CaughtDrop], Payout]
    pays_catchers: bool

    @property
    def title(self) -> Message:
        return Message(f"catch.{self.name}.title")

    @property
    def summary(self) -> Message:
        return Message(f"catch.{self.name}.summary")


def _standard(c: CaughtDrop) -> Payout:
    return c.winners, ([(c.dropper, catcher, 2, "catch.standard.dropper") for catcher in c.catchers]
                       + [(other, winner, 1, "catch.standard.others")
                          for winner in c.winners for other in c.others])


def _alt1(c: CaughtDrop) -> Payout:
    return c.winners, ([(c.dropper, winner, 2, "catch.alt1.dropper") for winner in c.winners]
                       + [(other, winner, 1, "catch.alt1.others")
                          for winner in c.winners for other in c.others])


def _alt2(c: CaughtDrop) -> Payout:
    return c.winners, [(c.dropper, winner, c.players - 1, "catch.alt2.dropper")
                       for winner in c.winners]


def _alt3(c: CaughtDrop) -> Payout:
    return c.winners, ([(c.dropper, catcher, 1, "catch.alt3.dropper") for catcher in c.catchers]
                       + [(payer, winner, 1, "catch.alt3.everyone")
                          for winner in c.winners for payer in (c.dropper, *c.others)])


def _alt4(c: CaughtDrop) -> Payout:
    return c.winners, [(c.dropper, seat, 2, "catch.alt4.dropper") for seat in c.everyone
                       if seat != c.dropper]


def _alt5(c: CaughtDrop) -> Payout:
    nearest = c.winners[0]
    return (nearest,), [(c.dropper, nearest, 5, "catch.alt5.dropper")]


def _wikipedia(c: CaughtDrop) -> Payout:
    mine = c.count(c.dropper)
    return c.winners, ([(c.dropper, seat, 1, "catch.wikipedia.lower") for seat in c.catchers
                        if c.count(seat) < mine]
                       + [(c.dropper, winner, 1, "catch.wikipedia.tie") for winner in c.winners
                          if c.count(winner) == mine]
                       + [(payer, winner, 1, "catch.wikipedia.everyone")
                          for winner in c.winners for payer in (c.dropper, *c.others)])


def _catchers(c: CaughtDrop) -> Payout:
    return c.catchers, [(c.dropper, catcher, c.catch_factor, "catch.catchers.dropper")
                        for catcher in c.catchers]


def _washington(c: CaughtDrop) -> Payout:
    return c.winners, [(c.dropper, winner, 2 * c.players, "catch.washington.dropper")
                       for winner in c.winners]


#: The catch schemes of docs/rules.md §5, by name.
CATCH_SCHEMES: dict[str, CatchScheme] = {s.name: s for s in (
    CatchScheme("standard", _standard, pays_catchers=True),
    CatchScheme("alt1", _alt1, pays_catchers=False),
    CatchScheme("alt2", _alt2, pays_catchers=False),
    CatchScheme("alt3", _alt3, pays_catchers=True),
    CatchScheme("alt4", _alt4, pays_catchers=True),
    CatchScheme("alt5", _alt5, pays_catchers=False),
    CatchScheme("wikipedia", _wikipedia, pays_catchers=True),
    CatchScheme("catchers", _catchers, pays_catchers=True),
    CatchScheme("washington", _washington, pays_catchers=False),
)}


def find_catch(name: str) -> CatchScheme:
    """The catch scheme called ``name``; :class:`RulesError` if there is none."""
    try:
        return CATCH_SCHEMES[name]
    except (KeyError, TypeError):
        raise RulesError(Message("rules.not_a_choice", name="catch",
                                 choices=", ".join(CATCH_SCHEMES), value=repr(name)),
                         "rules.catch") from None
