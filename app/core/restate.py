"""A stored result in the words of the reader's language: results are stored in English
(:func:`app.core.messages.in_english`), so a page or an API answer read in German or
Japanese settles the stored hand again for its words (each payment's rule, the
explanation) and keeps every number as stored. Pure: the caller has hooked the language in
(and :func:`app.core.money.money_places`, for a currency without cents)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from .errors import TonkError
from .hand import parse_hand
from .messages import reader_language
from .money import format_money, spoken_amount
from .settle import settle
from .sidebets import explained


def _paid(result: Mapping[str, Any]) -> list[tuple[str, str, Decimal]]:
    return [(p["from"], p["to"], Decimal(str(p["amount"]))) for p in result["payments"]]


def reworded(hand: Mapping[str, Any], result: Mapping[str, Any]) -> dict[str, Any]:
    """``result`` (stored for the stored ``hand``) with its words in the current language;
    as stored when the hand no longer settles to the same payments (then its words are
    those it was stored with)."""
    try:
        facts = {k: v for k, v in hand.items() if k != "side_bets"}  # settled apart
        fresh = settle(parse_hand(facts)).to_json()
    except (TonkError, KeyError, TypeError):
        return dict(result)
    if _paid(fresh) != _paid(result):
        return dict(result)
    payments = [{**old, "rule": new["rule"]}
                for old, new in zip(result["payments"], fresh["payments"], strict=True)]
    return {**result, "payments": payments, "explanation": fresh["explanation"]}


@dataclass(frozen=True)
class _Scoring:
    scoring: str


def reworded_side_bets(outcomes: Sequence[Mapping[str, Any]], spec: Mapping[str, Any],
                       scoring: str, currency: str | None = None) -> list[dict[str, Any]]:
    """A hand's stored side-bet outcomes (written in English) with their sentences in the
    reader's language, every number as stored; ``spec`` is the session's side bets (each
    bet's stake). An outcome whose bet the table no longer names keeps its stored words.
    Given the table's ``currency`` (money scoring), amounts are written with it."""
    fmt = spoken_amount(_Scoring(scoring))
    if currency and scoring == "money":
        def fmt(value: Decimal) -> str:
            return format_money(value, currency, reader_language())
    out = []
    for outcome in outcomes:
        stake = (spec.get(str(outcome.get("bet"))) or {}).get("stake")
        try:
            lines = explained(outcome, Decimal(str(stake)), fmt)
        except (KeyError, TypeError, InvalidOperation):
            out.append(dict(outcome))
            continue
        out.append({**outcome, "explanation": [str(m) for m in lines]})
    return out
