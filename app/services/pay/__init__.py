"""Pay links: where each player takes payment (PayPal.me, Venmo, Cash App,
Revolut, an IBAN with its BIC, a free note), checked and kept per player, and for each open
transfer of a settle-up the payee's links with the amount filled in, or a GiroCode.

The public front: :func:`read_handles`, :func:`set_handles`, :func:`session_handles`,
:func:`transfer_links`, :func:`transfer_note`, :class:`Handles`, :class:`PayLink`,
:class:`PayError`. Handles go only to the table (its owner, its share link and the ledger
API), never on the public checker or a rule card.
"""
from __future__ import annotations

from decimal import Decimal

from ...db.models import GameSession
from .handles import FIELDS, Handles, PayError, handle_problems, read_handles, session_handles
from .handles import set_handles as set_handles
from .links import SERVICES, PayLink, epc_payload, epc_qr, pay_links

__all__ = ["FIELDS", "SERVICES", "Handles", "PayError", "PayLink", "epc_payload", "epc_qr",
           "handle_problems", "read_handles", "session_handles", "set_handles",
           "transfer_links", "transfer_note"]


def transfer_note(gs: GameSession) -> str:
    """The note a payment of the session carries: "Tonk, Friday at Dee's"."""
    return f"Tonk, {gs.name}"


def transfer_links(gs: GameSession, handles: dict[str, Handles], payee: str,
                   amount: Decimal) -> list[PayLink]:
    """The ways to pay ``payee`` ``amount`` at ``gs`` (none when they keep no handle)."""
    kept = handles.get(payee)
    if not kept:
        return []
    return pay_links(kept, payee, amount, gs.currency, transfer_note(gs))
