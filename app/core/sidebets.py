"""Side bets (docs/rules.md §9): money bet on the side of each deal, apart from the hand.

A session may enable ``high_card`` (whoever of the bettors is dealt the highest card of the
called suit takes the pot; the encyclopedia's "Spades" is the same bet with the suit fixed)
and ``naturals`` (the first to spread three of a kind takes the pot; bettors add a stake at
each deal until it is won). Each bettor pays the bet's stake into its pot; a winner takes
the whole pot, money carried over included; with no winner the pot carries to the next deal
(or, for ``high_card`` with ``unclaimed: return``, each stake goes back). What is left in a
pot at settle-up goes back to those who paid into it since it was last won; so does what a
player who leaves the table has in a pot, when they leave (:func:`leave_pots`: the texts are
silent; the house's reading, so that no deal after they left can win their money).

Pure: a pot goes in, the pot after the deal and each player's net come out, with their own
explanation lines and rule names. Side bets exist only under money and points scoring.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .errors import HandError
from .messages import Message, as_sent, join_and
from .money import MAX_STAKE, currency_code, decimal_places, fits_currency, parse_decimal

#: The side bets of the texts, in the order a form shows them.
BETS = ("high_card", "naturals")
SUITS = ("S", "H", "D", "C")
UNCLAIMED = ("carry", "return")
_ZERO = Decimal(0)


@dataclass(frozen=True)
class SideBet:
    """An enabled side bet: its stake, the suit if it is fixed, and what an unclaimed
    high-card pot does."""

    bet: str
    stake: Decimal
    suit: str | None = None
    unclaimed: str = "carry"


@dataclass(frozen=True)
class Play:
    """One side bet at one deal: who was in, the suit called, and who won (or nobody)."""

    bet: str
    players: tuple[str, ...]
    winner: str | None
    suit: str | None = None


@dataclass(frozen=True)
class Pot:
    """Money waiting in a bet's pot: what each player paid into it since it was last won."""

    bet: str
    paid: tuple[tuple[str, Decimal], ...] = ()

    @property
    def total(self) -> Decimal:
        return sum((amount for _, amount in self.paid), _ZERO)

    def add(self, player: str, amount: Decimal) -> Pot:
        paid = dict(self.paid)
        paid[player] = paid.get(player, _ZERO) + amount
        return Pot(self.bet, tuple(paid.items()))


@dataclass(frozen=True)
class Outcome:
    """A side bet settled at one deal: each player's net, the pot after, and why."""

    play: Play
    net: dict[str, Decimal]
    pot: Pot
    rule: str  # side_bet.won, side_bet.carried, side_bet.returned, side_bet.left
    explanation: tuple[Message, ...]


def _error(message: Message, field: str) -> HandError:
    return HandError(message, field)


def _named(bet: str) -> Message:
    """A side bet's name inside a sentence of the reader's language ("high-card")."""
    return Message(f"side_bet.{bet}.name")


def parse_side_bets(spec: Any, *, stake: Decimal, scoring: str,
                    currency: str | None = None) -> dict[str, SideBet]:
    """A session's (or league's) ``side_bets`` → the enabled bets; each stake defaults to
    the table's own, and has at most the currency's places (yen: none)."""
    if spec in (None, {}):
        return {}
    if scoring not in ("money", "points"):
        raise _error(Message("side_bets.scoring", scoring=scoring), "side_bets")
    if not isinstance(spec, Mapping):
        raise _error(Message("side_bets.not_object"), "side_bets")
    enabled: dict[str, SideBet] = {}
    for bet, options in spec.items():
        field = f"side_bets.{bet}"
        if bet not in BETS:
            raise _error(Message("side_bets.unknown", bet=as_sent(bet), bets=", ".join(BETS)),
                         field)
        options = {} if options is None else options
        if not isinstance(options, Mapping):
            raise _error(Message("side_bets.not_object"), field)
        known = {"stake"} | ({"suit", "unclaimed"} if bet == "high_card" else set())
        for key in options:
            if key not in known:
                raise _error(Message("side_bets.option", bet=_named(bet), option=as_sent(key)),
                             f"{field}.{key}")
        amount = stake if options.get("stake") in (None, "") else parse_decimal(
            options["stake"], HandError,
            Message("side_bets.stake", value=as_sent(options["stake"])),
            f"{field}.stake", places=2 if scoring == "money" else None)
        if scoring != "money" and decimal_places(amount):  # (a league's 0.10, under points)
            raise _error(Message("side_bets.stake_points", value=as_sent(options.get("stake"))),
                         f"{field}.stake")
        if amount <= 0:
            raise _error(Message("side_bets.stake", value=as_sent(options.get("stake"))),
                         f"{field}.stake")
        if amount > MAX_STAKE:  # (as the table's own: a night's money stays payable)
            raise _error(Message("stake.too_large"), f"{field}.stake")
        if scoring == "money" and not fits_currency(amount, currency):
            raise _error(Message("side_bets.currency_whole", value=options.get("stake"),
                                 currency=currency_code(currency)), f"{field}.stake")
        suit = options.get("suit")
        if suit is not None and suit not in SUITS:
            raise _error(Message("side_bets.suit", value=as_sent(suit)), f"{field}.suit")
        unclaimed = options.get("unclaimed", "carry")
        if unclaimed not in UNCLAIMED:
            raise _error(Message("side_bets.unclaimed", value=as_sent(unclaimed)),
                         f"{field}.unclaimed")
        enabled[bet] = SideBet(bet, amount, suit, unclaimed)
    return enabled


