"""House rules: every option a table can choose, and the named presets of RULES.md §7.

A :class:`Rules` value is one complete, validated rule set. Tables name a preset and may
override any option (``{"preset": "pagat", "catch": "alt3"}``); :func:`resolve_rules` turns
that into a :class:`Rules`. Presets live in the :data:`PRESETS` registry and are looked up
with :func:`find_preset`; an unknown name is an :class:`UnknownPresetError`.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .cards import DECKS, FACE_VALUES, card_word, deal_totals, play_counts
from .errors import RulesError, UnknownOptionError, UnknownPresetError

SCORINGS: dict[str, str] = {
    "money": "each hand is paid in money at the table's stake",
    "points": "whole points instead of money, the same payments; settle up at the end",
    "push_ups": "losers are pushed up by the points left in their hands; lowest total is best",
}
CATCHES: dict[str, str] = {
    "standard": "the dropper pays double to everyone at or below their count; "
    "everyone else pays the lowest the stake",
    "alt1": "the lowest gets double from the dropper and the stake from everyone else",
    "alt2": "the dropper pays the lowest the stake for every other player at the table",
    "alt3": "the dropper pays the stake to everyone at or below their count; "
    "the lowest also gets the stake from everyone",
    "alt4": "the dropper pays double to every other player",
    "alt5": "the dropper pays five times the stake to the lowest, nothing else",
    "wikipedia": "the dropper pays the stake to everyone lower (double to a winner tied with "
    "them); everyone pays the winner the stake",
    "catchers": "the dropper pays the catch factor to everyone at or below their count, "
    "nothing else",
    "washington": "the dropper pays the lowest twice the number of players, nothing else",
}
DEAL_CONFLICTS: dict[str, str] = {
    "draw": "several instant wins on the deal make a draw",
    "best": "only the best instant win is paid",
    "all_paid": "every instant win is paid",
}
DEAL_TIES: dict[str, str] = {
    "draw": "equal best instant wins make a draw",
    "nearest_left": "equal best instant wins go to the one nearest the dealer's left",
}
STOCK_OUT_TIES: dict[str, str] = {
    "all_paid": "tied lowest counts are all paid",
    "draw": "tied lowest counts make a draw",
}
MAX_MULTIPLE = 100
MAX_DEAL_WINS = 10


def multiple_word(n: int) -> str:
    """``2`` → ``"double"``: how a table says a multiple of the stake."""
    return {1: "single", 2: "double", 3: "triple", 4: "quadruple"}.get(n, f"{n}×")


@dataclass(frozen=True, slots=True)
class DealWin:
    """One instant-win rule on the deal: which initial totals (or five face cards) claim it,
    and what each other player pays."""

    pays: int
    totals: tuple[int, ...] = ()
    at_most: int | None = None
    five_face_cards: bool = False

    def claims(self, total: int | None, five_face: bool) -> int | None:
        """How good a claim this is for a player (lower is better), or None if it does not
        qualify. For ``totals`` an earlier entry is better; for ``at_most`` a lower total."""
        if self.five_face_cards:
            return 0 if five_face else None
        if total is None:
            return None
        if self.at_most is not None:
            return total if total <= self.at_most else None
        try:
            return self.totals.index(total)
        except ValueError:
            return None

    def describe(self) -> str:
        """``"49 or 50"``, ``"13 or fewer"``, ``"five face cards"``."""
        if self.five_face_cards:
            return "five face cards"
        if self.at_most is not None:
            return f"{self.at_most} or fewer"
        words = [str(t) for t in self.totals]
        return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]

    def to_json(self) -> dict[str, Any]:
        if self.five_face_cards:
            return {"five_face_cards": True, "pays": self.pays}
        if self.at_most is not None:
            return {"at_most": self.at_most, "pays": self.pays}
        return {"totals": list(self.totals), "pays": self.pays}


@dataclass(frozen=True)
class Rules:
    """A complete house-rule set. Build one with :func:`resolve_rules`."""

    preset: str = "pagat"
    scoring: str = "money"
    deck: str = "standard"
    face_value: str = "ten"
    hand_size: int = 5
    deal_wins: tuple[DealWin, ...] = (DealWin(pays=2, totals=(49, 50)),)
    deal_conflict: str = "draw"
    deal_tie: str = "draw"
    tonk_out_pays: int = 2
    tonk_out_by_hits_pays: int | None = None
    first_turn_spread_pays: int | None = None
    double_double_pays: int | None = None
    run_out_pays: int = 1
    drop_win_pays: int = 1
    catch: str = "standard"
    catch_factor: int = 2
    stock_out_pays: int = 1
    stock_out_tie: str = "all_paid"
    # Derived once per rule set, so that settling a hand looks nothing up twice.
    play_counts: frozenset[int] = field(init=False, repr=False, compare=False)
    deal_totals: frozenset[int] = field(init=False, repr=False, compare=False)
    max_count: int = field(init=False, repr=False, compare=False)
    min_deal_total: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        counts = play_counts(self.deck, self.face_value, self.hand_size)
        deals = deal_totals(self.deck, self.face_value, self.hand_size)
        object.__setattr__(self, "play_counts", counts)
        object.__setattr__(self, "deal_totals", deals)
        object.__setattr__(self, "max_count", max(counts))
        object.__setattr__(self, "min_deal_total", min(deals))

    @property
    def hand_words(self) -> str:
        """``"five cards"``: the size of a hand, for messages."""
        return card_word(self.hand_size)

    @property
    def has_five_face_cards(self) -> bool:
        return any(w.five_face_cards for w in self.deal_wins)

    def options(self) -> dict[str, Any]:
        """Every option with its value, as JSON (no preset)."""
        out: dict[str, Any] = {}
        for name in OPTIONS:
            value = getattr(self, name)
            out[name] = [w.to_json() for w in value] if name == "deal_wins" else value
        return out

    def overrides(self) -> dict[str, Any]:
        """The options that differ from the preset's own values."""
        base = find_preset(self.preset).rules.options()
        return {k: v for k, v in self.options().items() if base[k] != v}

    def to_json(self) -> dict[str, Any]:
        """The shortest spec that :func:`resolve_rules` turns back into these rules."""
        return {"preset": self.preset, **self.overrides()}


