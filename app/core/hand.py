"""One hand of Tonk as data (docs/rules.md §1–2): who sat where, how the hand ended, the counts.

:func:`parse_hand` checks a hand given as JSON-like data and returns an immutable
:class:`PlayedHand`, or raises a :class:`HandError` (or another :class:`TonkError`) whose message
names the field and the player. A :class:`PlayedHand` that exists is valid: settling it cannot fail.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NamedTuple

from .cards import Card, check_available, check_in_deck, five_face_totals, parse_card
from .catches import CaughtDrop
from .errors import CardError, HandError
from .frozen import maker
from .messages import Message, as_sent
from .money import parse_stake
from .names import name_key, player_name
from .rules import Rules, resolve_rules

END_KINDS: dict[str, Message] = {kind: Message(f"end.{kind}") for kind in (
    "deal", "tonk_out", "run_out", "drop", "stock_out", "dead")}
#: A few words that tell the ends apart (a run out and a stock that ran out, above all).
END_HINTS: dict[str, Message] = {kind: Message(f"end_hint.{kind}") for kind in END_KINDS}
METHODS = ("spread", "hits")
MIN_PLAYERS, MAX_PLAYERS = 2, 8
MAX_MULTIPLIER = 1000
_CENT = Decimal("0.01")
_END_FIELDS: dict[str, frozenset[str]] = {
    "deal": frozenset({"kind", "five_face_cards"}),
    "tonk_out": frozenset({"kind", "player", "method", "first_turn", "double_double"}),
    "run_out": frozenset({"kind", "player"}),
    "drop": frozenset({"kind", "player"}),
    "stock_out": frozenset({"kind"}),
    "dead": frozenset({"kind"}),
}
HAND_FIELDS = frozenset({"rules", "stake", "multiplier", "players", "dealer", "end", "counts",
                         "cards"})
#: What a stored hand holds of its table, set by the session, not by each hand
#: (:meth:`PlayedHand.to_json` with ``with_table``).
TABLE_FIELDS = ("rules", "stake", "players")
#: Seats from the dealer's left, the dealer last: ``_FROM_LEFT[players][dealer]``.
_FROM_LEFT = {n: tuple(tuple((d + 1 + i) % n for i in range(n)) for d in range(n))
              for n in range(1, MAX_PLAYERS + 1)}
#: How much is remembered between hands: a table's players (as given, and their seats by
#: name and by name key) are the same hand after hand, so they are checked once.
_REMEMBERED = 4096


@dataclass(frozen=True, slots=True)
class End:
    """How the hand ended: its kind and the facts that kind needs."""

    kind: str
    player: str | None = None
    method: str = "spread"
    first_turn: bool = False
    double_double: bool = False
    five_face_cards: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.player is not None:
            out["player"] = self.player
        if self.kind == "tonk_out":
            out["method"] = self.method
            if self.first_turn:
                out["first_turn"] = True
            if self.double_double:
                out["double_double"] = True
        if self.five_face_cards:
            out["five_face_cards"] = list(self.five_face_cards)
        return out


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """A valid hand. ``counts`` and ``cards`` follow the seat order of ``players``."""

    rules: Rules
    stake: Decimal
    multiplier: int
    players: tuple[str, ...]
    dealer: int
    end: End
    counts: tuple[int | None, ...]
    cards: tuple[tuple[Card, ...] | None, ...]

    @property
    def dealer_name(self) -> str:
        return self.players[self.dealer]

    @property
    def from_left(self) -> tuple[int, ...]:
        """Seats in order from the dealer's left, the dealer last."""
        return _FROM_LEFT[len(self.players)][self.dealer]

    def count(self, player: str) -> int | None:
        return self.counts[self.players.index(player)]

    def to_json(self, *, with_table: bool = True) -> dict[str, Any]:
        """The hand in the JSON shape of docs/rules.md §1; parse_hand of it gives the same hand."""
        out: dict[str, Any] = {}
        if with_table:
            out["rules"] = self.rules.to_json()
            out["stake"] = str(self.stake)
            out["players"] = list(self.players)
        out["multiplier"] = self.multiplier
        out["dealer"] = self.dealer_name
        out["end"] = self.end.to_json()
        counts = {p: c for p, c in zip(self.players, self.counts, strict=True) if c is not None}
        if counts:
            out["counts"] = counts
        cards = {p: [str(c) for c in cs] for p, cs in zip(self.players, self.cards, strict=True)
                 if cs is not None}
        if cards:
            out["cards"] = cards
        return out


