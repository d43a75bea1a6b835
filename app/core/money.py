"""Reading money exactly, the one home of what an amount may look like: decimal amounts
from JSON-like input (ASCII digits, an optional sign, at most so many decimal places), and
JSON text whose numbers become ``Decimal`` (never a binary float) and whose objects may
not repeat a key; how many decimal places a currency has (yen none, euros two: from the
currency, via Babel's CLDR data, pure Python), and how money is written in a language
(``1.234,50 €``, ``¥1,235``)."""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any, Protocol

from babel.numbers import (
    format_currency,
    format_decimal,
    get_currency_name,
    get_currency_precision,
    get_decimal_symbol,
)

from .errors import HandError, TonkError
from .messages import Message, as_sent, reader_language

#: Money has at most two decimal places (cents); points are whole.
CENT_PLACES = 2
#: An amount as text: ASCII digits only (no ``1_000``, no Arabic-Indic or full-width
#: digits, no exponent), an optional sign, an optional fraction.
_PLAIN = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?")


def parse_decimal(value: Any, error: type[TonkError], message: str | Message, field: str,
                  *, places: int | None = None) -> Decimal:
    """A decimal string of ASCII digits (``"-4.50"``), an int or a finite Decimal (a JSON
    number) → a Decimal; anything else (a float, a bool, words, ``1_000``, ``٣``, NaN)
    raises ``error(message, field)``. With ``places``, an amount with more decimal places
    than that (``0.001`` of a currency with cents) is refused too."""
    if isinstance(value, bool) or not isinstance(value, str | int | Decimal):
        raise error(message, field)
    if isinstance(value, str):
        text = value.strip(" \t\r\n")
        if not _PLAIN.fullmatch(text):
            raise error(message, field)
        amount = Decimal(text)
    else:
        amount = Decimal(value)
    if not amount.is_finite():
        raise error(message, field)
    if places is not None and decimal_places(amount) > places:
        raise error(Message("money.places", message=message, places=places), field)
    return amount


def plain_decimal(text: str) -> bool:
    """Whether ``text`` is one decimal as :func:`parse_decimal` reads text (``"-4.50"``)."""
    return _PLAIN.fullmatch(text) is not None


def decimal_places(amount: Decimal) -> int:
    """How many decimal places ``amount`` needs (``0.250`` needs 2; ``1E+26`` none),
    exactly, whatever its size (no rounding context involved)."""
    _sign, digits, exponent = amount.as_tuple()
    assert isinstance(exponent, int)  # finite
    if not any(digits):
        return 0
    for digit in reversed(digits):
        if digit or exponent >= 0:
            break
        exponent += 1
    return max(0, -exponent)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


class DuplicateKeyError(ValueError):
    """A JSON object that gives the same key twice (which one counts is anyone's guess)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} is given twice")
        self.path = path


class _Repeated(dict[str, Any]):
    """An object of the JSON text that repeated ``key``."""

    key = ""


def _repeated_key(pairs: list[tuple[str, Any]]) -> str:
    seen: set[str] = set()
    return next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    marked = _Repeated(out)
    marked.key = _repeated_key(pairs)
    return marked


def refuse_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An ``object_pairs_hook`` for a streaming decoder: a repeated key raises
    :class:`DuplicateKeyError` (naming the key; the reader knows where it is). Called for
    every object of a document: kept to a dict and a length in the usual case."""
    out = dict(pairs)
    if len(out) != len(pairs):
        raise DuplicateKeyError(_repeated_key(pairs))
    return out


def _repeated_path(value: Any, path: str) -> str | None:
    """The path (``counts.Ann``, ``hands[2].end``) of the first repeated key, if any."""
    if isinstance(value, _Repeated):
        return f"{path}.{value.key}" if path else value.key
    items = (value.items() if isinstance(value, dict)
             else ((f"[{i}]", v) for i, v in enumerate(value)) if isinstance(value, list)
             else ())
    for key, item in items:
        if isinstance(value, dict):
            where = f"{path}.{key}" if path else key
        else:
            where = f"{path}{key}"
        found = _repeated_path(item, where)
        if found is not None:
            return found
    return None


def loads(text: str | bytes) -> Any:
    """JSON → Python, numbers with a fraction or exponent as Decimal; NaN and Infinity are
    refused, and so is an object that repeats a key (:class:`DuplicateKeyError`, naming
    where). Raises ValueError (or RecursionError for absurd nesting)."""
    repeated = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal repeated
        out = _pairs(items)
        repeated = repeated or isinstance(out, _Repeated)
        return out

    found = json.loads(text, parse_float=Decimal, parse_constant=_reject_constant,
                       object_pairs_hook=pairs)
    path = _repeated_path(found, "") if repeated else None
    if path is not None:
        raise DuplicateKeyError(path)
    return found


