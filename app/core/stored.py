"""A night's events from what is stored of it (a session's rows, an import's document): the
events :func:`app.core.night.fold` folds into the night they tell, for ``tonk check`` and
the import's checker to hold against what is kept or given.

Pure (no Flask, no SQLAlchemy).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .hand import TABLE_FIELDS
from .sidebets import sent_plays


def events_of(table: Mapping[str, Any], hands: Sequence[tuple[Mapping[str, Any], bool]],
              seated: Sequence[str], seats: Sequence[str] = (),
              moves: Sequence[tuple[int, Mapping[str, Any]]] = ()) -> list[dict[str, Any]]:
    """A night's events from what is stored of it (a session's rows, an import's document):
    its ``table`` (``currency``, ``side_bets``; and ``rules``, ``stake`` and the ``players``
    seated, for a night with no hands), each hand's stored facts in order (docs/rules.md §1,
    with its own rules, stake and players) with whether it is void, who sits at the end
    (table order), and the seat events stored (``moves``: each ``joined``, just ``after`` a
    player, or ``left``, in order, with the number of hands recorded before it). Each hand is
    recorded (a void one, then voided) under the rules and players of its time: the change
    of rules or stake, the seat events stored before it (since the first hand), and the
    joins and leaves that seat its players where none are stored (a night kept before its
    seat events were) come just before it. Who sat (``seats``) and is gone with neither a
    hand nor a seat event told joins and leaves at the end."""
    # (the seat events before the first hand are told by it: its players and dealer; with
    # no hand, all of them by the table as it sits now, with its dealer)
    moves = [(number, event) for number, event in moves if number] if hands else []
    first = hands[0][0] if hands else table
    rules, stake, players = first["rules"], first["stake"], list(first["players"])
    events: list[dict[str, Any]] = [{
        "kind": "started", "rules": rules, "stake": stake, "currency": table.get("currency"),
        "players": players, "dealer": first.get("dealer"),
        "side_bets": table.get("side_bets") or None}]
    now: Sequence[str] = players
    told = 0  # the stored seat events told so far
    for number, (data, voided) in enumerate(hands, start=1):
        if (data["rules"], data["stake"]) != (rules, stake):
            rules, stake = data["rules"], data["stake"]
            events.append({"kind": "rules", "rules": rules, "stake": stake})
        since = told
        while told < len(moves) and moves[told][0] < number:
            told += 1
        now = _moved(now, moves[since:told], events)
        events += _seating(now, data["players"])
        now = data["players"]
        events.append({"kind": "hand", "hand": own_facts(data, table.get("side_bets"))})
        if voided:
            events.append({"kind": "voided", "number": number})
    now = _moved(now, moves[told:], events)
    events += _seating(now, seated)
    sat = {p for data, _voided in hands for p in data["players"]}.union(
        seated, (event["player"] for _number, event in moves))
    for name in seats:
        if name not in sat:
            events += [{"kind": "joined", "player": name}, {"kind": "left", "player": name}]
    return events


def own_facts(stored: Mapping[str, Any], side_bets: Mapping[str, Any] | None = None
              ) -> dict[str, Any]:
    """A stored hand's own facts, as a client sends it (and a night's hand event holds it):
    without what it holds of its table (:data:`TABLE_FIELDS`), nor the suit of a side bet
    whose suit the table fixes (``side_bets``: the table's, as stored;
    :func:`~app.core.sidebets.sent_plays`)."""
    facts = {k: v for k, v in stored.items() if k not in TABLE_FIELDS}
    if side_bets and facts.get("side_bets"):
        facts["side_bets"] = sent_plays(facts["side_bets"], side_bets)
    return facts


def _moved(seated: Sequence[str], moves: Sequence[tuple[int, Mapping[str, Any]]],
           events: list[dict[str, Any]]) -> list[str]:
    """Who sits after the stored seat events ``moves`` (each added to ``events``) where
    ``seated`` sat: a joiner just after the one they sit after, a leaver gone."""
    now = list(seated)
    for _number, event in moves:
        events.append(dict(event))
        if event["kind"] == "left":
            now = [name for name in now if name != event["player"]]
        else:
            at = now.index(event["after"]) + 1 if event.get("after") in now else len(now)
            now.insert(at, event["player"])
    return now


def _seating(seated: Sequence[str], want: Sequence[str]) -> list[dict[str, Any]]:
    """The leaves and joins that seat ``want`` (in its table order) where ``seated`` sit now:
    who sits in both but out of ``want``'s order (round the table) leaves first and sits down
    again; each newcomer sits just after the one before them in ``want`` already seated; then
    who is not in ``want`` leaves."""
    if list(seated) == list(want):  # (most hands: the table as it was)
        return []
    both = [name for name in want if name in seated]
    at = {name: (seated.index(name) - seated.index(both[0])) % len(seated) for name in both
          } if both else {}
    kept: list[str] = []
    for name in both:  # in order round the table from the first: they stay where they are
        if not kept or at[name] > at[kept[-1]]:
            kept.append(name)
    events: list[dict[str, Any]] = [{"kind": "left", "player": name}
                                    for name in both if name not in kept]
    now = [name for name in seated if name in kept or name not in want]
    for i, name in enumerate(want):
        if name in now:
            continue
        before = next((want[i - k] for k in range(1, len(want)) if want[i - k] in now), None)
        events.append({"kind": "joined", "player": name, "after": before})
        now.insert(now.index(before) + 1 if before is not None else len(now), name)
    events += [{"kind": "left", "player": name} for name in now if name not in want]
    return events