_make_end = maker(End)
_make_hand = maker(PlayedHand)
#: The ends a table sees over and over, by (kind, player): an End is immutable, so one serves
#: every hand that ended the same way.
_ENDS: dict[tuple[str, str | None, str, bool, bool], End] = {}
#: Ends of one key (their kind) and a player, or none: the usual ``{"kind", "player"}``.
_USUAL_ENDS = {"tonk_out": "player", "run_out": "player", "drop": "player",
               "stock_out": None, "dead": None, "deal": None}


def _end(kind: str, player: str | None, method: str = "spread", first_turn: bool = False,
         double_double: bool = False) -> End:
    """``End(kind, player, method, first_turn, double_double)``, built once."""
    key = (kind, player, method, first_turn, double_double)
    end = _ENDS.get(key)
    if end is None:
        if len(_ENDS) >= _REMEMBERED:
            _ENDS.clear()
        end = _ENDS[key] = _make_end(*key, ())
    return end


# -- small checks ---------------------------------------------------------------------------

def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_players(value: Any) -> tuple[str, ...]:
    """2 to 8 distinct non-empty names in seat order."""
    given = _as_given(value)
    known = _PLAYERS.get(given) if given is not None else None
    if known is not None:
        return known
    names = _parse_players(value)
    if given is not None:
        if len(_PLAYERS) >= _REMEMBERED:
            _PLAYERS.clear()
        _PLAYERS[given] = names
    return names


#: Players as given (plain strings) → as checked (a table's hands name the same players).
_PLAYERS: dict[tuple[str, ...], tuple[str, ...]] = {}


_ONLY_STR = frozenset({str})
_ONLY_INT = frozenset({int})


def _as_given(value: Any) -> tuple[str, ...] | None:
    """A list of plain strings as a tuple (a key of what was checked before), else None."""
    if type(value) not in (list, tuple) or not _ONLY_STR.issuperset(map(type, value)):
        return None
    return tuple(value)


def _parse_players(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list | tuple):
        raise HandError(Message("players.not_list"), "players")
    if not MIN_PLAYERS <= len(value) <= MAX_PLAYERS:
        raise HandError(Message("players.how_many", low=MIN_PLAYERS, high=MAX_PLAYERS,
                                n=len(value)), "players")
    names: list[str] = []
    seen: dict[str, str] = {}
    for i, raw in enumerate(value):
        name = player_name(raw, i, HandError)
        key = name_key(name)
        if key in seen:
            raise HandError(Message("players.twice", player=name, first=seen[key]),
                            f"players[{i}]")
        seen[key] = name
        names.append(name)
    return tuple(names)


class _Seats(NamedTuple):
    """A table's seats by each player's name as written and by its name key."""

    by_name: dict[str, int]
    by_key: dict[str, int]


_SEATS: dict[tuple[str, ...], _Seats] = {}


def _seats(players: tuple[str, ...]) -> _Seats:
    """The seats of ``players`` (worked out once per table, not once per name per hand)."""
    found = _SEATS.get(players)
    if found is None:
        by_key: dict[str, int] = {}
        for seat, player in enumerate(players):
            by_key.setdefault(name_key(player), seat)
        found = _Seats({p: by_key[name_key(p)] for p in players}, by_key)
        if len(_SEATS) >= _REMEMBERED:
            _SEATS.clear()
        _SEATS[players] = found
    return found


def _seat(players: tuple[str, ...], name: Any, field: str, what: str) -> int:
    if not isinstance(name, str):
        raise HandError(Message("seat.not_name", what=what, value=as_sent(name)), field)
    seats = _seats(players)
    seat = seats.by_name.get(name)
    if seat is None:
        seat = seats.by_key.get(name_key(name))
    if seat is None:
        raise HandError(Message("seat.not_at_table", what=what, player=name,
                                players=", ".join(players)), field)
    return seat


