"""The same hand under other house rules: settled under the table's own rules first, then
under every preset, with what differs from the table's ruling.

A hand that cannot be settled under some rules (a count their deck cannot make, a
double-double they do not play) gets that error in its row instead of a result; only when
it fails under every rule set, or the table's own rules cannot be read, is the error the
answer.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from .errors import TonkError
from .hand import parse_hand
from .messages import Message, join_and
from .money import takes_stake
from .rules import OPTIONS, PRESETS, Rules, resolve_rules
from .settle import Result, settle


@dataclass(frozen=True)
class Ruling:
    """The hand under one rule set: ``result`` or ``error``. ``own`` for the table's own
    rules; ``winners_differ`` and ``differs`` (the players whose net or push-up is not the
    same) compare it with the table's ruling; ``note`` a change the comparison had to make."""

    name: str
    title: Message
    own: bool
    spec: Any = None
    rules: Rules | None = None
    result: Result | None = None
    error: TonkError | None = None
    note: Message | None = None
    winners_differ: bool = False
    differs: frozenset[str] = field(default_factory=frozenset)

    def values(self) -> Mapping[str, Decimal]:
        """Each player's net, or push-up, as a number."""
        if self.result is None:
            return {}
        if self.result.pushed is not None:
            return {p: Decimal(v) for p, v in self.result.pushed.items()}
        return self.result.net or {}

    def to_json(self) -> dict[str, Any]:
        """One entry of ``POST /api/v1/compare`` (docs/api.md)."""
        rules = self.rules.to_json() if self.rules is not None else self.spec
        out: dict[str, Any] = {"rules": rules if self.own else self.name,
                               "title": str(self.title)}
        if self.own:
            out["own"] = True
        if self.result is not None:
            out["result"] = self.result.to_json()
            out["differs"] = {"winners": self.winners_differ,
                              "players": sorted(self.differs)}
        else:
            assert self.error is not None
            out["error"] = self.error.message
            if self.error.field:
                out["field"] = self.error.field
        if self.note is not None:
            out["note"] = str(self.note)
        return out


def compare(data: Mapping[str, Any]) -> list[Ruling]:
    """``data`` (a hand, docs/rules.md §1) under its own ``rules`` if it gives them, then under
    every other preset. Raises the first error when no rule set can settle it."""
    rulings: list[Ruling] = []
    if data.get("rules") is not None:
        rulings.append(_ruling(data, "own", data["rules"], own=True))
    own_rules = rulings[0].rules if rulings else None
    # A table that plays a preset as written sees it once, as its own.
    rulings += [_ruling(data, name, name, own=False) for name, preset in PRESETS.items()
                if preset.rules != own_rules]
    base = next((r for r in rulings if r.result is not None), None)
    if base is None:
        assert rulings[0].error is not None
        raise rulings[0].error
    return [_with_differences(r, base) for r in rulings]


def _ruling(data: Mapping[str, Any], name: str, spec: Any, *, own: bool) -> Ruling:
    # The table's own rules must be readable: if they are not, that is the answer (a
    # RulesError naming the option), not a row of the comparison.
    rules = resolve_rules(spec)
    title = PRESETS[rules.preset].title
    if own:  # (a table that changed its preset's rules is not playing the preset)
        changed = [OPTIONS[name].label for name in rules.overrides()]
        title = Message("compare.own_changed", title=title, changed=join_and(changed)
                        ) if changed else Message("compare.own", title=title)
    hand_data = dict(data)
    note = Message("compare.pushed") if rules.scoring == "push_ups" else None
    if takes_stake(rules) and _no_stake(data.get("stake")):
        # a push-ups hand (its stake written 0): under rules that pay, a stake of 1
        hand_data["stake"], note = 1, Message("compare.no_stake")
    elif rules.scoring == "points" and not _whole_stake(data.get("stake")):
        hand_data["stake"], note = 1, Message("compare.points_stake")
    try:
        result = settle(parse_hand({**hand_data, "rules": rules}))
    except TonkError as exc:
        return Ruling(name, title, own, spec, rules, error=exc)
    return Ruling(name, title, own, spec, rules, result=result, note=note)


def _no_stake(stake: Any) -> bool:
    """A stake of nothing, as a push-ups hand is written."""
    try:
        return stake is not None and not isinstance(stake, bool) and Decimal(str(stake)) == 0
    except ArithmeticError:
        return False  # not an amount: parse_hand says so


def _whole_stake(stake: Any) -> bool:
    try:
        return stake is None or Decimal(str(stake)) == Decimal(str(stake)).to_integral_value()
    except ArithmeticError:
        return True  # not an amount: parse_hand says so


def _with_differences(ruling: Ruling, base: Ruling) -> Ruling:
    if ruling.result is None or ruling is base:
        return ruling
    assert base.result is not None
    mine, theirs = ruling.values(), base.values()
    winners_differ = (ruling.result.outcome, ruling.result.winners) != (
        base.result.outcome, base.result.winners)
    return Ruling(ruling.name, ruling.title, ruling.own, ruling.spec, ruling.rules,
                  ruling.result, ruling.error, ruling.note, winners_differ,
                  frozenset(p for p in mine if mine[p] != theirs.get(p)))
