"""What the fields of the API's bodies hold, as the document shows it: names, texts, amounts,
stakes, house rules, ids, side bets. Each is typed for the document only (``SkipValidation``):
the value goes on as sent to the core or the service that checks it (see :mod:`.door`).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, SkipValidation, WithJsonSchema

from ..core.hand import END_KINDS, MAX_MULTIPLIER, MAX_PLAYERS, METHODS, MIN_PLAYERS
from ..core.sidebets import BETS, SUITS, UNCLAIMED
from .door import ABSENT, REF, CoreBody

#: An amount as the API reads it (app.core.money): a string of ASCII digits with an optional
#: sign and fraction (spaces around are ignored), or a JSON number read exactly.
AMOUNT_TEXT = {"type": "string", "pattern": r"^[ \t\r\n]*[+-]?[0-9]+(\.[0-9]+)?[ \t\r\n]*$",
               "examples": ["0.25"]}
#: A day as the API reads it (the years 2000 to 2100).
DAY = {"type": "string", "format": "date", "pattern": r"^\s*\d{4}-\d{2}-\d{2}\s*$",
       "examples": ["2026-01-31"], "description": "A day of the years 2000 to 2100."}


def ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(model=name)}


#: A name as typed: it must hold more than spaces; it is trimmed, inner spaces folded and
#: NFC-normalised, and may then be at most so long, without control, invisible
#: (zero-width, direction) or broken (lone surrogate) characters.
Name = SkipValidation[Annotated[str, WithJsonSchema({
    "type": "string", "pattern": r"\S", "examples": ["Ann"],
    "description": "At most 40 characters once trimmed; no control or invisible characters. "
                   "Names that differ only in case or Unicode form are the same person."})]]
#: A name as the side bets and seats read it.
Seated = SkipValidation[Annotated[str, WithJsonSchema(
    {"type": "string", "pattern": r"\S", "examples": ["Fay"]})]]
#: The players at a table, in seat order.
Players = SkipValidation[Annotated[list[Name], Field(min_length=MIN_PLAYERS,
                                                     max_length=MAX_PLAYERS)]]
Text = SkipValidation[Annotated[str, Field(
    pattern=r"\S", description="At most 80 characters once trimmed (inner spaces folded); "
                               "no control or invisible characters.")]]
Word = SkipValidation[Annotated[str, Field(pattern=r"\S")]]
Reason = SkipValidation[Annotated[str, Field(pattern=r"\S")]]
Flag = SkipValidation[bool]
Id = SkipValidation[Annotated[int, Field(ge=1)]]
Stake = Annotated[Any, WithJsonSchema({
    "anyOf": [AMOUNT_TEXT, {"type": "number"}, {"type": "null"}],
    "description": "More than 0 and at most 1,000,000, at most two decimal places (whole "
                   "under points scoring); null or absent: 1 (a session's or league's: its "
                   "own)."})]
Currency = Annotated[Any, WithJsonSchema({"type": ["string", "null"], "default": "USD",
                      "description": "A short code or sign (at most 8 characters), USD if "
                                     "null or empty."})]
#: A preset's name, or a preset and the options that differ (the schema ``Rules``, made
#: from the core's registry of presets and options).
Rules = Annotated[Any, WithJsonSchema(ref("Rules"))]
Day = Annotated[Any, WithJsonSchema(DAY)]
Version = SkipValidation[Annotated[int, Field(
    ge=1, description="The version this change was made from: if the hand has changed "
                      "since, 409 and nothing changes.")]]


class _Shape(BaseModel):
    """Part of a body, described (its keys are checked where the body's values are)."""

    model_config = ConfigDict(extra="forbid")


class BetStake(_Shape):
    stake: Annotated[Any, WithJsonSchema(
        {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]})] = Field(
        ABSENT, description="The bet's stake; null or absent: the table's own.")


class HighCard(BetStake):
    suit: SkipValidation[Annotated[str, Field(json_schema_extra={"enum": list(SUITS)},
                                              description="Always this suit.")]] = ABSENT
    unclaimed: SkipValidation[Annotated[str, Field(
        json_schema_extra={"enum": list(UNCLAIMED)})]] = ABSENT


class SideBets(_Shape):
    """The side bets the table plays (docs/rules.md §9); money and points scoring only."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"high_card": {"stake": "0.25", "suit": "S", "unclaimed": "carry"},
         "naturals": {"stake": "0.10"}}]})
    high_card: SkipValidation[HighCard | None] = ABSENT
    naturals: SkipValidation[BetStake | None] = ABSENT


class SideBetPlay(BaseModel):
    """A side bet played at this deal."""

    bet: SkipValidation[Annotated[str, Field(json_schema_extra={"enum": list(BETS)})]]
    suit: SkipValidation[Annotated[str, Field(
        json_schema_extra={"enum": list(SUITS)},
        description="The suit called (high_card, unless the table fixes it).")]] = ABSENT
    players: SkipValidation[list[Seated]] = Field(
        ABSENT, description="Who is in; default: everyone at the table.")
    winner: SkipValidation[Seated | None] = Field(
        ABSENT, description="One of players, or null for nobody.")


class EndBody(BaseModel):
    """How the hand ended."""

    kind: SkipValidation[Annotated[str, Field(json_schema_extra={"enum": list(END_KINDS)})]]
    player: Name = ABSENT
    method: SkipValidation[Annotated[str, Field(
        json_schema_extra={"enum": list(METHODS)})]] = ABSENT
    first_turn: Flag = ABSENT
    double_double: Flag = ABSENT
    five_face_cards: SkipValidation[list[Name]] = ABSENT


class DealBody(CoreBody):
    """What a hand's body holds besides its table (its keys: the core's, ``HAND_FIELDS``)."""

    required: ClassVar[tuple[str, ...] | None] = ("end",)

    multiplier: SkipValidation[Annotated[int, Field(ge=1, le=MAX_MULTIPLIER)]] = ABSENT
    end: Annotated[Any, WithJsonSchema(ref("End"))] = ABSENT  # (a schema of its own)
    counts: SkipValidation[dict[Name, int] | None] = ABSENT
    cards: SkipValidation[dict[Name, list[Annotated[str, Field(
        examples=["KS", "10H"])]]] | None] = ABSENT


# -- what the answers hold (:mod:`.answers`) ---------------------------------------------------

#: An amount as the API answers it: a decimal string, never a binary float.
MONEY = {"type": "string", "pattern": r"^-?\d+(\.\d{1,2})?$",
         "description": "An exact decimal amount, never a binary float.", "examples": ["1.25"]}
Money = Annotated[str, WithJsonSchema(MONEY)]
#: A moment as ISO 8601 (UTC).
When = Annotated[str, WithJsonSchema({"type": "string", "format": "date-time"})]
Count = Annotated[int, Field(ge=0)]
#: An answer's keys described by the docstring below each (``@with_config(DOCSTRINGS)``).
DOCSTRINGS = ConfigDict(use_attribute_docstrings=True)
Key = Annotated[int, Field(ge=1)]


def choice(values: Iterable[str]) -> WithJsonSchema:
    """A string, one of ``values`` (a registry's names): ``Annotated[str, choice(...)]``."""
    return WithJsonSchema({"type": "string", "enum": list(values)})


def about(description: str) -> Any:
    """A key's description where it cannot be the docstring below it (a key named ``from``,
    declared in a TypedDict's call form): ``Annotated[str, about("...")]``."""
    return Field(description=description)
