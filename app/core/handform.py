"""The hand form's fields → the hand (docs/rules.md §1) and its side bets (§9): the one home of
how what a scorekeeper tapped becomes the facts the ledger settles. The server reads its
pages' forms with it (``app/web/forms.py``), and so does the phone with no signal, from the
fields its outbox keeps (:mod:`app.core.phone`): one reading, so the phone counts the hand
the server will store.

Only the facts the end and the rules use are read, so a count left in a field the page hid
is ignored. What only a form can get wrong (no end chosen, a count that is not a whole
number) comes back as a problem beside its field; every fact of the game is checked by the
core when the hand is settled.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .cards import deck_contents
from .hand import END_KINDS, count_mode
from .rules import Rules
from .sidebets import BETS

#: The ends that name a player: who went out, or who dropped.
PLAYER_ENDS = ("tonk_out", "run_out", "drop")
#: The most of one field that is read.
MAX_TEXT = 500

#: A problem of the form itself, by the field it is shown beside (``count-1``: seat 1).
NO_END, NOT_WHOLE, NOT_BIG_ONE = "no_end", "not_whole", "not_big_one"

#: A side-bet line as typed or stored: who is in, who won ("" for nobody), the suit called.
Chosen = tuple[tuple[str, ...], str, str]


def form_whole(text: str) -> int | str:
    """A whole number a form gives as text (a hand's number, the version a correction is
    made from) as a number; anything else as typed, for the core to refuse by name."""
    return int(text) if text.isascii() and text.isdigit() else text


class FormFields(Protocol):
    """What a form gives: Werkzeug's ``MultiDict``, or :class:`Fields`."""

    def get(self, key: str, default: str) -> str: ...

    def getlist(self, key: str) -> list[str]: ...

    def __contains__(self, key: object, /) -> bool: ...


class Fields:
    """A form as ``[name, value]`` pairs, as the phone's outbox keeps it."""

    def __init__(self, pairs: Iterable[Sequence[str]]) -> None:
        self._values: dict[str, list[str]] = {}
        for name, value in pairs:
            self._values.setdefault(str(name), []).append(str(value))

    def get(self, key: str, default: str = "") -> str:
        return self._values.get(key, [default])[0]

    def getlist(self, key: str) -> list[str]:
        return list(self._values.get(key, ()))

    def __contains__(self, key: object, /) -> bool:
        return key in self._values


@dataclass(frozen=True)
class Asks:
    """The facts a hand form asks for beyond the end and the counts, under these rules."""

    method: bool
    first_turn: bool
    double_double: bool
    five_face: bool
    modes: dict[str, str]

    @classmethod
    def of(cls, rules: Rules) -> Asks:
        hits = rules.tonk_out_by_hits_pays
        return cls(method=hits is not None and hits != rules.tonk_out_pays,
                   first_turn=rules.first_turn_spread_pays is not None,
                   double_double=rules.double_double_pays is not None,
                   five_face=rules.has_five_face_cards,
                   modes={k: count_mode(k, rules) for k in END_KINDS})

    @property
    def count_kinds(self) -> str:
        """The ends that need counts, space-separated, for ``data-kinds``."""
        return " ".join(k for k, mode in self.modes.items() if mode != "none")

    def to_json(self) -> dict[str, Any]:
        """What the hand fields show and hide, for a page that draws them itself."""
        return {"method": self.method, "first_turn": self.first_turn,
                "double_double": self.double_double, "five_face": self.five_face,
                "modes": dict(self.modes), "count_kinds": self.count_kinds}


def picker_data(rules: Rules, asks: Asks) -> dict[str, Any]:
    """What the hand fields' script needs under ``rules``: which counts each end needs, the
    counts and initial totals the deck allows (to check as the scorekeeper types), and the
    deck for the card picker (one entry a copy: the jokers deck holds JOKER as often as the
    rules say)."""
    return {
        "modes": dict(asks.modes),
        "playCounts": sorted(rules.play_counts), "dealTotals": sorted(rules.deal_totals),
        "maxCount": rules.max_count, "handSize": rules.hand_size,
        "deck": [[str(card), card.value(rules.face_value)]
                 for card, copies in deck_contents(rules.deck, rules.jokers).items()
                 for _i in range(copies)],
    }


