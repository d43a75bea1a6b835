"""app.core.frozen.maker: the quick way to build a frozen dataclass gives what __init__ gives."""
from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest

from app.core import End, PlayedHand, resolve_rules
from app.core.frozen import maker


def test_a_made_hand_is_the_hand_its_init_makes_and_as_unchangeable():
    rules = resolve_rules("pagat")
    end = End("drop", "Ann")
    fields = (rules, Decimal("0.25"), 2, ("Ann", "Bob"), 1, end, (3, 9), (None, None))
    made, built = maker(PlayedHand)(*fields), PlayedHand(*fields)
    assert type(made) is PlayedHand
    assert made == built and hash(made) == hash(built) and repr(made) == repr(built)
    assert dataclasses.astuple(made) == dataclasses.astuple(built)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.stake = Decimal(1)  # type: ignore[misc]


def test_only_slotted_dataclasses_are_made():
    @dataclasses.dataclass(frozen=True)
    class Loose:
        a: int

    with pytest.raises(TypeError, match="slotted"):
        maker(Loose)
