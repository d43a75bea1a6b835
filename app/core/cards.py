"""Cards and counting: the decks Tonk is played with, what each card counts, and which
counts a hand of a given size can hold.

Cards are written as rank then suit, case-insensitive: ``KS``, ``10H``, ``AD``, and
``JOKER`` for a joker. Aces count 1, number cards their face value, and J Q K count 10
each (``face_value="ten"``) or 11, 12, 13 (``face_value="rank"``); a joker counts 0.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from itertools import combinations

from .errors import CardError
from .messages import Message, as_sent

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
FACE_RANKS = frozenset({"J", "Q", "K"})
JOKER = "JOKER"
#: How many jokers the ``jokers`` deck holds unless a table says otherwise (the encyclopedia:
#: "plus two jokers"), and the most a table may add (pagat: "two or more jokers").
JOKERS = 2
MAX_JOKERS = 4

DECKS: dict[str, Message] = {name: Message(f"deck.{name}") for name in
                             ("standard", "jokers", "forty")}
FACE_VALUES: dict[str, Message] = {name: Message(f"face_value.{name}") for name in
                                   ("ten", "rank")}
_RANK_VALUE = {r: i + 1 for i, r in enumerate(RANKS)}
_SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card; ``suit`` is ``None`` for a joker."""

    rank: str
    suit: str | None = None

    def __str__(self) -> str:
        return self.rank if self.suit is None else f"{self.rank}{self.suit}"

    @property
    def is_face(self) -> bool:
        return self.rank in FACE_RANKS

    def value(self, face_value: str = "ten") -> int:
        """What the card counts in a player's hand."""
        if self.rank == JOKER:
            return 0
        if self.rank in FACE_RANKS and face_value == "ten":
            return 10
        return _RANK_VALUE[self.rank]


def parse_card(text: object) -> Card:
    """``"10h"`` → ``Card("10", "H")``; raises :class:`CardError` for anything else."""
    if not isinstance(text, str):
        raise CardError(Message("card.not_text", value=as_sent(text)))
    word = text.strip().upper()
    if word == JOKER:
        return Card(JOKER)
    rank, suit = word[:-1], word[-1:]
    if rank not in _RANK_VALUE or suit not in _SUIT_NAMES:
        raise CardError(Message("card.unknown", text=text))
    return Card(rank, suit)


@cache
def deck_contents(deck: str, jokers: int = JOKERS) -> dict[Card, int]:
    """Every card of ``deck`` with how many copies of it the deck holds; ``jokers``: how
    many jokers the ``jokers`` deck holds (no other deck has any)."""
    ranks = [r for r in RANKS if not (deck == "forty" and r in ("8", "9", "10"))]
    contents = {Card(r, s): 1 for s in SUITS for r in ranks}
    if deck == "jokers":
        contents[Card(JOKER)] = jokers
    return contents


def check_in_deck(card: Card, deck: str, jokers: int = JOKERS) -> None:
    """Raises :class:`CardError` when ``deck`` has no such card."""
    if card not in deck_contents(deck, jokers):
        raise CardError(Message("card.not_in_deck", card=str(card), deck=DECKS[deck]))


def check_available(hands: dict[str, list[Card]], deck: str, jokers: int = JOKERS) -> None:
    """Raises :class:`CardError` when the hands together hold a card more often than the
    deck, naming the place of the first copy the deck does not hold (``cards.Bob[0]``)."""
    seen: Counter[Card] = Counter()
    owners: dict[Card, list[tuple[str, int]]] = {}
    for player, cards in hands.items():
        for index, card in enumerate(cards):
            seen[card] += 1
            owners.setdefault(card, []).append((player, index))
    contents = deck_contents(deck, jokers)
    for card, times in seen.items():
        if times > contents[card]:
            player, index = owners[card][contents[card]]
            raise CardError(Message(
                "card.too_often" if contents[card] == 1 else "card.too_often_copies",
                card=str(card), times=times, who=", ".join(p for p, _i in owners[card]),
                copies=contents[card]), f"cards.{player}[{index}]")


@cache
def card_values(deck: str, face_value: str, jokers: int = JOKERS) -> tuple[int, ...]:
    """The value of every card in ``deck``, lowest first, one entry per copy."""
    return tuple(sorted(c.value(face_value) for c, n in deck_contents(deck, jokers).items()
                        for _ in range(n)))


@cache
def _sums_by_size(deck: str, face_value: str, hand_size: int, jokers: int
                  ) -> tuple[frozenset[int], ...]:
    """Element k: every total that exactly k cards of the deck can make (k = 0…hand_size)."""
    copies = Counter(card_values(deck, face_value, jokers))
    reach: list[set[int]] = [set() for _ in range(hand_size + 1)]
    reach[0].add(0)
    for value, count in copies.items():
        new = [set(s) for s in reach]
        for k in range(hand_size + 1):
            for total in reach[k]:
                for used in range(1, min(count, hand_size - k) + 1):
                    new[k + used].add(total + used * value)
        reach = new
    return tuple(frozenset(s) for s in reach)


@cache
def play_counts(deck: str, face_value: str, hand_size: int, jokers: int = JOKERS
                ) -> frozenset[int]:
    """Every count a player can hold during play: any total of at most ``hand_size`` cards."""
    return frozenset().union(*_sums_by_size(deck, face_value, hand_size, jokers))


@cache
def deal_totals(deck: str, face_value: str, hand_size: int, jokers: int = JOKERS
                ) -> frozenset[int]:
    """Every initial total of exactly ``hand_size`` cards (with three jokers, five cards can
    make 2: three jokers and two aces)."""
    return _sums_by_size(deck, face_value, hand_size, jokers)[hand_size]


def card_word(n: int) -> Message:
    """``5`` → "five cards", for messages."""
    return Message(f"cards.{n}") if n <= 10 else Message("cards.n", n=n)


@cache
def five_face_totals(face_value: str) -> frozenset[int]:
    """Every total five face cards can make: 50 when J, Q, K count 10; 56 to 64 when they
    count their rank (four copies of each rank in the deck)."""
    values = [Card(r, s).value(face_value) for r in sorted(FACE_RANKS) for s in SUITS]
    return frozenset(sum(c) for c in combinations(values, 5))