def _flag(end: Mapping[str, Any], key: str) -> bool:
    value = end.get(key, False)
    if not isinstance(value, bool):
        raise HandError(Message("end.not_flag", key=key, value=as_sent(value)), f"end.{key}")
    return value


def parse_end(value: Any, players: tuple[str, ...], rules: Rules,
              seats: _Seats | None = None) -> End:
    """The ``end`` object of a hand (docs/rules.md §2); ``seats``: those of ``players``."""
    if type(value) is dict:  # the usual end: its kind, and the player if the kind names one
        kind = value.get("kind")
        if type(kind) is str and kind in _USUAL_ENDS:
            if _USUAL_ENDS[kind] is None:
                if len(value) == 1:
                    return _end(kind, None)
            elif len(value) == 2 and type(player := value.get("player")) is str:
                seat = (seats or _seats(players)).by_name.get(player)
                if seat is not None:
                    return _end(kind, players[seat])
    if not isinstance(value, Mapping):
        raise HandError(Message("end.not_object"), "end")
    kind = value.get("kind")
    if not isinstance(kind, str) or kind not in END_KINDS:
        raise HandError(Message("end.unknown_kind", kinds=", ".join(END_KINDS),
                                value=as_sent(kind)), "end.kind")
    fields = _END_FIELDS[kind]
    extra = [] if fields.issuperset(value) else sorted(set(value) - fields)
    if extra:
        raise HandError(Message("end.no_field", end=END_KINDS[kind], field=as_sent(extra[0])),
                        f"end.{extra[0]}")
    if kind in ("tonk_out", "run_out", "drop"):
        if value.get("player") is None:
            raise HandError(Message("end.needs_dropper" if kind == "drop" else
                                    "end.needs_winner", end=END_KINDS[kind]), "end.player")
        player = players[_seat(players, value["player"], "end.player", "end.player")]
    else:
        player = None
    if kind == "tonk_out":
        method = value.get("method", "spread")
        if method not in METHODS:
            raise HandError(Message("end.method", value=as_sent(method)), "end.method")
        double_double = _flag(value, "double_double")
        if double_double and rules.double_double_pays is None:
            raise HandError(Message("end.no_double_double"), "end.double_double")
        return _end(kind, player, method, _flag(value, "first_turn"), double_double)
    if kind == "deal" and "five_face_cards" in value:
        listed = value["five_face_cards"]
        if not rules.has_five_face_cards:
            raise HandError(Message("end.no_five_face_cards"), "end.five_face_cards")
        if not isinstance(listed, list | tuple):
            raise HandError(Message("end.five_face_not_list"), "end.five_face_cards")
        claimed = sorted({_seat(players, p, "end.five_face_cards", "five_face_cards")
                          for p in listed})
        return End(kind, five_face_cards=tuple(players[s] for s in claimed))
    return _end(kind, player)


def _parse_counts(value: Any, players: tuple[str, ...], rules: Rules, kind: str,
                  seats: _Seats) -> list[int | None]:
    counts: list[int | None] = [None] * len(players)
    if value is None:
        return counts
    if type(value) is not dict and not isinstance(value, Mapping):
        raise HandError(Message("counts.not_object"), "counts")
    play_counts = rules.play_counts
    if kind != "deal" and len(value) == len(players) and tuple(value) == players:
        given: list[int | None] = list(value.values())  # every count, in seat order
        if _ONLY_INT.issuperset(map(type, given)) and play_counts.issuperset(given):
            return given
    by_name = seats.by_name
    for name, count in value.items():
        seat = by_name.get(name) if type(name) is str else None
        if seat is None:
            seat = _seat(players, name, f"counts.{name}", "counts")
        if counts[seat] is None and type(count) is int and kind != "deal" \
                and count in play_counts:
            counts[seat] = count  # the usual count, checked at once
            continue
        field = f"counts.{players[seat]}"
        if counts[seat] is not None:
            raise HandError(Message("counts.twice", player=players[seat]), field)
        if not _is_int(count):
            raise HandError(Message("counts.not_whole", player=players[seat],
                                    value=as_sent(count)), field)
        _check_count(rules, kind, players[seat], count, field)
        counts[seat] = count
    return counts


