"""What a person types for a session, read and checked: its name, its currency, the reason
for a correction, a void or an undo, and a payment's amount (its places and currency by
:mod:`app.core.money`'s rules). Each refusal is a
:class:`~app.services.errors.LedgerError` naming its field; the import checks its
documents with the same functions."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from ...core.messages import Message, as_sent
from ...core.money import CENT_PLACES, currency_code, decimal_places, fits_currency, parse_decimal
from ...core.names import MAX_SESSION_NAME as MAX_SESSION_NAME  # (the sessions area's front)
from ...core.names import change_reason, session_currency, session_name
from ..errors import LedgerError

MAX_AMOUNT = Decimal(10) ** 12


def parse_currency(value: Any) -> str:
    return session_currency(value, LedgerError)


def parse_session_name(name: Any) -> str:
    return session_name(name, LedgerError)


def parse_reason(reason: Any) -> str:
    return change_reason(reason, LedgerError)


def parse_amount(value: Any, currency: str | None = None) -> Decimal:
    """A payment's amount: more than zero, with at most the currency's places (yen: none)."""
    amount = parse_decimal(value, LedgerError, Message("payment.not_amount", value=as_sent(value)),
                           "amount")
    if amount <= 0 or amount > MAX_AMOUNT or decimal_places(amount) > CENT_PLACES:
        raise LedgerError(Message("payment.amount"), "amount")
    if not fits_currency(amount, currency):
        raise LedgerError(Message("payment.currency_whole", value=value,
                                  currency=currency_code(currency)), "amount")
    return amount