# -- option validation ---------------------------------------------------------------------

def _whole(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{name} must be a whole number from {low} to {high}, not {value!r}",
                         f"rules.{name}")
    if not low <= value <= high:
        raise RulesError(f"{name} must be from {low} to {high}, not {value}", f"rules.{name}")
    return value


def _multiple(low: int = 1) -> Callable[[str, Any], int]:
    return lambda name, value: _whole(name, value, low, MAX_MULTIPLE)


def _optional_multiple(name: str, value: Any) -> int | None:
    return None if value is None else _whole(name, value, 1, MAX_MULTIPLE)


def _choice(choices: Mapping[str, str]) -> Callable[[str, Any], str]:
    def check(name: str, value: Any) -> str:
        if not isinstance(value, str) or value not in choices:
            raise RulesError(f"{name} must be one of {', '.join(choices)}, not {value!r}",
                             f"rules.{name}")
        return value
    return check


def _deal_wins(name: str, value: Any) -> tuple[DealWin, ...]:
    if not isinstance(value, list | tuple):
        raise RulesError("deal_wins must be a list of instant-win rules", "rules.deal_wins")
    if len(value) > MAX_DEAL_WINS:
        raise RulesError(f"deal_wins has at most {MAX_DEAL_WINS} rules", "rules.deal_wins")
    return tuple(_deal_win(i, item) for i, item in enumerate(value))


def _deal_win(i: int, item: Any) -> DealWin:
    where = f"rules.deal_wins[{i}]"
    if isinstance(item, DealWin):
        return item
    if not isinstance(item, Mapping):
        raise RulesError(
            'each deal win is an object like {"totals": [49, 50], "pays": 2}', where)
    unknown = set(item) - {"totals", "at_most", "five_face_cards", "pays"}
    if unknown:
        raise RulesError(f"a deal win has no option {sorted(unknown)[0]!r}", where)
    kinds = [k for k in ("totals", "at_most", "five_face_cards") if k in item]
    if len(kinds) != 1:
        raise RulesError("a deal win names exactly one of totals, at_most or five_face_cards",
                         where)
    pays = _whole(f"deal_wins[{i}].pays", item.get("pays"), 1, MAX_MULTIPLE)
    if kinds[0] == "totals":
        totals = item["totals"]
        if (not isinstance(totals, list | tuple) or not totals
                or any(isinstance(t, bool) or not isinstance(t, int) or not 0 <= t <= 200
                       for t in totals)):
            raise RulesError("totals must be a non-empty list of whole numbers", where)
        if len(set(totals)) != len(totals):
            raise RulesError("totals lists a number twice", where)
        return DealWin(pays=pays, totals=tuple(totals))
    if kinds[0] == "at_most":
        return DealWin(pays=pays, at_most=_whole(f"deal_wins[{i}].at_most", item["at_most"],
                                                 0, 200))
    if item["five_face_cards"] is not True:
        raise RulesError("five_face_cards must be true", where)
    return DealWin(pays=pays, five_face_cards=True)


