"""The catch schemes of docs/rules.md §5: who pays whom when a dropper is caught.

Each scheme declares every fact of itself in one :class:`CatchScheme`, the way
python-chess's variants do: its payout, the option it reads, the rule text it cites
(:data:`app.core.sources.SOURCES`), its words (title, summary, the text of each rule it
pays by, any sentence of its own in an explanation: English here, extracted for translation
like the catalogue), the lines of docs/rules.md §5 and a worked example. One tuple,
:data:`CATCH_SCHEMES`, registers them (:func:`register_catch`), and everything else reads
them from it: settling, the explanations, the rule cards and sources, the option's choices on
the forms and ``/check``, the OpenAPI enum and the docs' tables
(``scripts/rule_tables.py``). Look one up with :func:`find_catch`; an unknown name is a
:class:`~app.core.errors.RulesError`.

A scheme takes the :class:`CaughtDrop` (the dropper, the winners, the catchers and the
others, in the game's words) and returns who wins and the payments.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from .catalogue import CATALOGUE
from .errors import RulesError
from .messages import Message, Named, as_sent, join_and, multiple_word


class CatchRules(Protocol):
    """What a scheme reads of the rules (:class:`~app.core.rules.Rules`, which reads this
    registry, so it is not imported here)."""

    @property
    def catch_factor(self) -> int: ...


class CaughtHand(Protocol):
    """What a scheme's explanation reads of the hand (:class:`~app.core.hand.PlayedHand`)."""

    @property
    def players(self) -> tuple[str, ...]: ...
    @property
    def dealer_name(self) -> str: ...
    @property
    def rules(self) -> CatchRules: ...

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
#: (the caught drop, the hand, the explanation's sentences on who is lowest) → the sentences
#: on who is paid, for a scheme that says it in words of its own.
Explained = Callable[[CaughtDrop, CaughtHand, list[Message]], list[Message]]

#: The worked example's table: stake 1; Ann, Bob, Cy and Dee, Dee deals; Ann drops.
EXAMPLE_PLAYERS = ("Ann", "Bob", "Cy", "Dee")


@dataclass(frozen=True, slots=True)
class CatchExample:
    """A worked caught drop (:data:`EXAMPLE_PLAYERS`): the counts in seat order, and what
    each player wins (+) or pays (−) in stakes under the scheme's own rules."""

    counts: tuple[int, ...]
    net: tuple[int, ...]

    def hand(self, catch: str) -> dict[str, object]:
        """The hand as ``parse_hand`` reads it, under pagat with this catch."""
        return {"rules": {"preset": "pagat", "catch": catch}, "stake": "1",
                "players": list(EXAMPLE_PLAYERS), "dealer": EXAMPLE_PLAYERS[-1],
                "end": {"kind": "drop", "player": EXAMPLE_PLAYERS[0]},
                "counts": dict(zip(EXAMPLE_PLAYERS, self.counts, strict=True))}


@dataclass(frozen=True, slots=True)
class CatchScheme:
    """One way of paying a caught drop, with all it says of itself.

    ``payout``: who wins and the payments. ``pays_catchers``: every catcher is paid
    something (otherwise a catcher who is not among the winners gets nothing). ``words``:
    the English of its messages, by id: ``catch.<name>.title`` and ``.summary`` (the
    choice's meaning on the forms), ``rule.catch.<name>.<rule>`` for each rule it pays by,
    ``reading.catch.<name>.<rule>`` where the card says how a rule is read, and any
    ``explain.*`` sentence of its own. ``source``: the id of the text it settles by, or how
    to choose one from the rules. ``pays_option``: the option whose multiple its rule texts
    name as ``{pays}``. ``explained``: its own sentences on who is paid (else the
    explanation names the lowest). ``formula`` and ``citation``: its line of docs/rules.md
    §5, in that table's letters, and the words of the text it reads."""

    name: str
    payout: Callable[[CaughtDrop], Payout]
    pays_catchers: bool
    words: Mapping[str, str]
    source: str | Callable[[CatchRules], str]
    formula: str
    citation: str
    example: CatchExample
    pays_option: str | None = None
    explained: Explained | None = None

    title = Named("catch.{0.name}.title")
    summary = Named("catch.{0.name}.summary")

    @property
    def rule_keys(self) -> list[str]:
        """The payment keys it pays by (``catch.alt3.dropper`` …), each with its text."""
        prefix = f"rule.catch.{self.name}."
        return [msg_id[len("rule."):] for msg_id in self.words if msg_id.startswith(prefix)]

    @property
    def readings(self) -> dict[str, Message]:
        """Payment key → how the app reads its rule, where the text reads two ways."""
        return {msg_id[len("reading."):]: Message(msg_id) for msg_id in self.words
                if msg_id.startswith("reading.")}

    def source_id(self, rules: CatchRules) -> str:
        """The id of the source text it settles by under ``rules``."""
        return self.source if isinstance(self.source, str) else self.source(rules)