def parse_plays(data: Any, enabled: Mapping[str, SideBet],
                players: Sequence[str]) -> tuple[Play, ...]:
    """A hand's ``side_bets`` → the plays, each checked against the enabled bets and the
    players at the table."""
    if data in (None, []):
        return ()
    if not isinstance(data, list):
        raise _error(Message("side_bets.not_list"), "side_bets")
    plays: list[Play] = []
    for i, item in enumerate(data):
        field = f"side_bets[{i}]"
        if not isinstance(item, Mapping):
            raise _error(Message("side_bets.not_object"), field)
        bet = item.get("bet")
        if bet not in BETS:
            raise _error(Message("side_bets.unknown", bet=as_sent(bet), bets=", ".join(BETS)),
                         f"{field}.bet")
        rule = enabled.get(bet)
        if rule is None:
            raise _error(Message("side_bets.not_enabled", bet=_named(bet)), f"{field}.bet")
        if any(p.bet == bet for p in plays):
            raise _error(Message("side_bets.twice", bet=_named(bet)), f"{field}.bet")
        who = item.get("players", list(players))
        winner = item.get("winner")
        if winner is not None and isinstance(who, list) and winner not in who:
            # before the players: a winner named for a bet nobody is in did not bet
            raise _error(Message("side_bets.winner", bet=_named(bet), player=as_sent(winner)),
                         f"{field}.winner")
        if not isinstance(who, list) or not who or \
                any(not isinstance(p, str) or p not in players for p in who) or \
                len(set(who)) != len(who):
            raise _error(Message("side_bets.players", bet=_named(bet)), f"{field}.players")
        suit = item.get("suit")
        if bet == "high_card":
            if rule.suit is not None and suit is not None:  # (even the same suit: §9)
                raise _error(Message("side_bets.fixed_suit", suit=rule.suit), f"{field}.suit")
            suit = rule.suit or suit
            if suit not in SUITS:
                raise _error(Message("side_bets.suit", value=as_sent(suit)), f"{field}.suit")
        elif suit is not None:
            raise _error(Message("side_bets.no_suit", bet=_named(bet)), f"{field}.suit")
        plays.append(Play(bet, tuple(who), winner, suit))
    return tuple(plays)


def settle_side_bet(play: Play, rule: SideBet, pot: Pot, fmt: Any = str) -> Outcome:
    """One side bet at one deal: every bettor pays the stake into the pot; a winner takes
    it all; with no winner it carries (or each stake goes back). ``pot`` is what was in it
    before; the outcome's pot is what is in it after."""
    net = dict.fromkeys(play.players, -rule.stake)
    after = pot
    for player in play.players:
        after = after.add(player, rule.stake)
    if play.winner is not None:
        net[play.winner] += after.total
        return Outcome(play, net, Pot(play.bet), "side_bet.won",
                       _explain(play, "side_bet.won", rule.stake, after.total, pot.total, fmt))
    if play.bet == "high_card" and rule.unclaimed == "return":
        return Outcome(play, dict.fromkeys(play.players, _ZERO), pot, "side_bet.returned",
                       _explain(play, "side_bet.returned", rule.stake, after.total, pot.total,
                                fmt))
    return Outcome(play, net, after, "side_bet.carried",
                   _explain(play, "side_bet.carried", rule.stake, after.total, pot.total, fmt))