OptionCheck = Callable[[str, Any], Any]

#: Every rule option: how its value is checked, and what it means in one line.
OPTIONS: dict[str, tuple[OptionCheck, str]] = {
    "scoring": (_choice(SCORINGS), "Money, whole points, or push-ups (lowest total wins)."),
    "deck": (_choice(DECKS), "Standard 52 cards, with two jokers that count 0, or forty cards "
             "without 8s, 9s and 10s."),
    "face_value": (_choice(FACE_VALUES), "J, Q, K count 10, or 11, 12 and 13."),
    "hand_size": (lambda n, v: _whole(n, v, 1, 13), "How many cards each player is dealt."),
    "deal_wins": (_deal_wins, "Initial totals that win at once on the deal, best first, "
                  "and what each pays."),
    "deal_conflict": (_choice(DEAL_CONFLICTS), "What happens when several players win on the "
                      "deal: a draw, only the best is paid, or all are paid."),
    "deal_tie": (_choice(DEAL_TIES), "When the best instant wins are equal: a draw, or the one "
                 "nearest the dealer's left wins."),
    "tonk_out_pays": (_multiple(), "What each player pays for a tonk out (going out without "
                      "a final discard)."),
    "tonk_out_by_hits_pays": (_optional_multiple, "What a tonk out by hitting spreads pays, "
                              "if less than one by spreading (empty: the same)."),
    "first_turn_spread_pays": (_optional_multiple, "What going out with two spreads on the "
                               "first turn pays (empty: no special payment)."),
    "double_double_pays": (_optional_multiple, "What a double-double pays (empty: not "
                           "played)."),
    "run_out_pays": (_multiple(), "What each player pays when someone discards their last "
                     "card."),
    "drop_win_pays": (_multiple(), "What each player pays a dropper who has the lowest "
                      "count."),
    "catch": (_choice(CATCHES), "Who pays whom when a dropper is caught."),
    "catch_factor": (_multiple(), "Under the catchers scheme: what the caught dropper pays "
                     "each catcher."),
    "stock_out_pays": (_multiple(low=0), "What each player pays the lowest count when the "
                       "stock runs out (0: the hand is dead)."),
    "stock_out_tie": (_choice(STOCK_OUT_TIES), "When the stock runs out and the lowest counts "
                      "tie: all paid, or a draw."),
}


def _with_options(base: Rules, options: Mapping[str, Any]) -> Rules:
    values: dict[str, Any] = {}
    for name, value in options.items():
        if name not in OPTIONS:
            raise UnknownOptionError(
                f"there is no rule option called {name!r}", f"rules.{name}")
        values[name] = OPTIONS[name][0](name, value)
    rules = replace(base, **values)
    for win in rules.deal_wins:
        if win.totals and not any(t in rules.deal_totals for t in win.totals):
            raise RulesError(
                f"no {rules.hand_words} of this deck add up to {win.describe()}",
                "rules.deal_wins")
    return rules


# -- presets -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Preset:
    """A named house-rule set from the source texts."""

    name: str
    title: str
    source: str
    summary: str
    changes: Mapping[str, Any]
    rules: Rules = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        base = Rules(preset=self.name)
        object.__setattr__(self, "rules", _with_options(base, self.changes))


_W = "wikipedia"
_WIKIPEDIA: dict[str, Any] = {"deck": "jokers", "deal_wins": [], "catch": "wikipedia",
                              "double_double_pays": 4, "stock_out_tie": "draw"}