def text_of(form: FormFields, name: str) -> str:
    """A field as typed, trimmed, and no longer than :data:`MAX_TEXT`."""
    return form.get(name, "").strip()[:MAX_TEXT]


def hand_of_form(form: FormFields, names: Sequence[str], rules: Rules,
                 asks: Asks | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """The hand form → (the hand for the ledger, the form's own problems by field: one of
    :data:`NO_END`, :data:`NOT_WHOLE`, :data:`NOT_BIG_ONE`). ``names``: the players the form
    is about, in seat order (``count-0`` is the first's)."""
    asks = asks or Asks.of(rules)
    problems: dict[str, str] = {}
    kind, player = form.get("kind", ""), form.get("player", "")
    multiplier = 1
    if "big_one" in form:
        try:
            multiplier = int(form.get("big_one", ""))
        except ValueError:
            problems["big_one"] = NOT_BIG_ONE
    if not kind:
        problems["kind"] = NO_END
    end: dict[str, Any] = {"kind": kind}
    if kind in PLAYER_ENDS:
        end["player"] = player or None
    if kind == "tonk_out":
        if asks.method:
            end["method"] = form.get("method", "spread")
        if asks.first_turn and "first_turn" in form:
            end["first_turn"] = True
        if asks.double_double and "double_double" in form:
            end["double_double"] = True
    five_face = form.getlist("five_face")
    if kind == "deal" and asks.five_face and five_face:
        end["five_face_cards"] = five_face
    counts: dict[str, int] = {}
    cards: dict[str, list[str]] = {}
    mode = asks.modes.get(kind, "none")
    for seat, name in enumerate(names):
        if mode == "none" or (mode == "losers" and name == player):
            continue
        count, held = text_of(form, f"count-{seat}"), text_of(form, f"cards-{seat}")
        if count:
            try:
                counts[name] = int(count)
            except ValueError:
                problems[f"count-{seat}"] = NOT_WHOLE
        if held:
            cards[name] = held.replace(",", " ").split()
    data: dict[str, Any] = {"end": end, "dealer": form.get("dealer", "") or None,
                            "multiplier": multiplier}
    if counts:
        data["counts"] = counts
    if cards:
        data["cards"] = cards
    return data, problems


def chosen_of_form(form: FormFields, spec: Mapping[str, Any],
                   names: Sequence[str]) -> dict[str, Chosen]:
    """The side-bet lines as typed, for the bets of ``spec`` the form showed."""
    chosen: dict[str, Chosen] = {}
    for bet in BETS:
        if bet in spec and f"sb-{bet}-shown" in form:
            ticked = set(form.getlist(f"sb-{bet}-in"))
            chosen[bet] = (tuple(n for n in names if n in ticked),
                           form.get(f"sb-{bet}-winner", ""), form.get(f"sb-{bet}-suit", ""))
    return chosen


def read_side_bets(chosen: Mapping[str, Chosen]) -> tuple[list[dict[str, Any]], list[str]]:
    """The lines as typed → the hand's ``side_bets`` (a bet nobody is in is not played this
    deal), and the bet of each entry, in order (to place an error). A bet nobody is in with
    a winner chosen stays, for the core to refuse beside its winner: a winner who did not
    bet is an error (docs/rules.md §9), never a bet silently left out."""
    plays: list[dict[str, Any]] = []
    for bet in BETS:
        if bet not in chosen:
            continue
        ticked, winner, suit = chosen[bet]
        if not ticked and not winner:
            continue
        play: dict[str, Any] = {"bet": bet, "players": list(ticked), "winner": winner or None}
        if bet == "high_card" and suit:
            play["suit"] = suit
        plays.append(play)
    return plays, [p["bet"] for p in plays]


def side_bet_field(field: str | None, bets: Sequence[str]) -> str | None:
    """``side_bets[1].winner`` → ``sb-naturals-winner`` (``bets``: each entry's bet, as
    :func:`read_side_bets` gives them); None if not about a side bet."""
    if not field or not field.startswith("side_bets"):
        return None
    head, _dot, part = field.partition(".")
    try:
        bet = bets[int(head[len("side_bets["):-1])]
    except (ValueError, IndexError):
        return "form"
    return f"sb-{bet}-{_PARTS.get(part, 'in')}"


_PARTS = {"players": "in", "winner": "winner", "suit": "suit"}