def _explain(play: Play, rule: str, stake: Decimal, total: Decimal, carried: Decimal,
             fmt: Any) -> tuple[Message, ...]:
    """A settled side bet's sentences: who put the stake in, and who took the pot
    (``total``, ``carried`` of it from before), or where it went."""
    first = (Message("explain.side_bet.in_suit", bet=Message(f"side_bet.{play.bet}"),
                     suit=Message(f"suit.{play.suit}"), players=join_and(play.players),
                     stake=fmt(stake)) if play.suit in SUITS else
             Message("explain.side_bet.in", bet=Message(f"side_bet.{play.bet}"),
                     players=join_and(play.players), stake=fmt(stake)))
    if rule == "side_bet.won":
        return (first, Message("explain.side_bet.won", player=play.winner, amount=fmt(total),
                               carried=fmt(carried)) if carried
                else Message("explain.side_bet.won_fresh", player=play.winner,
                             amount=fmt(total)))
    if rule == "side_bet.returned":
        return first, Message("explain.side_bet.returned")
    return first, Message("explain.side_bet.carried", amount=fmt(total))


def explained(stored: Mapping[str, Any], stake: Decimal, fmt: Any = str) -> tuple[Message, ...]:
    """A stored outcome's sentences again, in the reader's language, from what it keeps
    (the play, its rule, the winner's net, the pot after) and the bet's ``stake``: stored
    outcomes are written in English and shown in the reader's words."""
    play = Play(stored["bet"], tuple(stored["players"]), stored.get("winner"),
                stored.get("suit"))
    rule = stored["rule"]
    if rule == "side_bet.left":
        return _explain_left({p: Decimal(str(stored["net"][p])) for p in play.players}, fmt)
    total = carried = _ZERO
    if rule == "side_bet.won":
        total = Decimal(str(stored["net"][play.winner])) + stake
        carried = total - stake * len(play.players)
    elif rule == "side_bet.carried":
        total = Decimal(str(stored["pot"]))
    return _explain(play, rule, stake, total, carried, fmt)


def _explain_left(back: Mapping[str, Decimal], fmt: Any) -> tuple[Message, ...]:
    return tuple(Message("explain.side_bet.left", player=player, amount=fmt(amount))
                 for player, amount in back.items())


def leave_pots(pots: Mapping[str, Pot], staying: Collection[str], fmt: Any = str
               ) -> tuple[dict[str, Decimal], dict[str, Pot], tuple[Outcome, ...]]:
    """Whoever has money in a pot but is not at the next deal (``staying``: who is) has left
    the table: what they paid into it since it was last won comes out of it and goes back to
    them, at once, and the pot keeps the rest (docs/rules.md §9, the house's reading: the texts
    are silent). So a leaver's settle-up is final: no later deal can win their money. Each
    leaver's net, the pots after, and an outcome for each pot that gave something back."""
    net: dict[str, Decimal] = {}
    after = dict(pots)
    outcomes = []
    for bet, pot in pots.items():
        back = {player: amount for player, amount in pot.paid
                if amount and player not in staying}
        if not back:
            continue
        after[bet] = kept = Pot(bet, tuple((p, a) for p, a in pot.paid if p not in back))
        for player, amount in back.items():
            net[player] = net.get(player, _ZERO) + amount
        outcomes.append(Outcome(Play(bet, tuple(back), None), back, kept, "side_bet.left",
                                _explain_left(back, fmt)))
    return net, after, tuple(outcomes)


def return_pot(pot: Pot) -> dict[str, Decimal]:
    """At settle-up: what is still in a pot goes back to each who paid it, exactly."""
    return {player: amount for player, amount in pot.paid if amount}


def play_json(play: Play) -> dict[str, Any]:
    """A play in the JSON shape of docs/rules.md §9 (what a hand carries)."""
    out: dict[str, Any] = {"bet": play.bet}
    if play.suit is not None:
        out["suit"] = play.suit
    out["players"] = list(play.players)
    out["winner"] = play.winner
    return out


def outcome_json(outcome: Outcome, fmt: Any = str) -> dict[str, Any]:
    """A settled side bet as a result shows it, apart from the hand's own lines: the play,
    its rule, each bettor's net, the pot after and the explanation."""
    return {**play_json(outcome.play), "rule": outcome.rule,
            "net": {p: fmt(v) for p, v in outcome.net.items()}, "pot": fmt(outcome.pot.total),
            "explanation": [str(m) for m in outcome.explanation]}


