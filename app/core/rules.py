"""House rules: every option a table can choose, and the named presets of docs/rules.md §7.

A :class:`Rules` value is one complete, validated rule set. Tables name a preset and may
override any option (``{"preset": "pagat", "catch": "alt3"}``); :func:`resolve_rules` turns
that into a :class:`Rules`. Presets live in the :data:`PRESETS` registry and are looked up
with :func:`find_preset`; an unknown name is an :class:`UnknownPresetError`.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from copy import deepcopy
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .cards import DECKS, FACE_VALUES, JOKERS, MAX_JOKERS, card_word, deal_totals, play_counts
from .catalogue import CATALOGUE
from .catches import CATCH_SCHEMES
from .errors import RulesError, UnknownOptionError, UnknownPresetError
from .messages import Message, Named, as_sent, join_or
from .messages import multiple_word as multiple_word  # where the pages find it


def _choices(prefix: str, *names: str) -> dict[str, Message]:
    """Each choice of an option with what it means, from the catalogue."""
    return {name: Message(f"{prefix}.{name}") for name in names}


class _CatchChoices(Mapping[str, Message]):
    """Each catch scheme's name → what it means: a view of the registry
    (:data:`~app.core.catches.CATCH_SCHEMES`), so that a scheme registered is a choice of
    the option, on every form and in the OpenAPI document, with nothing else to add."""

    def __getitem__(self, name: str) -> Message:
        return CATCH_SCHEMES[name].summary

    def __iter__(self) -> Iterator[str]:
        return iter(CATCH_SCHEMES)

    def __len__(self) -> int:
        return len(CATCH_SCHEMES)


SCORINGS = _choices("scoring", "money", "points", "push_ups")
#: The catch schemes of docs/rules.md §5.
CATCHES: Mapping[str, Message] = _CatchChoices()
DEAL_CONFLICTS = _choices("deal_conflict", "draw", "best", "all_paid")
DEAL_TIES = _choices("deal_tie", "draw", "nearest_left")
STOCK_OUT_TIES = _choices("stock_out_tie", "all_paid", "draw")
MAX_MULTIPLE = 100
MAX_DEAL_WINS = 10
#: Initial totals that are no instant win when J, Q and K count their rank (docs/rules.md §3).
RANK_REMOVED_TOTALS = frozenset({49, 50})


@dataclass(frozen=True, slots=True)
class DealWin:
    """One instant-win rule on the deal: which initial totals (or five face cards) claim it,
    and what each other player pays."""

    pays: int
    totals: tuple[int, ...] = ()
    at_most: int | None = None
    five_face_cards: bool = False
    tie: str | None = None  # decides equal best claims of this rule instead of deal_tie

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

    def describe(self) -> Message:
        """"49 or 50", "13 or fewer", "five face cards"."""
        if self.five_face_cards:
            return Message("deal_win.five_face_cards")
        if self.at_most is not None:
            return Message("deal_win.at_most", n=self.at_most)
        return join_or(self.totals)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any]
        if self.five_face_cards:
            out = {"five_face_cards": True, "pays": self.pays}
        elif self.at_most is not None:
            out = {"at_most": self.at_most, "pays": self.pays}
        else:
            out = {"totals": list(self.totals), "pays": self.pays}
        if self.tie is not None:
            out["tie"] = self.tie
        return out


# -- option validation ---------------------------------------------------------------------

def _named(name: str) -> object:
    """An option by its label as the forms show it, quoted; a path (``deal_wins[0].pays``) as is."""
    return Message("rules.option_named", label=OPTIONS[name].label) if name in OPTIONS else name


def _whole(name: str, value: Any, low: int, high: int) -> int:
    said = {"name": _named(name), "low": low, "high": high}
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(Message("rules.not_whole", **said, value=as_sent(value)), f"rules.{name}")
    if not low <= value <= high:
        raise RulesError(Message("rules.out_of_range", **said, value=value), f"rules.{name}")
    return value


def _multiple(low: int = 1) -> Callable[[str, Any], int]:
    return lambda name, value: _whole(name, value, low, MAX_MULTIPLE)


def _optional_multiple(name: str, value: Any) -> int | None:
    return None if value is None else _whole(name, value, 1, MAX_MULTIPLE)


def _choice(choices: Mapping[str, object]) -> Callable[[str, Any], str]:
    def check(name: str, value: Any) -> str:
        if not isinstance(value, str) or value not in choices:
            raise RulesError(Message("rules.not_a_choice", name=_named(name),
                                     choices=", ".join(choices), value=as_sent(value)),
                             f"rules.{name}")
        return value
    return check


def _deal_wins(name: str, value: Any) -> tuple[DealWin, ...]:
    if not isinstance(value, list | tuple):
        raise RulesError(Message("rules.deal_wins_not_list"), "rules.deal_wins")
    if len(value) > MAX_DEAL_WINS:
        raise RulesError(Message("rules.deal_wins_too_many", n=MAX_DEAL_WINS),
                         "rules.deal_wins")
    return tuple(_deal_win(i, item) for i, item in enumerate(value))


def _deal_win(i: int, item: Any) -> DealWin:
    where = f"rules.deal_wins[{i}]"
    if isinstance(item, DealWin):
        return item
    if not isinstance(item, Mapping):
        raise RulesError(Message("rules.deal_win_not_object"), where)
    unknown = set(item) - {"totals", "at_most", "five_face_cards", "pays", "tie"}
    if unknown:
        raise RulesError(Message("rules.deal_win_unknown", option=as_sent(sorted(unknown)[0])),
                         where)
    kinds = [k for k in ("totals", "at_most", "five_face_cards") if k in item]
    if len(kinds) != 1:
        raise RulesError(Message("rules.deal_win_kind"), where)
    pays = _whole(f"deal_wins[{i}].pays", item.get("pays"), 1, MAX_MULTIPLE)
    tie = item.get("tie")
    if tie is not None:
        tie = _choice(DEAL_TIES)(f"deal_wins[{i}].tie", tie)
    if kinds[0] == "totals":
        totals = item["totals"]
        if (not isinstance(totals, list | tuple) or not totals
                or any(isinstance(t, bool) or not isinstance(t, int) or not 0 <= t <= 200
                       for t in totals)):
            raise RulesError(Message("rules.totals_not_list"), where)
        if len(set(totals)) != len(totals):
            raise RulesError(Message("rules.totals_twice"), where)
        return DealWin(pays=pays, totals=tuple(totals), tie=tie)
    if kinds[0] == "at_most":
        return DealWin(pays=pays, at_most=_whole(f"deal_wins[{i}].at_most", item["at_most"],
                                                 0, 200), tie=tie)
    if item["five_face_cards"] is not True:
        raise RulesError(Message("rules.five_face_not_true"), where)
    return DealWin(pays=pays, five_face_cards=True, tie=tie)


OptionCheck = Callable[[str, Any], Any]


@dataclass(frozen=True, slots=True)
class Option:
    """A rule option, declared once, where :class:`Rules` gives it a field (:func:`_option`):
    how its value is checked (``check(name, value)`` → the value, or a :class:`RulesError`);
    for an option chosen from a list, the ``choices`` with what each means (the forms' choices
    and the OpenAPI enum); its ``default``; its label on the forms and cards and what it means
    in one line (``words``: English, joining the catalogue as ``option.<name>.label`` and
    ``option.<name>``, extracted for translation as the catalogue is); and its lines in the
    docs' tables of options (``scripts/rule_tables.py``): the ``values`` it takes and the
    ``source`` texts that have it (docs/rules.md §3), what it ``accepts`` in short where it
    is no list of choices and what it ``changes`` (docs/house-rules.md)."""

    name: str
    check: OptionCheck
    choices: Mapping[str, Message] | None
    default: Any
    words: Mapping[str, str]
    values: str
    source: str
    accepts: str | None
    changes: str

    label = Named("option.{0.name}.label")
    meaning = Named("option.{0.name}")


def _option(default: Any, how: OptionCheck | Mapping[str, Message], *,
            words: Mapping[str, str], values: str, source: str, changes: str,
            accepts: str | None = None) -> Any:
    """A field of :class:`Rules` that is a rule option: its ``default``, and its
    :class:`Option` (named by the field) made of ``how`` its value is checked (or the choices
    it is one of) and the rest."""
    choices = how if isinstance(how, Mapping) else None
    check = _choice(how) if isinstance(how, Mapping) else how
    return field(default=default, metadata={"option": Option(
        "", check, choices, default, words, values, source, accepts, changes)})


@dataclass(frozen=True)
class Rules:
    """A complete house-rule set. Build one with :func:`resolve_rules`."""

    preset: str = "pagat"
    scoring: str = _option(
        "money", SCORINGS,
        words={"option.scoring.label": "Scoring",
               "option.scoring": "Money, whole points, or push-ups (lowest total wins)."},
        values="`money`, `points` (whole-point stakes, same payments), `push_ups` (section 6)",
        source="001: Washington State, push-ups",
        changes="money at the stake; whole points; or push-ups: nobody pays, each loser is "
                "pushed up by their count × the win's multiple, lowest total best")
    deck: str = _option(
        "standard", DECKS,
        words={"option.deck.label": "Deck",
               "option.deck": "Standard 52 cards, with jokers that count 0, or forty cards "
                              "without 8s, 9s and 10s."},
        values="`standard` (52), `jokers` (52 + 2 jokers worth 0), `forty` (no 8, 9, 10)",
        source="000; 001: jokers, Baton Rouge",
        changes="52 cards; 52 and jokers worth 0; 40 cards without 8, 9, 10")
    #: how many the jokers deck holds; no other deck has any
    jokers: int = _option(
        JOKERS, lambda n, v: _whole(n, v, JOKERS, MAX_JOKERS),
        words={"option.jokers.label": "Jokers in the deck",
               "option.jokers": "How many jokers the deck with jokers holds: two, or more "
                                "where a table adds them (they count 0, so more of them "
                                "change the totals a hand can make)."},
        values=f"jokers in the `jokers` deck, {JOKERS} to {MAX_JOKERS}; another deck takes "
               f"only {JOKERS}",
        source='001: jokers ("two or more")', accepts=f"{JOKERS} to {MAX_JOKERS}",
        changes='how many jokers the `jokers` deck holds (pagat: "two or more"); another '
                'deck takes only the default')
    face_value: str = _option(
        "ten", FACE_VALUES,
        words={"option.face_value.label": "Face cards count",
               "option.face_value": "J, Q, K count 10, or 11, 12 and 13 (then 49 and 50 win "
                                    "nothing on the deal)."},
        values="`ten` (J Q K = 10), `rank` (J 11, Q 12, K 13). With `rank`, 49 and 50 are no "
               'instant wins: pagat, "the automatic win with 49 or 50 would become too '
               'frequent and is not allowed"; they are taken out of every `totals` entry (an '
               "entry left empty goes), and the rules' summary says so",
        source="001",
        changes="J, Q, K count 10; or 11, 12, 13 (then 49 and 50 win nothing on the deal)")
    hand_size: int = _option(
        5, lambda n, v: _whole(n, v, 1, 13),
        words={"option.hand_size.label": "Cards dealt",
               "option.hand_size": "How many cards each player is dealt."},
        values="cards dealt, 1 to 13", source="001: Seattle (7)", accepts="1 to 13",
        changes="cards dealt to each player")
    deal_wins: tuple[DealWin, ...] = _option(
        (DealWin(pays=2, totals=(49, 50)),), _deal_wins,
        words={"option.deal_wins.label": "Instant wins on the deal",
               "option.deal_wins": "Initial totals that win at once on the deal, best first, "
                                   "what each pays and, if it has its own, how equal claims "
                                   "are decided."},
        values='list of instant-win rules, best first: `{"totals": [49, 50], "pays": 2}`, '
               '`{"at_most": 13, "pays": 2}`, `{"five_face_cards": true, "pays": 2}`',
        source="000, 001", accepts="list, best first",
        changes="initial totals that win at once: `totals`, `at_most` a number, or "
                "`five_face_cards`, each with what it pays")
    deal_conflict: str = _option(
        "draw", DEAL_CONFLICTS,
        words={"option.deal_conflict.label": "Several instant wins",
               "option.deal_conflict": "What happens when several players win on the deal: "
                                       "a draw, only the best is paid, or all are paid."},
        values="what happens when several players claim: `draw` (no payments), `best` (only "
               "the best claim is paid), `all_paid`",
        source="001", changes="several instant wins: a draw, only the best paid, or all paid")
    deal_tie: str = _option(
        "draw", DEAL_TIES,
        words={"option.deal_tie.label": "Equal instant wins",
               "option.deal_tie": "When the best instant wins are equal: a draw, or the one "
                                  "nearest the dealer's left wins."},
        values="when `best` leaves equal claims: `draw`, `nearest_left`", source="001: Newark",
        changes="equal best instant wins: a draw, or the one nearest the dealer's left")
    tonk_out_pays: int = _option(
        2, _multiple(),
        words={"option.tonk_out_pays.label": "Tonk out pays",
               "option.tonk_out_pays": "What each player pays for a tonk out (going out "
                                       "without a final discard)."},
        values=f"multiple (every multiple: a whole number from 1 to {MAX_MULTIPLE})",
        source="001", accepts="multiple", changes="a tonk out")
    tonk_out_by_hits_pays: int | None = _option(
        None, _optional_multiple,
        words={"option.tonk_out_by_hits_pays.label": "Tonk out with a hit pays",
               "option.tonk_out_by_hits_pays": "What a tonk out pays when any of the last "
                                               "cards was hit onto a spread already on the "
                                               "table rather than put down in a new spread "
                                               "of the player's own (empty: the same as any "
                                               "tonk out)."},
        values="multiple, or null",
        source='001: "single stake for running out by hitting"; 000: six-card spread',
        accepts="multiple or null",
        changes="a tonk out with a hit: any of the last cards went onto a spread already on "
                "the table")
    first_turn_spread_pays: int | None = _option(
        None, _optional_multiple,
        words={"option.first_turn_spread_pays.label": "First-turn spreads pay",
               "option.first_turn_spread_pays": "What going out with two spreads on the "
                                                "first turn pays (empty: no special "
                                                "payment)."},
        values="multiple, or null", source="001: Newark (4), Chicago (2)",
        accepts="multiple or null", changes="going out with spreads on the first turn")
    double_double_pays: int | None = _option(
        None, _optional_multiple,
        words={"option.double_double_pays.label": "Double-double pays",
               "option.double_double_pays": "What a double-double pays (empty: not played)."},
        values="multiple, or null (not played)", source="000", accepts="multiple or null",
        changes="a double-double (null: not played)")
    run_out_pays: int = _option(
        1, _multiple(),
        words={"option.run_out_pays.label": "Run out pays",
               "option.run_out_pays": "What each player pays when someone discards their "
                                      "last card."},
        values="multiple", source='001; Rushville (a "rum" pays 2)', accepts="multiple",
        changes="a run out")
    drop_win_pays: int = _option(
        1, _multiple(),
        words={"option.drop_win_pays.label": "A won drop pays",
               "option.drop_win_pays": "What each player pays a dropper who has the lowest "
                                       "count."},
        values="multiple", source="001", accepts="multiple", changes="a won drop")
    catch: str = _option(
        "standard", CATCHES,
        words={"option.catch.label": "Caught drop",
               "option.catch": "Who pays whom when a dropper is caught."},
        values="a scheme of section 5", source="000, 001",
        accepts="a scheme of the table below", changes="who pays whom when a dropper is caught")
    catch_factor: int = _option(
        2, _multiple(),
        words={"option.catch_factor.label": "Catch factor",
               "option.catch_factor": "Under the catchers scheme: what the caught dropper pays "
                                      "each catcher."},
        values="multiple paid to each catcher under `catch: catchers`",
        source="001: Chicago (2), Rushville (4 = double rum)", accepts="multiple",
        changes="what the caught dropper pays each catcher under `catchers`")
    stock_out_pays: int = _option(
        1, _multiple(low=0),
        words={"option.stock_out_pays.label": "Stock out pays",
               "option.stock_out_pays": "What each player pays the lowest count when the "
                                        "stock runs out (0: the hand is dead)."},
        values="multiple, or 0 (dead hand)", source="001", accepts="multiple or 0",
        changes="a stock-out; 0 makes it a dead hand")
    stock_out_tie: str = _option(
        "all_paid", STOCK_OUT_TIES,
        words={"option.stock_out_tie.label": "Tied stock out",
               "option.stock_out_tie": "When the stock runs out and the lowest counts tie: "
                                       "all paid, or a draw."},
        values="`all_paid`, `draw`", source="000 (draw)",
        changes="tied lowest counts when the stock runs out (under push-ups too: it decides "
                "who is pushed up)")
    # Derived once per rule set, so that settling a hand looks nothing up twice.
    play_counts: frozenset[int] = field(init=False, repr=False, compare=False)
    deal_totals: frozenset[int] = field(init=False, repr=False, compare=False)
    max_count: int = field(init=False, repr=False, compare=False)
    min_deal_total: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        counts = play_counts(self.deck, self.face_value, self.hand_size, self.jokers)
        deals = deal_totals(self.deck, self.face_value, self.hand_size, self.jokers)
        object.__setattr__(self, "play_counts", counts)
        object.__setattr__(self, "deal_totals", deals)
        object.__setattr__(self, "max_count", max(counts))
        object.__setattr__(self, "min_deal_total", min(deals))

    @property
    def hand_words(self) -> Message:
        """"five cards": the size of a hand, for messages."""
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
        """The shortest spec that :func:`resolve_rules` turns back into these rules (worked
        out once per rule set: every stored hand writes it; each caller gets its own copy)."""
        spec = self.__dict__.get("_spec")
        if spec is None:
            spec = {"preset": self.preset, **self.overrides()}
            object.__setattr__(self, "_spec", spec)
        return {k: deepcopy(v) if isinstance(v, list | dict) else v for k, v in spec.items()}


def _declared() -> dict[str, Option]:
    """Every option :class:`Rules` declares, named; their words join the catalogue."""
    options: dict[str, Option] = {}
    for declared in fields(Rules):
        if "option" not in declared.metadata:
            continue
        option = replace(declared.metadata["option"], name=declared.name)
        if set(option.words) != {f"option.{option.name}.label", f"option.{option.name}"}:
            raise ValueError(f"the option {option.name} must give its label and meaning")
        CATALOGUE.update(option.words)
        options[option.name] = option
    return options


#: Every rule option, by name, in the order the forms show them.
OPTIONS: dict[str, Option] = _declared()


def _with_options(base: Rules, options: Mapping[str, Any]) -> Rules:
    values: dict[str, Any] = {}
    for name, value in options.items():
        if name not in OPTIONS:
            raise UnknownOptionError(Message("rules.unknown_option", name=as_sent(name)),
                                     f"rules.{name}")
        values[name] = OPTIONS[name].check(name, value)
    rules = replace(base, **values)
    if rules.deck != "jokers" and rules.jokers != JOKERS:
        raise RulesError(Message("rules.jokers_without_deck", n=rules.jokers, usual=JOKERS),
                         "rules.jokers")
    if rules.face_value == "rank":
        rules = replace(rules, deal_wins=_without_49_50(rules.deal_wins))
    for win in rules.deal_wins:
        if win.totals and not any(t in rules.deal_totals for t in win.totals):
            raise RulesError(Message("rules.totals_impossible", cards=rules.hand_words,
                                     totals=win.describe()), "rules.deal_wins")
    return rules


def _without_49_50(wins: tuple[DealWin, ...]) -> tuple[DealWin, ...]:
    """With J, Q, K counting their rank, 49 and 50 win nothing on the deal (pagat: "would
    become too frequent and is not allowed"): out of every ``totals`` entry, and an entry
    left empty goes (docs/rules.md §3 ``face_value``)."""
    kept = []
    for win in wins:
        if win.totals:
            totals = tuple(t for t in win.totals if t not in RANK_REMOVED_TOTALS)
            if not totals:
                continue
            win = replace(win, totals=totals)
        kept.append(win)
    return tuple(kept)


# -- presets -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Preset:
    """A named house-rule set from the source texts; its title, source and summary are in
    the catalogue (``preset.<name>.title`` …). ``sources``: the paragraphs of its own text
    that its rules are cited by instead of the general ones (ids of
    :data:`app.core.sources.SOURCES`), by what they cite: ``deal`` (every instant win on
    the deal; ``deal.at_most`` and ``deal.49`` for those entries alone), ``tonk_out.single``
    (a tonk out paying a single stake), ``stock_out.draw`` (a tied stock out that is a
    draw), ``catch.<scheme>``."""

    name: str
    changes: Mapping[str, Any]
    sources: Mapping[str, str] = field(default_factory=dict)
    #: Its own sentence for a general one (a message id → its own, and the options that
    #: sentence speaks of): said while those options are as the preset sets them
    #: (:func:`app.core.explain.in_own_words`).
    words: Mapping[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    rules: Rules = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        base = Rules(preset=self.name)
        object.__setattr__(self, "rules", _with_options(base, self.changes))

    title = Named("preset.{0.name}.title")
    source = Named("preset.{0.name}.source")
    summary = Named("preset.{0.name}.summary")


_WIKIPEDIA: dict[str, Any] = {"deck": "jokers", "deal_wins": [], "catch": "wikipedia",
                              "double_double_pays": 4, "stock_out_tie": "draw"}

#: The presets of docs/rules.md §7, by name.
PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("pagat", {}),
    Preset("wikipedia", _WIKIPEDIA),
    Preset("texas", {**_WIKIPEDIA, "double_double_pays": None, "catch": "alt1",
                     "deal_wins": [{"totals": [50], "pays": 2}, {"totals": [49], "pays": 1}],
                     "deal_conflict": "best"},
           {"deal": "encyclopedia.texas", "catch.alt1": "encyclopedia.texas"}),
    Preset("rushville", {"deal_wins": [{"five_face_cards": True, "pays": 2}], "run_out_pays": 2,
                         "catch": "catchers", "catch_factor": 4, "stock_out_tie": "draw"},
           {"stock_out.draw": "pagat.rushville.7"},
           # a bumped head pays double rum: while its catch factor and rum pay are its own
           {"explain.catchers_paid": ("explain.bumped_head", ("catch_factor", "run_out_pays"))}),
    Preset("chicago", {"deck": "jokers",
                       "deal_wins": [{"totals": [50], "pays": 2}, {"at_most": 13, "pays": 2},
                                     {"totals": [49], "pays": 1}],
                       "deal_conflict": "best", "tonk_out_pays": 1, "first_turn_spread_pays": 2,
                       "catch": "catchers", "catch_factor": 2},
           {"deal": "pagat.chicago.2", "deal.at_most": "pagat.chicago.3",
            "deal.49": "pagat.chicago.4", "tonk_out.single": "pagat.chicago.7"}),
    Preset("washington", {"scoring": "points",
                          "deal_wins": [{"totals": [49, 50], "pays": 2},
                                        {"at_most": 14, "pays": 2}],
                          "deal_conflict": "all_paid", "catch": "washington"},
           {"deal": "pagat.washington.2"}),
    Preset("dc", {"deal_wins": [{"at_most": 11, "pays": 2}, {"totals": [50], "pays": 2},
                                {"totals": [49], "pays": 2}],
                  "deal_conflict": "best"},
           {"deal": "pagat.dc"}),
    Preset("newark", {"deal_wins": [{"totals": [50], "pays": 2}, {"totals": [49], "pays": 2},
                                    {"at_most": 13, "pays": 2}],
                      "deal_conflict": "best", "deal_tie": "nearest_left",
                      "first_turn_spread_pays": 4},
           {"deal": "pagat.newark"}),
    Preset("baton_rouge", {"deck": "forty", "deal_wins": [{"totals": [47, 50], "pays": 2}]},
           {"deal": "pagat.baton_rouge"}),
    Preset("seattle", {"hand_size": 7}),
    Preset("push_ups", {"scoring": "push_ups"}),
)}


def find_preset(name: str) -> Preset:
    """The preset called ``name``; :class:`UnknownPresetError` if there is none."""
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise UnknownPresetError(Message("rules.unknown_preset", name=as_sent(name),
                                         presets=", ".join(PRESETS)), "rules.preset") from None


#: Resolved rule tables by their options, the most recently used last (at most 1,024).
_CACHE: OrderedDict[str, Rules] = OrderedDict()


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
        raise RulesError(Message("rules.not_rules"), "rules")
    options = dict(spec)
    preset_name = options.pop("preset", "pagat")
    if not isinstance(preset_name, str):
        raise UnknownPresetError(Message("rules.preset_not_name"), "rules.preset")
    preset = find_preset(preset_name)
    if not options:
        return preset.rules
    key = repr(sorted(options.items(), key=lambda kv: str(kv[0]))) + "|" + preset_name
    cached = _CACHE.get(key)
    if cached is None:
        cached = _CACHE[key] = _with_options(preset.rules, options)
        if len(_CACHE) > 1024:  # bounded: the least recently used goes
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return cached

