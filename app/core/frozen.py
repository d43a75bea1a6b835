"""Building frozen dataclasses quickly where it counts: a hand and its result, thousands a
second.

A frozen dataclass's own ``__init__`` sets every field through ``object.__setattr__`` (its
``__setattr__`` refuses), and that costs about 1,500 machine instructions a field: building a
:class:`~app.core.hand.PlayedHand` cost more than checking it. :func:`maker` gives a function that
builds the same instance a quicker way: a plain slotted twin of the class (the same slots, in
the same order) is built with ordinary attribute stores, then made an instance of the frozen
class by assigning ``__class__``, which Python allows between classes of one memory layout.
What comes out is an instance of the frozen class as its ``__init__`` would have made it:
equal, hashed, printed and just as unchangeable.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, make_dataclass
from typing import Any, TypeVar

T = TypeVar("T")


def maker(cls: type[T]) -> Callable[..., T]:
    """A function taking every field of the frozen, slotted dataclass ``cls`` in order
    (those with ``init=False`` too, positionally, no defaults) and returning the instance.
    Nothing is checked or converted: use it where ``cls(...)`` would be given the same."""
    names = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
    if getattr(cls, "__slots__", None) != names:
        raise TypeError(f"{cls.__name__} is not a slotted dataclass")
    twin: Any = make_dataclass(f"_{cls.__name__}Fields", names, slots=True, eq=False,
                               repr=False)

    def make(*values: Any) -> T:
        made = twin(*values)
        made.__class__ = cls
        return made  # type: ignore[no-any-return]

    make.__doc__ = f"A {cls.__name__} of these fields, in order."
    return make