def settle_deal(plays: Sequence[Play], enabled: Mapping[str, SideBet],
                pots: Mapping[str, Pot], fmt: Any = str
                ) -> tuple[dict[str, Decimal], dict[str, Pot], tuple[Outcome, ...]]:
    """Every side bet of one deal, in turn, from the pots before it: each player's net over
    all of them, the pots after, and each bet's outcome."""
    after = dict(pots)
    net: dict[str, Decimal] = {}
    outcomes = []
    for play in plays:
        out = settle_side_bet(play, enabled[play.bet], after.get(play.bet, Pot(play.bet)), fmt)
        after[play.bet] = out.pot
        for player, amount in out.net.items():
            net[player] = net.get(player, _ZERO) + amount
        outcomes.append(out)
    return net, after, tuple(outcomes)


def side_bets_json(enabled: Mapping[str, SideBet], fmt: Any = str) -> dict[str, Any]:
    """The enabled side bets in the JSON shape of docs/rules.md §9, each stake written out."""
    out: dict[str, Any] = {}
    for bet in BETS:
        rule = enabled.get(bet)
        if rule is None:
            continue
        spec: dict[str, Any] = {"stake": fmt(rule.stake)}
        if bet == "high_card":
            if rule.suit is not None:
                spec["suit"] = rule.suit
            spec["unclaimed"] = rule.unclaimed
        out[bet] = spec
    return out


def replay_deals(deals: Sequence[Sequence[Play]], enabled: Mapping[str, SideBet],
                 fmt: Any = str, pots: Mapping[str, Pot] | None = None, *,
                 tables: Sequence[Collection[str] | None] | None = None,
                 seated: Collection[str] | None = None
                 ) -> tuple[list[tuple[dict[str, Decimal], tuple[Outcome, ...]]],
                            dict[str, Pot]]:
    """Every deal's side bets in order, from empty pots (or ``pots``, what the deals before
    them left): each deal's nets and outcomes, and the pots after the last. A play of a bet
    the table does not play is left out.

    ``tables``: who was at each deal (None: a deal that does not count, a void hand), and
    ``seated``: who is at the table now. After each deal that counts, whoever is not at the
    next one that counts (after the last: not seated now) left the table, and takes their
    money out of the pots (:func:`leave_pots`), as part of that deal's side-bet money: the
    last deal they played. Without ``tables`` nobody leaves."""
    pots = dict(pots or {})
    staying: list[Collection[str] | None] = [None] * len(deals)
    if tables is not None and seated is not None:
        following: Collection[str] = seated
        for i in reversed(range(len(deals))):
            table = tables[i]
            if table is not None:
                staying[i], following = following, table
    settled = []
    for plays, stay in zip(deals, staying, strict=True):
        kept = tuple(p for p in plays if p.bet in enabled)
        net, pots, outcomes = settle_deal(kept, enabled, pots, fmt)
        if stay is not None:
            back, pots, gone = leave_pots(pots, stay, fmt)
            for player, amount in back.items():
                net[player] = net.get(player, _ZERO) + amount
            outcomes += gone
        settled.append((net, outcomes))
    return settled, pots


def sent_plays(stored: Any, spec: Mapping[str, Any] | None) -> Any:
    """A hand's side bets as stored (:func:`play_json`: each with its suit, a suit the table
    fixes too) → as a hand sends them (:func:`parse_plays`): without the suit of a bet whose
    suit the table fixes (``spec``: the table's side bets, :func:`side_bets_json`), which is
    the table's, not the hand's, and which a hand may not give (docs/rules.md §9)."""
    fixed = {bet for bet, options in (spec or {}).items()
             if isinstance(options, Mapping) and options.get("suit") is not None}
    if not fixed or not isinstance(stored, list):
        return stored
    return [{k: v for k, v in play.items() if k != "suit"}
            if isinstance(play, Mapping) and play.get("bet") in fixed else play
            for play in stored]


def stored_plays(stored: Any) -> tuple[Play, ...]:
    """Plays as a stored hand carries them (checked when they were stored)."""
    return tuple(Play(p["bet"], tuple(p["players"]), p.get("winner"), p.get("suit"))
                 for p in stored or ())