def _check_count(rules: Rules, kind: str, player: str, count: int, field: str) -> None:
    """A player's whole-number count (a deal's total) that this deck can give, or a
    :class:`HandError`."""
    if kind == "deal":
        _check_deal_total(rules, player, count, field)
    elif count not in rules.play_counts:
        _bad_count(rules, player, count, field)


def count_problems(kind: str, counts: Mapping[str, int], rules: Rules) -> list[HandError]:
    """What is wrong with each of the whole-number ``counts`` given (by player), in their
    order: the errors :func:`parse_hand` raises one at a time, for a form that shows them
    all."""
    problems = []
    for player, count in counts.items():
        try:
            _check_count(rules, kind, player, count, f"counts.{player}")
        except HandError as exc:
            problems.append(exc)
    return problems


def _bad_count(rules: Rules, player: str, count: int, field: str) -> None:
    if count < 0:
        raise HandError(Message("counts.negative", player=player, count=count), field)
    if count > rules.max_count:
        raise HandError(Message("counts.too_high", player=player, count=count,
                                cards=rules.hand_words, max=rules.max_count), field)
    raise HandError(Message("counts.impossible", player=player, count=count,
                            cards=rules.hand_words), field)


def _check_deal_total(rules: Rules, player: str, total: int, field: str) -> None:
    if total in rules.deal_totals:
        return
    if 0 <= total < rules.min_deal_total:
        raise HandError(Message("counts.deal_too_low", player=player, total=total,
                                cards=rules.hand_words, min=rules.min_deal_total), field)
    _bad_count(rules, player, total, field)


def _parse_cards(value: Any, players: tuple[str, ...], rules: Rules
                 ) -> list[tuple[Card, ...] | None]:
    hands: list[tuple[Card, ...] | None] = [None] * len(players)
    if value is None:
        return hands
    if not isinstance(value, Mapping):
        raise HandError(Message("cards.not_object"), "cards")
    by_name: dict[str, list[Card]] = {}
    for name, cards in value.items():
        seat = _seat(players, name, f"cards.{name}", "cards")
        field = f"cards.{players[seat]}"
        if hands[seat] is not None:
            raise HandError(Message("cards.twice", player=players[seat]), field)
        if not isinstance(cards, list | tuple):
            raise HandError(Message("cards.not_list", player=players[seat]), field)
        if len(cards) > rules.hand_size:
            raise HandError(Message("cards.too_many", player=players[seat], n=len(cards),
                                    cards=rules.hand_words), field)
        try:
            parsed = [parse_card(c) for c in cards]
            for card in parsed:
                check_in_deck(card, rules.deck, rules.jokers)
        except CardError as exc:
            raise CardError(Message("cards.of_player", player=players[seat], error=exc.said),
                            field) from None
        by_name[players[seat]] = parsed
        hands[seat] = tuple(parsed)
    check_available(by_name, rules.deck, rules.jokers)
    return hands


# -- the hand -------------------------------------------------------------------------------