#: The presets of RULES.md §7, by name.
PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("pagat", "Standard (pagat.com)", "pagat.com, main rules",
           "49 or 50 on the deal and a tonk out pay double; a caught dropper pays double "
           "to everyone at or below their count.", {}),
    Preset(_W, "Encyclopedia", "the encyclopedia article",
           "Two jokers; no instant wins; a caught dropper pays everyone lower; "
           "double-double pays four; a tied stock-out is a draw.", _WIKIPEDIA),
    Preset("texas", "Texas Tonk", "the encyclopedia article, Texas Tonk",
           "50 on the deal pays double and beats 49, which pays single; a caught dropper "
           "pays the lowest double.",
           {**_WIKIPEDIA, "double_double_pays": None, "catch": "alt1",
            "deal_wins": [{"totals": [50], "pays": 2}, {"totals": [49], "pays": 1}],
            "deal_conflict": "best"}),
    Preset("rushville", "Rushville, Indiana", "pagat.com, Rushville",
           "Five face cards win on the deal; a rum pays double; a bumped head pays double "
           "rum to each bumper; a tied stock-out is dead.",
           {"deal_wins": [{"five_face_cards": True, "pays": 2}], "run_out_pays": 2,
            "catch": "catchers", "catch_factor": 4, "stock_out_tie": "draw"}),
    Preset("chicago", "Chicago", "pagat.com, Chicago",
           "Jokers; Big 50 and 13 or fewer pay double, 49 single; a tonk out pays single "
           "unless off the deal; a caught dropper pays each catcher double.",
           {"deck": "jokers",
            "deal_wins": [{"totals": [50], "pays": 2}, {"at_most": 13, "pays": 2},
                          {"totals": [49], "pays": 1}],
            "deal_conflict": "best", "tonk_out_pays": 1, "first_turn_spread_pays": 2,
            "catch": "catchers", "catch_factor": 2}),
    Preset("washington", "Washington State", "pagat.com, Washington State",
           "Points; 49, 50 or 14 or fewer on the deal pay double, all of them; a caught "
           "dropper loses two points per player to the lowest.",
           {"scoring": "points",
            "deal_wins": [{"totals": [49, 50], "pays": 2}, {"at_most": 14, "pays": 2}],
            "deal_conflict": "all_paid", "catch": "washington"}),
    Preset("dc", "Washington DC", "pagat.com, Washington DC",
           "11 or fewer, 50 or 49 on the deal pay double; 11 or fewer beats 50 beats 49.",
           {"deal_wins": [{"at_most": 11, "pays": 2}, {"totals": [50], "pays": 2},
                          {"totals": [49], "pays": 2}],
            "deal_conflict": "best"}),
    Preset("newark", "Newark", "pagat.com, Newark",
           "50, 49 or 13 or fewer on the deal pay double, ties to the dealer's left; two "
           "spreads on the first turn pay four.",
           {"deal_wins": [{"totals": [50], "pays": 2}, {"totals": [49], "pays": 2},
                          {"at_most": 13, "pays": 2}],
            "deal_conflict": "best", "deal_tie": "nearest_left", "first_turn_spread_pays": 4}),
    Preset("baton_rouge", "Baton Rouge", "pagat.com, Baton Rouge",
           "Forty cards without 8s, 9s and 10s; 47 or 50 on the deal pays double.",
           {"deck": "forty", "deal_wins": [{"totals": [47, 50], "pays": 2}]}),
    Preset("seattle", "Seattle", "pagat.com, Seattle",
           "Seven cards each.", {"hand_size": 7}),
    Preset("push_ups", "Push-ups", "pagat.com, push-ups",
           "Losers are pushed up by the points in their hands; lowest total is best.",
           {"scoring": "push_ups"}),
)}


def find_preset(name: str) -> Preset:
    """The preset called ``name``; :class:`UnknownPresetError` if there is none."""
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise UnknownPresetError(
            f"there are no house rules called {name!r}; choose one of {', '.join(PRESETS)}",
            "rules.preset") from None


_CACHE: dict[str, Rules] = {}


def resolve_rules(spec: Any = None) -> Rules:
    """A preset name, or ``{"preset": name, option: value, …}``, or None → its :class:`Rules`.

    Raises :class:`UnknownPresetError`, :class:`UnknownOptionError` or :class:`RulesError`.
    """
    if spec is None:
        return PRESETS["pagat"].rules
    if isinstance(spec, Rules):
        return spec
    if isinstance(spec, str):
        return find_preset(spec).rules
    if not isinstance(spec, Mapping):
        raise RulesError('rules must be a preset name like "pagat" or an object of options',
                         "rules")
    options = dict(spec)
    preset_name = options.pop("preset", "pagat")
    if not isinstance(preset_name, str):
        raise UnknownPresetError("rules.preset must be the name of a preset", "rules.preset")
    preset = find_preset(preset_name)
    if not options:
        return preset.rules
    key = repr(sorted(options.items(), key=lambda kv: str(kv[0])))
    cached = _CACHE.get(key + "|" + preset_name)
    if cached is None:
        cached = _with_options(preset.rules, options)
        if len(_CACHE) < 1024:
            _CACHE[key + "|" + preset_name] = cached
    return cached


RULE_FIELDS = tuple(f.name for f in fields(Rules) if f.init)