class Scored(Protocol):
    """Anything that says how a table scores (house rules)."""

    @property
    def scoring(self) -> str: ...


#: Inside :func:`money_places`: how many decimal places money is written with.
_PLACES: ContextVar[int | None] = ContextVar("tonk_money_places", default=None)


@contextmanager
def money_places(places: int) -> Iterator[None]:
    """Write money with ``places`` decimal places inside the block (a yen table's
    explanation: none), where no currency is named."""
    token = _PLACES.set(places)
    try:
        yield
    finally:
        _PLACES.reset(token)


def spoken_amount(rules: Scored) -> Callable[[Decimal], str]:
    """How an amount is written in a sentence for the reader: as :func:`amount_formatter`
    writes it, with the decimal sign of the reader's language (``0,50`` in German)."""
    fmt = amount_formatter(rules)
    sign = get_decimal_symbol(reader_language())
    return fmt if sign == "." else (lambda d: fmt(d).replace(".", sign))


def amount_formatter(rules: Scored, currency: str | None = None
                     ) -> Callable[[Decimal], str]:
    """How the table's amounts are written in data (JSON, CSV) and explanations: money with
    its currency's decimal places (two unless the currency has fewer: yen none; with no
    currency named, those of :func:`money_places`, else two); points (and push-ups) as
    whole numbers. The one home of that rule."""
    if rules.scoring == "money":
        chosen = _PLACES.get()
        places = currency_places(currency) if currency or chosen is None else chosen
        return (lambda d: f"{d:.2f}") if places == 2 else (lambda d: f"{d:.{places}f}")
    return lambda d: f"{d:.0f}"


_HUNDRED = Decimal(100)
_CENT = Decimal("0.01")


def to_minor(amount: Decimal) -> int:
    """An amount of at most two decimal places → integer hundredths, exactly (how the
    database keeps money and points)."""
    minor = amount * _HUNDRED
    if minor != minor.to_integral_value():
        raise ValueError(f"{amount} has more than two decimal places")
    return int(minor)


def from_minor(minor: int) -> Decimal:
    """Integer hundredths → a Decimal with two places."""
    return (Decimal(minor) / _HUNDRED).quantize(_CENT)


def average_places(scoring: str, currency: str | None) -> int:
    """How many decimal places an average per hand is written with: money its currency's
    (yen none, most two); points and push-ups two (whole points average to fractions)."""
    return currency_places(currency) if scoring == "money" else CENT_PLACES


def average_of_minor(average_minor: Fraction, places: int) -> Decimal:
    """An exact average of amounts kept in hundredths (a league's net per hand) as an
    amount, rounded half to even to ``places`` decimal places (a small loss rounded to
    nothing is 0.00, not -0.00)."""
    value = Decimal(average_minor.numerator) / Decimal(average_minor.denominator) / _HUNDRED
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN) + 0


# -- stakes: one rule for the table, the ledger, leagues and import -------------------------

#: The largest stake a table may play for.
MAX_STAKE = Decimal(1_000_000)


def currency_code(currency: str | None) -> str | None:
    """The ISO 4217 code ``currency`` is (``"jpy"`` → ``"JPY"``), or None for a sign or a
    name Babel does not know (``$``, ``chips``)."""
    code = (currency or "").strip().upper()
    if len(code) != 3 or not code.isascii() or not code.isalpha():
        return None
    return code if get_currency_name(code, locale="en") != code else None


def currency_places(currency: str | None) -> int:
    """How many decimal places ``currency`` has: yen none, euros and dollars two (its CLDR
    precision, capped at the two places the database keeps); a sign or an unknown name:
    two."""
    code = currency_code(currency)
    return min(CENT_PLACES, get_currency_precision(code)) if code else CENT_PLACES


def money_data(amount: Decimal, currency: str | None) -> str:
    """An amount of ``currency`` as data carries it (JSON, CSV, payment links): a plain
    decimal with the currency's places (yen ``500``, euros ``500.00``)."""
    return f"{amount:.{currency_places(currency)}f}"