#: The catch schemes of docs/rules.md §5, by name, in the order the forms list them.
CATCH_SCHEMES: dict[str, CatchScheme] = {}


def register_catch(scheme: CatchScheme) -> CatchScheme:
    """Add ``scheme`` to :data:`CATCH_SCHEMES` and its words to the catalogue."""
    if scheme.name in CATCH_SCHEMES:
        raise ValueError(f"a catch scheme called {scheme.name!r} is registered already")
    CATALOGUE.update(scheme.words)
    CATCH_SCHEMES[scheme.name] = scheme
    return scheme


def find_catch(name: str) -> CatchScheme:
    """The catch scheme called ``name``; :class:`RulesError` if there is none."""
    try:
        return CATCH_SCHEMES[name]
    except (KeyError, TypeError):
        raise RulesError(Message("rules.not_a_choice", name="catch",
                                 choices=", ".join(CATCH_SCHEMES), value=as_sent(name)),
                         "rules.catch") from None


# -- the schemes -----------------------------------------------------------------------------

def _standard(c: CaughtDrop) -> Payout:
    return c.winners, ([(c.dropper, catcher, 2, "catch.standard.dropper") for catcher in c.catchers]
                       + [(other, winner, 1, "catch.standard.others")
                          for winner in c.winners for other in c.others])


register_catch(CatchScheme(
    "standard", _standard, pays_catchers=True, source="pagat.caught",
    words={
        "catch.standard.title": "standard catch",
        "catch.standard.summary": "the dropper pays double to each player whose count is equal "
                                  "to or lower than the dropper's; then everyone but the "
                                  "dropper and the lowest pays the lowest the stake, even a "
                                  "player the dropper has just paid double",
        "rule.catch.standard.dropper": "standard catch: the dropper pays double to each player "
                                       "at or below the dropper's count",
        "rule.catch.standard.others": "standard catch: every player but the dropper and the "
                                      "lowest pays the lowest the stake",
    },
    formula="D pays 2 to each of K; each of O pays 1 to each of W",
    citation="001, main rule: \"as well as receiving the double stake from the dropper, also "
             "receives the basic stake from everyone else\"; tied lowest both paid",
    example=CatchExample(counts=(10, 10, 3, 20), net=(-4, 1, 4, -1))))


def _alt1(c: CaughtDrop) -> Payout:
    return c.winners, ([(c.dropper, winner, 2, "catch.alt1.dropper") for winner in c.winners]
                       + [(other, winner, 1, "catch.alt1.others")
                          for winner in c.winners for other in c.others])


register_catch(CatchScheme(
    "alt1", _alt1, pays_catchers=False, source="pagat.alt1",
    words={
        "catch.alt1.title": "catch, alternative 1",
        "catch.alt1.summary": "the lowest gets double from the dropper and the stake from "
                              "everyone else",
        "rule.catch.alt1.dropper": "catch, alternative 1: the dropper pays the lowest double",
        "rule.catch.alt1.others": "catch, alternative 1: each other player pays the lowest "
                                  "the stake",
    },
    formula="each of W gets 2 from D and 1 from each of O",
    citation="001 alternative 1; also Texas Tonk (000)",
    example=CatchExample(counts=(10, 10, 3, 20), net=(-2, -1, 4, -1))))


def _alt2(c: CaughtDrop) -> Payout:
    return c.winners, [(c.dropper, winner, c.players - 1, "catch.alt2.dropper")
                       for winner in c.winners]


