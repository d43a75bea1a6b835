"""Everything the core says to a person, in one catalogue of message ids.

Explanation sentences, rule texts, error messages, preset titles and summaries are written
once, here (:data:`CATALOGUE`, English templates with named placeholders such as
``{player}``), and the core builds :class:`Message` values (an id and its values) instead of
English strings. A message is rendered only when it is read (``str(message)``), through
:func:`render`, so a translator hooked in with :func:`set_translator` (Flask-Babel's gettext,
in the app) can give the template in the reader's language. Pure Python: no Flask here.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Decimal
from typing import overload

from babel.lists import format_list

from .catalogue import CATALOGUE

#: (message id, English template) → the template in the reader's language.
Translator = Callable[[str, str], str]


def _untranslated(msg_id: str, template: str) -> str:
    return template


_translator: Translator = _untranslated


def _english() -> str:
    return "en"


_language: Callable[[], str] = _english


def set_translator(translator: Translator | None,
                   language: Callable[[], str] | None = None) -> None:
    """Hook a translator into :func:`render` (None: English, as written), and what says
    the reader's language (``"de"``: numbers in sentences are written ``0,50``)."""
    global _translator, _language
    _translator = translator or _untranslated
    _language = language or _english


def translator_hooked() -> tuple[Translator, Callable[[], str]]:
    """The translator and reader's language hooked in now (to hook them in again later)."""
    return _translator, _language


def reader_language() -> str:
    """The language messages are rendered in now (English inside :func:`in_english`)."""
    return "en" if _AS_WRITTEN.get() else _language()


def reading() -> object:
    """What a message's rendering depends on besides the message: the translator and the
    reader's language (None inside :func:`in_english`). Where it is equal, every message
    renders the same, so a rendering may be remembered under it."""
    return None if _AS_WRITTEN.get() else (_translator, _language())


#: Inside :func:`in_english`: every message as written, whatever the reader's language.
_AS_WRITTEN: ContextVar[bool] = ContextVar("tonk_as_written", default=False)


@contextmanager
def in_english() -> Iterator[None]:
    """Render every message in English (as written) inside the block: what is stored (a
    hand's result, its payments' rules and explanation) is in one language, whoever
    recorded it; pages translate it again when they show it."""
    token = _AS_WRITTEN.set(True)
    try:
        yield
    finally:
        _AS_WRITTEN.reset(token)


def render(msg_id: str, /, **params: object) -> str:
    """The message ``msg_id`` with its placeholders filled in. A value that is itself a
    :class:`Message` is rendered first."""
    template = CATALOGUE[msg_id]
    if not _AS_WRITTEN.get():
        template = _translator(msg_id, template)
    return template.format_map({k: str(v) for k, v in params.items()})


#: A number longer than this, written out, is quoted back with an exponent (``1e400``).
_LONGEST_NUMBER = 30


def as_sent(value: object) -> str:
    """A value someone sent, written as they would write it, for a message that quotes it
    back: JSON's words (``"Zed"``, ``true``, ``null``, ``[2]``) and numbers as numbers
    (``1000000000``, ``2.5``, ``1e400``), never Python's repr (``Decimal('1E+9')``,
    ``True``, ``'Zed'``). The one home for that: every message that quotes a value uses it."""
    if value is None or isinstance(value, bool | str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float | Decimal):
        return _number(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{as_sent(k)}: {as_sent(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(map(as_sent, value)) + "]"
    return str(value)


def _number(value: int | float | Decimal) -> str:
    number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if not number.is_finite():
        return str(number)
    sign, digits, _ = number.as_tuple()
    if len(digits) <= _LONGEST_NUMBER and abs(number.adjusted()) < _LONGEST_NUMBER:
        plain = f"{number:f}"  # short: never written out to a billion zeros
        if len(plain) <= _LONGEST_NUMBER:
            return plain
    shown = "".join(map(str, digits)).rstrip("0") or "0"
    if len(shown) > _LONGEST_NUMBER:
        shown = shown[:_LONGEST_NUMBER] + "…"
    mantissa = shown[0] + ("." + shown[1:] if len(shown) > 1 else "")
    return f"{'-' if sign else ''}{mantissa}e{number.adjusted()}"


class Message:
    """One thing to say: a catalogue id and the values of its placeholders. Immutable;
    ``str()`` renders it."""

    __slots__ = ("id", "params")
    id: str
    params: tuple[tuple[str, object], ...]

    def __init__(self, msg_id: str, /, **params: object) -> None:
        if msg_id not in CATALOGUE:
            raise KeyError(f"no message {msg_id!r} in the catalogue")
        object.__setattr__(self, "id", msg_id)
        object.__setattr__(self, "params", tuple(sorted(params.items())))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Message cannot change")

    def __str__(self) -> str:
        return render(self.id, **dict(self.params))

    def __repr__(self) -> str:
        return f"Message({self.id!r}, {dict(self.params)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and (self.id, self.params) == (other.id,
                                                                           other.params)

    def __hash__(self) -> int:
        return hash((self.id, tuple((k, str(v)) for k, v in self.params)))

    def __reduce__(self) -> tuple[Callable[..., Message], tuple[str, dict[str, object]]]:
        """Pickled as its id and values (an import's problems come back from the processes
        that check its sessions), rendered only where it is read."""
        return _message, (self.id, dict(self.params))


def _message(msg_id: str, params: dict[str, object]) -> Message:
    return Message(msg_id, **params)


class Named:
    """An attribute of a registry's entry that is the message its name names: ``title =
    Named("catch.{0.name}.title")`` reads ``Message("catch.alt1.title")`` on the scheme
    ``alt1`` (the pattern is filled in with the entry, as :meth:`str.format` does)."""

    __slots__ = ("pattern",)

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    @overload
    def __get__(self, entry: None, owner: type) -> Named: ...
    @overload
    def __get__(self, entry: object, owner: type | None = None) -> Message: ...

    def __get__(self, entry: object, owner: type | None = None) -> Named | Message:
        return self if entry is None else Message(self.pattern.format(entry))


def join_and(items: Iterable[object]) -> Message:
    """``Ann, Bob, and Cy`` / ``Ann, Bob und Cy`` / ``Ann、Bob、Cy``: Babel's list pattern of
    the reader's language (one item: itself)."""
    return Message("list.one", item=Joined(tuple(items), "standard"))


def multiple_word(n: int) -> Message:
    """``2`` → "double": how a table says a multiple of the stake."""
    return Message(f"multiple.{n}") if 1 <= n <= 4 else Message("multiple.n", n=n)


def join_or(items: Iterable[object]) -> Message:
    """``49, 50, or 51`` / ``49, 50 oder 51`` (one item: itself)."""
    return Message("list.one", item=Joined(tuple(items), "or"))


class Joined:
    """Items joined as a list when rendered, in the language of that moment (a stored
    explanation is rendered in English, the page again in the reader's): Babel's
    ``format_list``, not one glue word, so Japanese clauses are not joined with と."""

    __slots__ = ("items", "style")

    def __init__(self, items: tuple[object, ...], style: str) -> None:
        self.items, self.style = items, style

    def __str__(self) -> str:
        texts = [str(item) for item in self.items]
        if len(texts) <= 1:
            return "".join(texts)
        return format_list(texts, style=self.style, locale=reader_language())  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Joined) and (self.items, self.style) == (other.items,
                                                                          other.style)

    def __hash__(self) -> int:
        return hash((tuple(map(str, self.items)), self.style))

    def __repr__(self) -> str:
        return f"Joined({self.items!r}, {self.style!r})"