def fits_currency(amount: Decimal, currency: str | None) -> bool:
    """Whether ``amount`` has no more decimal places than ``currency`` has (``0.5`` of yen:
    no); the one check of stakes, side-bet stakes and payments."""
    return decimal_places(amount) <= currency_places(currency)


def format_money(amount: Decimal, currency: str | None, locale: str = "en") -> str:
    """``amount`` of ``currency`` as ``locale`` writes it, with the currency's places:
    ``1.234,50 €`` (EUR, de), ``¥1,235`` (JPY, ja), ``$1,234.50`` (USD, en). A currency
    Babel does not know (a sign such as ``$``, or ``chips``) follows the number."""
    code = currency_code(currency)
    if code is None:
        number = format_number(amount, CENT_PLACES, locale)
        return f"{number} {currency}" if currency else number
    return format_currency(amount, code, locale=locale)


def said_amount(amount: Decimal, currency: str | None, scoring: str) -> str:
    """An amount in a sentence for its reader (a refusal's "at most …"): money with its
    currency as the reader's language writes it ("0,75 €", "¥875"), points whole. Such
    sentences wrote "höchstens 0.75" beside "0,75 €", and yen with cents."""
    if scoring == "money":
        return format_money(amount, currency, reader_language())
    return format_number(amount, 0, reader_language())


#: The minus sign every amount is written with (U+2212), never a hyphen.
MINUS = "\u2212"


def with_sign(value: Decimal, text: str) -> str:
    """``text`` (the amount written without a sign) with ``value``'s sign spelled out:
    ``+0.50``, ``\u22120.25``, ``0.00``. The one home of how a gain or loss is signed."""
    return ("+" if value > 0 else MINUS if value < 0 else "") + text.lstrip("-")


def format_number(amount: Decimal, places: int, locale: str = "en") -> str:
    """A plain amount with ``places`` decimal places, grouped as ``locale`` groups."""
    pattern = "#,##0" + ("." + "0" * places if places else "")
    return format_decimal(amount, format=pattern, locale=locale, decimal_quantization=True)


def takes_stake(rules: Scored) -> bool:
    """Whether the table plays for a stake: money and points do; push-ups do not (the
    losers are pushed up by the points left in their hands, whatever the stake)."""
    return rules.scoring != "push_ups"


def parse_stake(value: Any, rules: Scored, currency: str | None = None) -> Decimal:
    """A positive amount of at most 1,000,000 with at most the currency's decimal places
    (two for most, none for yen; whole under points scoring); default 1. Accepts a decimal
    string, an int or a Decimal; never a float. Under push-ups, which take no stake, a stake
    given must still read as a number, and is then ignored: 0."""
    if value is None:
        value = 1
    known = (type(value), value, rules.scoring, currency)
    if type(value) in (str, int):  # a table's stake, hand after hand: checked once
        stake = _STAKES.get(known)
        if stake is not None:
            return stake
    stake = _parse_stake(value, rules, currency)
    if type(value) in (str, int):
        if len(_STAKES) >= 1024:
            _STAKES.clear()
        _STAKES[known] = stake
    return stake


#: (type, stake as given, scoring, currency) → the stake (Decimals do not change).
_STAKES: dict[tuple[type, Any, str, str | None], Decimal] = {}


def _parse_stake(value: Any, rules: Scored, currency: str | None) -> Decimal:
    amount = parse_decimal(value, HandError,
                           Message("stake.not_amount", value=as_sent(value)), "stake")
    if not takes_stake(rules):
        return Decimal(0)
    if amount <= 0:
        raise HandError(Message("stake.not_positive", value=value), "stake")
    if amount > MAX_STAKE:
        raise HandError(Message("stake.too_large"), "stake")
    if rules.scoring == "money":
        if currency_places(currency) == 0 and not fits_currency(amount, currency):
            raise HandError(Message("stake.currency_whole", value=value,
                                    currency=currency_code(currency)), "stake")
        if amount != amount.quantize(_CENT):
            raise HandError(Message("stake.places", value=value), "stake")
        return amount.quantize(_CENT)
    if amount != amount.to_integral_value():
        raise HandError(Message("stake.whole_points", value=value), "stake")
    return amount.quantize(Decimal(1))


def stake_of(stake_minor: int, rules: Scored) -> Decimal:
    """A stored stake as the rules write it: points whole; money to the cent; push-ups take
    none (0, whatever an older row kept)."""
    if not takes_stake(rules):
        return Decimal(0)
    stake = from_minor(stake_minor)
    return stake.quantize(Decimal(1)) if rules.scoring == "points" else stake