register_catch(CatchScheme(
    "alt2", _alt2, pays_catchers=False, source="pagat.alt2",
    words={
        "catch.alt2.title": "catch, alternative 2",
        "catch.alt2.summary": "the dropper pays the lowest the stake for every other player "
                              "at the table",
        "rule.catch.alt2.dropper": "catch, alternative 2: the dropper pays the lowest one "
                                   "stake per other player",
        "reading.catch.alt2.dropper": "everyone's stake is one stake for every player but the "
                                      "lowest, the dropper included: what the lowest would "
                                      "collect for an ordinary win. With two players that is "
                                      "one stake, so a caught drop costs no more than an "
                                      "ordinary loss; for double there, play alternative 1 or "
                                      "the standard catch",
    },
    formula="D pays n−1 (n = players at the table) to each of W; nobody else pays",
    citation="001 alternative 2",
    example=CatchExample(counts=(10, 10, 3, 20), net=(-3, 0, 3, 0))))


def _alt3(c: CaughtDrop) -> Payout:
    return c.winners, ([(c.dropper, catcher, 1, "catch.alt3.dropper") for catcher in c.catchers]
                       + [(payer, winner, 1, "catch.alt3.everyone")
                          for winner in c.winners for payer in (c.dropper, *c.others)])


register_catch(CatchScheme(
    "alt3", _alt3, pays_catchers=True, source="pagat.alt3",
    words={
        "catch.alt3.title": "catch, alternative 3",
        "catch.alt3.summary": "the dropper pays the stake to each other player at or below "
                              "the dropper's count; the lowest also gets the stake from the "
                              "dropper and from everyone else",
        "rule.catch.alt3.dropper": "catch, alternative 3: the dropper pays the stake to each "
                                   "player at or below the dropper's count",
        "rule.catch.alt3.everyone": "catch, alternative 3: everyone, the dropper too, pays "
                                    "the lowest the stake",
    },
    formula="D pays 1 to each of K; D and each of O pay 1 to each of W",
    citation="001 alternative 3",
    example=CatchExample(counts=(10, 10, 3, 20), net=(-3, 0, 4, -1))))


def _alt4(c: CaughtDrop) -> Payout:
    return c.winners, [(c.dropper, seat, 2, "catch.alt4.dropper") for seat in c.everyone
                       if seat != c.dropper]


register_catch(CatchScheme(
    "alt4", _alt4, pays_catchers=True, source="pagat.alt4",
    words={
        "catch.alt4.title": "catch, alternative 4",
        "catch.alt4.summary": "the dropper pays double to every other player",
        "rule.catch.alt4.dropper": "catch, alternative 4: the dropper pays double to every "
                                   "other player",
    },
    formula="D pays 2 to every other player",
    citation="001 alternative 4",
    example=CatchExample(counts=(10, 10, 3, 20), net=(-6, 2, 2, 2))))


def _alt5(c: CaughtDrop) -> Payout:
    nearest = c.winners[0]
    return (nearest,), [(c.dropper, nearest, 5, "catch.alt5.dropper")]


def _alt5_explained(c: CaughtDrop, hand: CaughtHand, lines: list[Message]) -> list[Message]:
    if len(c.winners) < 2:
        return lines
    return [*lines, Message("explain.alt5_nearest", player=hand.players[c.winners[0]],
                            dealer=hand.dealer_name)]


register_catch(CatchScheme(
    "alt5", _alt5, pays_catchers=False, source="pagat.alt5", explained=_alt5_explained,
    words={
        "catch.alt5.title": "catch, alternative 5",
        "catch.alt5.summary": "the dropper pays five times the stake to the lowest, nothing "
                              "else",
        "rule.catch.alt5.dropper": "catch, alternative 5: the dropper pays five times the "
                                   "stake to the lowest",
        "explain.alt5_nearest": "Only the one nearest the dealer's left is paid ({dealer} "
                                "dealt): {player}.",
    },
    formula="D pays 5 to the one of W nearest the dealer's left; nothing else",
    citation="001 alternative 5",
    example=CatchExample(counts=(10, 10, 3, 20), net=(-5, 0, 5, 0))))