def parse_hand(data: Any, *, rules: Rules | None = None, stake: Decimal | None = None,
               players: tuple[str, ...] | None = None) -> PlayedHand:
    """Check a hand given as JSON-like data and return it as a :class:`PlayedHand`.

    ``rules``, ``stake`` and ``players`` may come from the table (a session) instead of the
    data; then the data must not give them. Raises a :class:`TonkError` naming the field.
    """
    if type(data) is not dict and not isinstance(data, Mapping):
        raise HandError(Message("hand.not_object"), None)
    unknown = [] if HAND_FIELDS.issuperset(data) else sorted(set(data) - HAND_FIELDS, key=str)
    if unknown:
        raise HandError(Message("hand.no_field", field=as_sent(unknown[0])), str(unknown[0]))
    if rules is not None or stake is not None or players is not None:
        for name, given in (("rules", rules), ("stake", stake), ("players", players)):
            if given is not None and name in data:
                raise HandError(Message(f"hand.{name}_by_session"), name)
    if rules is None:
        rules = resolve_rules(data.get("rules"))
    stake = stake if stake is not None else parse_stake(data.get("stake"), rules)
    players = players if players is not None else parse_players(data.get("players"))

    multiplier = data.get("multiplier", 1)
    if type(multiplier) is not int or not 1 <= multiplier <= MAX_MULTIPLIER:
        if not _is_int(multiplier) or not 1 <= multiplier <= MAX_MULTIPLIER:
            raise HandError(Message("hand.multiplier", max=MAX_MULTIPLIER,
                                    value=as_sent(multiplier)), "multiplier")
    seats = _seats(players)
    dealer = data.get("dealer")
    if dealer is None:
        dealer_seat = 0
    else:
        found = seats.by_name.get(dealer) if type(dealer) is str else None
        dealer_seat = found if found is not None else _seat(players, dealer, "dealer",
                                                            "dealer")
    end = parse_end(data.get("end"), players, rules, seats)
    counts = _parse_counts(data.get("counts"), players, rules, end.kind, seats)
    if data.get("cards") is not None:
        cards = _parse_cards(data["cards"], players, rules)
        _counts_from_cards(counts, cards, players, rules, end)
    else:
        cards = [None] * len(players)
    _check_counts_needed(counts, players, rules, end)
    hand = _make_hand(rules, stake, multiplier, players, dealer_seat, end, tuple(counts),
                      tuple(cards))
    if end.kind == "deal" and not deal_claims(hand):
        raise HandError(_no_claim_message(hand), "counts")
    return hand


def deal_claims(hand: PlayedHand) -> list[tuple[int, int, int]]:
    """Every qualifying instant win on the deal: (seat, rule index, rank within the rule),
    a lower rule index and rank being a better claim (docs/rules.md §4)."""
    claims = []
    five = hand.end.five_face_cards
    for seat, total in enumerate(hand.counts):
        is_five = hand.players[seat] in five
        if total is None and not is_five:
            continue
        for index, win in enumerate(hand.rules.deal_wins):
            rank = win.claims(total, is_five)
            if rank is not None:
                claims.append((seat, index, rank))
                break
    return claims



def _counts_from_cards(counts: list[int | None], cards: list[tuple[Card, ...] | None],
                       players: tuple[str, ...], rules: Rules, end: End) -> None:
    for seat, held in enumerate(cards):
        if held is None:
            continue
        name, field = players[seat], f"cards.{players[seat]}"
        total = sum(c.value(rules.face_value) for c in held)
        if end.kind == "deal" and len(held) != rules.hand_size:
            raise HandError(Message("cards.deal_size", player=name, cards=rules.hand_words,
                                    n=len(held)), field)
        if name in end.five_face_cards and not all(c.is_face for c in held):
            raise HandError(Message("cards.not_five_face", player=name), field)
        given = counts[seat]
        if given is not None and given != total:
            raise HandError(Message("cards.sum_differs", player=name, total=total,
                                    given=given), f"counts.{name}")
        if end.kind == "deal":
            _check_deal_total(rules, name, total, field)
        counts[seat] = total


def count_mode(kind: str, rules: Rules) -> str:
    """Which counts a hand that ended this way asks for under ``rules``: ``all``;
    ``claimants`` (the initial totals of who won on the deal); ``losers`` (every count but
    the winner's, under push-ups); or ``none``. The one home of what a hand needs: the form
    shows these fields, and :func:`missing_counts` requires from them."""
    push_ups = rules.scoring == "push_ups"
    if kind in ("drop", "stock_out") or (kind == "deal" and push_ups):
        return "all"
    if kind == "deal":
        return "claimants"
    if kind in ("tonk_out", "run_out") and push_ups:
        return "losers"
    return "none"


