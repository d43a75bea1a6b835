"""Reading money exactly: decimal amounts from JSON-like input, and JSON text whose numbers
become ``Decimal`` (never a binary float)."""
from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from typing import Any

from .errors import TonkError
from .messages import Message


def parse_decimal(value: Any, error: type[TonkError], message: str | Message,
                  field: str) -> Decimal:
    """A decimal string, an int or a Decimal → a finite Decimal; anything else (a float, a
    bool, words, NaN) raises ``error(message, field)``."""
    if isinstance(value, bool) or not isinstance(value, str | int | Decimal):
        raise error(message, field)
    try:
        amount = Decimal(value.strip() if isinstance(value, str) else value)
    except (InvalidOperation, ValueError):
        raise error(message, field) from None
    if not amount.is_finite():
        raise error(message, field)
    return amount


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def loads(text: str | bytes) -> Any:
    """JSON → Python, numbers with a fraction or exponent as Decimal; NaN and Infinity are
    refused. Raises ValueError (or RecursionError for absurd nesting)."""
    return json.loads(text, parse_float=Decimal, parse_constant=_reject_constant)