def _wikipedia(c: CaughtDrop) -> Payout:
    mine = c.count(c.dropper)
    return c.winners, ([(c.dropper, seat, 1, "catch.wikipedia.lower") for seat in c.catchers
                        if c.count(seat) < mine]
                       + [(c.dropper, winner, 1, "catch.wikipedia.tie") for winner in c.winners
                          if c.count(winner) == mine]
                       + [(payer, winner, 1, "catch.wikipedia.everyone")
                          for winner in c.winners for payer in (c.dropper, *c.others)])


register_catch(CatchScheme(
    "wikipedia", _wikipedia, pays_catchers=True, source="encyclopedia.play",
    words={
        "catch.wikipedia.title": "encyclopedia catch",
        "catch.wikipedia.summary": "the dropper pays the stake to each player with fewer "
                                   "points, and once more to a winner tied with the dropper; "
                                   "everyone, the dropper too, pays the winner the stake",
        "rule.catch.wikipedia.lower": "encyclopedia catch: the dropper pays the stake to each "
                                      "player with fewer points",
        "rule.catch.wikipedia.tie": "encyclopedia catch: the dropper pays the stake once more "
                                    "to a winner tied with the dropper",
        "rule.catch.wikipedia.everyone": "encyclopedia catch: each player pays the winner the "
                                         "stake",
    },
    formula="D pays 1 to each other player with c(p) < c(D), and to each of W whose count "
            "equals c(D); D and each of O pay 1 to each of W",
    citation="000: \"pay the stake to each player with fewer points … each player pays the "
             "stake to the winner … tie with the dropper: pays double\"",
    example=CatchExample(counts=(10, 10, 3, 20), net=(-2, -1, 4, -1))))


def _catchers(c: CaughtDrop) -> Payout:
    return c.catchers, [(c.dropper, catcher, c.catch_factor, "catch.catchers.dropper")
                        for catcher in c.catchers]


def _catchers_explained(c: CaughtDrop, hand: CaughtHand, lines: list[Message]) -> list[Message]:
    players, rules = hand.players, hand.rules
    names = join_and(players[s] for s in c.catchers)
    dropper = players[c.dropper]
    return [Message("explain.catchers_paid", catchers=names, dropper=dropper,
                    pays=multiple_word(rules.catch_factor))]


register_catch(CatchScheme(
    "catchers", _catchers, pays_catchers=True, pays_option="catch_factor",
    # Rushville pays double rum (4), Chicago double
    source=lambda rules: "pagat.rushville.5" if rules.catch_factor == 4 else "pagat.chicago.6",
    explained=_catchers_explained,
    words={
        "catch.catchers.title": "catchers' catch",
        "catch.catchers.summary": "the dropper pays the catch factor to each other player at "
                                  "or below the dropper's count, nothing else",
        "rule.catch.catchers.dropper": "catchers' catch: the dropper pays {pays} to each "
                                       "player at or below the dropper's count",
        "explain.catchers_paid": "Every player at or below {dropper}'s count caught {dropper} "
                                 "and is paid {pays}, not only the lowest: {catchers}.",
        "explain.bumped_head": "{catchers} bumped {dropper}'s head (an equal or lower count): "
                               "{dropper} pays double rum to each who did, and nobody else "
                               "pays.",
    },
    formula="D pays `catch_factor` to each of K; nothing else",
    citation="001: Chicago (2), Rushville \"double rum … only to the players who bump your "
             "head\" (4)",
    example=CatchExample(counts=(10, 10, 3, 20), net=(-4, 2, 2, 0))))


def _washington(c: CaughtDrop) -> Payout:
    return c.winners, [(c.dropper, winner, 2 * c.players, "catch.washington.dropper")
                       for winner in c.winners]


register_catch(CatchScheme(
    "washington", _washington, pays_catchers=False, source="pagat.washington.4",
    words={
        "catch.washington.title": "Washington State catch",
        "catch.washington.summary": "the dropper pays the lowest twice the number of players, "
                                    "nothing else",
        "rule.catch.washington.dropper": "Washington State catch: the dropper pays the lowest "
                                         "two per player at the table",
    },
    formula="D pays 2n to each of W; nothing else",
    citation="001, Washington State: \"loses 2 points for each player in the game\"",
    example=CatchExample(counts=(10, 10, 3, 20), net=(-8, 0, 8, 0))))
