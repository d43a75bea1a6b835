"""A night from what is stored of it (app.core.night.events_of), with no app: the events
built from the first table, each hand's stored facts with whether it is void, and who sits at
the end fold to the night that was played event by event: the same money by part, pots,
side-bet money per hand, seats and next dealer (what tonk check and the import's checker
hold against what is kept)."""
from __future__ import annotations

from typing import Any

from app.core.night import Night, apply, fold, night_json, start
from app.core.stored import events_of


def dead(*side_bets: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "hand", "hand": {"end": {"kind": "dead"},
                                     **({"side_bets": list(side_bets)} if side_bets else {})}}


def out(who: str, *side_bets: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "hand", "hand": {"end": {"kind": "tonk_out", "player": who},
                                     **({"side_bets": list(side_bets)} if side_bets else {})}}


TABLE = {"rules": "pagat", "stake": "0.25", "currency": "EUR",
         "side_bets": {"naturals": {"stake": "0.10"}, "high_card": {"unclaimed": "return"}}}


def played(*events: dict[str, Any]) -> Night:
    night = start({"kind": "started", "players": ["Ann", "Bob", "Cy", "Dee"],
                   "dealer": "Dee", **TABLE})
    for event in events:
        night = apply(night, event)
    return night


def stored(night: Night) -> Night:
    """The night folded again from what a store keeps of it: each hand's facts (with its
    table) and whether it is void, and who sits now."""
    first = dict(TABLE, players=list(night.seated))
    return fold(events_of(first, [(deal.data, deal.voided) for deal in night.hands],
                          night.seated))


def same(night: Night, again: Night, seats: bool = True) -> None:
    kept, told = night_json(night), night_json(again)
    for key in ("money", "pots", "dealer", "open", *(("seated",) if seats else ())):
        assert told[key] == kept[key], key
    assert [(h["number"], h["voided"], h["side"], h["outcomes"]) for h in told["hands"]] == \
        [(h["number"], h["voided"], h["side"], h["outcomes"]) for h in kept["hands"]]


def test_a_night_whose_table_changed_folds_again_from_its_stored_hands():
    """Joins and leaves between hands, pots carried and waiting, a hand voided, a leaver's
    stake out of the pots, a rules change: the stored hands tell the same night."""
    night = played(
        dead({"bet": "naturals"}),
        {"kind": "joined", "player": "Fay"},
        out("Fay", {"bet": "naturals", "winner": None},
            {"bet": "high_card", "suit": "H", "winner": None}),
        {"kind": "left", "player": "Bob"},
        dead({"bet": "naturals", "winner": "Cy"}),
        {"kind": "rules", "rules": "pagat", "stake": "0.50"},
        dead({"bet": "naturals", "players": ["Ann", "Dee"]},
             {"bet": "high_card", "suit": "S", "players": ["Ann", "Fay"], "winner": "Fay"}),
        {"kind": "voided", "number": 2},
        {"kind": "joined", "player": "Bob", "after": "Cy"},
        {"kind": "left", "player": "Dee"})
    assert night.pots and any(d.side for d in night.hands)  # (the case is not empty)
    same(night, stored(night))


def test_the_dealer_who_leaves_passes_the_deal_on():
    """The next dealer leaves after the last hand: the deal passes to who sits next, not to
    the leaver (an import without ``next_dealer`` once dealt to them)."""
    night = played(out("Ann"), {"kind": "left", "player": "Ann"})
    again = stored(night)
    assert again.dealer == night.dealer == "Bob"
    same(night, again)


def test_a_night_with_no_hands_starts_at_its_table():
    events = events_of(dict(TABLE, players=["Ann", "Bob"]), [], ["Ann", "Bob"])
    assert [e["kind"] for e in events] == ["started"]
    night = fold(events)
    assert night.seated == ("Ann", "Bob") and night.dealer == "Ann" and not night.hands


def test_who_left_and_sat_down_again_elsewhere_is_seated_there():
    """Ann leaves and sits down again after Cy between two hands: the stored hands' players
    change order, and the night folded from them seats her there (the later hands settled
    at that table)."""
    night = played(
        dead({"bet": "naturals"}),
        {"kind": "left", "player": "Ann"},
        {"kind": "joined", "player": "Ann", "after": "Cy"},
        out("Dee", {"bet": "naturals", "winner": None}),
        out("Ann", {"bet": "naturals", "winner": "Bob"}))
    assert night.hands[1].players == ("Bob", "Cy", "Ann", "Dee")
    again = stored(night)
    same(night, again, seats=False)
    assert round_table(again.seated) == round_table(night.seated)
    for kept, told in zip(night.hands, again.hands, strict=True):
        assert round_table(told.players) == round_table(kept.players)


def round_table(names: tuple[str, ...]) -> tuple[str, ...]:
    """A table's order round it, from its first name alphabetically (a round table has no
    first seat: who of two neighbours moved is the same table)."""
    first = names.index(min(names))
    return names[first:] + names[:first]


def test_a_table_turned_round_is_the_same_table():
    """Players listed from another seat round the same table: nobody leaves."""
    events = events_of(dict(TABLE, players=["Ann", "Bob", "Cy"]),
                       [({"rules": "pagat", "stake": "0.25", "players": ["Ann", "Bob", "Cy"],
                          "dealer": "Ann", "end": {"kind": "dead"}}, False)],
                       ["Cy", "Ann", "Bob"])
    assert [e["kind"] for e in events] == ["started", "hand"]


def test_a_whole_new_table_sits_down():
    events = events_of(dict(TABLE, players=["Ann", "Bob"]),
                       [({"rules": "pagat", "stake": "0.25", "players": ["Ann", "Bob"],
                          "dealer": "Ann", "end": {"kind": "dead"}}, False)],
                       ["Cy", "Dee"])
    night = fold(events)
    assert night.seated == ("Cy", "Dee") and night.seats == ("Ann", "Bob", "Cy", "Dee")