def missing_counts(kind: str, player: str | None, five_face_cards: Collection[str],
                   players: Sequence[str], rules: Rules, given: Collection[str]
                   ) -> list[HandError]:
    """Every count a hand that ended this way needs and was not ``given``, in seat order:
    the errors :func:`parse_hand` raises one at a time, for a form that shows them all."""
    mode = count_mode(kind, rules)
    needed: list[str] = []
    if mode == "all" and kind in ("drop", "stock_out"):
        needed = list(players)
    elif mode in ("all", "losers"):  # a push-ups deal: the claims may be listed, or not
        needed = [p for p in players if p != player and p not in five_face_cards]
    needed = [name for name in needed if name not in given]
    if not needed:
        return []
    why = (Message("counts.every_count", end=END_KINDS[kind])
           if kind in ("drop", "stock_out") else Message("counts.every_loser"))
    return [HandError(Message("counts.missing", player=name, why=why), f"counts.{name}")
            for name in needed]


def _check_counts_needed(counts: list[int | None], players: tuple[str, ...], rules: Rules,
                         end: End) -> None:
    kind = end.kind
    if kind in ("tonk_out", "run_out"):
        seat = players.index(end.player or "")
        if counts[seat]:
            raise HandError(Message("counts.winner_holds", player=end.player,
                                    count=counts[seat]), f"counts.{end.player}")
        counts[seat] = 0
    if kind == "deal":
        _check_five_face_counts(counts, players, rules, end)
    if None in counts:  # else every count is given, and none can be missing
        missing = missing_counts(kind, end.player, end.five_face_cards, players, rules,
                                 {players[s] for s, c in enumerate(counts) if c is not None})
        if missing:
            raise missing[0]
    if kind == "deal" and not any(c is not None for c in counts) and not end.five_face_cards:
        raise HandError(Message("counts.deal_needs_total"), "counts")


def _check_five_face_counts(counts: list[int | None], players: tuple[str, ...], rules: Rules,
                            end: End) -> None:
    """Five face cards count 50 when J, Q, K count 10 (a missing count is 50), and 56 to 64
    when they count their rank, so never 50: such a claim is refused (docs/rules.md §2)."""
    if rules.hand_size != 5:
        return
    totals = five_face_totals(rules.face_value)
    for name in end.five_face_cards:
        seat = players.index(name)
        if counts[seat] is None and len(totals) == 1:
            counts[seat] = min(totals)
        elif counts[seat] is not None and counts[seat] not in totals:
            low, high = min(totals), max(totals)
            raise HandError(Message("counts.five_face" if low == high else
                                    "counts.five_face_range", player=name,
                                    count=counts[seat], low=low, high=high),
                            f"counts.{name}")


def _no_claim_message(hand: PlayedHand) -> Message:
    rules = hand.rules
    if not rules.deal_wins:
        return Message("deal.no_instant_wins")
    wins = "; ".join(str(Message("deal.win_pays", what=w.describe(), pays=w.pays))
                     for w in rules.deal_wins)
    given = ", ".join(f"{p} {c}" for p, c in zip(hand.players, hand.counts, strict=True)
                      if c is not None)
    return Message("deal.no_claim", given=given or Message("deal.these_cards"), wins=wins)


_make_caught = maker(CaughtDrop)


def catch_groups(hand: PlayedHand) -> CaughtDrop | None:
    """For a drop: who caught whom (docs/rules.md §5), or None when the drop won."""
    counts = hand.counts
    dropper = hand.players.index(hand.end.player or "")
    mine = counts[dropper]
    lowest = min(counts[:dropper] + counts[dropper + 1:])  # type: ignore[type-var]
    assert mine is not None and lowest is not None
    if mine < lowest:
        return None
    everyone = hand.from_left
    winners: list[int] = []
    catchers: list[int] = []
    others: list[int] = []
    for seat in everyone:
        if seat != dropper:
            count = counts[seat]
            (winners if count == lowest else others).append(seat)
            if count <= mine:  # type: ignore[operator]
                catchers.append(seat)
    return _make_caught(dropper, tuple(winners), tuple(catchers), tuple(others), counts,
                        everyone, hand.rules.catch_factor)
