"""Pay links: for one open transfer, each of the payee's handles as a link with the amount
and a note filled in where the service takes them, and a euro table's IBAN as the payload
of an EPC QR code (the European Payments Council's "GiroCode", version 002, UTF-8), which
banking apps scan.

- PayPal.me takes the amount and its currency in the path; no note.
- Venmo (US dollars only) takes amount and note as ``txn=pay`` arguments.
- Cash App takes an amount in the path (US dollars and pounds, the currencies it pays in).
- Revolut.me takes neither: the link opens the payee's page.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import quote, urlencode

import segno
from schwifty import IBAN
from segno.helpers import make_epc_qr

from ...core.money import currency_code, money_data
from .handles import Handles

MAX_EPC_NAME = 70
MAX_EPC_TEXT = 140
MAX_EPC_AMOUNT = Decimal("999999999.99")


#: What a link can be, in the order :func:`pay_links` offers them.
SERVICES = ("epc", "paypal", "venmo", "cashapp", "revolut", "iban", "note")


@dataclass(frozen=True)
class PayLink:
    """One way to pay: a ``url`` to open, or (``epc``) a ``payload`` for a QR code, or
    (``iban``, ``note``) words to read; ``amount``: the amount is filled in."""

    service: str
    url: str = ""
    payload: str = ""
    text: str = ""
    amount: bool = False


def pay_links(handles: Handles, payee: str, amount: Decimal, currency: str,
              note: str) -> list[PayLink]:
    """The payee's ways to be paid ``amount`` (in ``currency``), best filled in first."""
    code = currency_code(currency)
    links: list[PayLink] = []
    if handles.iban and code == "EUR" and Decimal("0.01") <= amount <= MAX_EPC_AMOUNT:
        links.append(PayLink("epc", payload=epc_payload(handles, payee, amount, note),
                             amount=True))
    if handles.paypal:
        if code:
            links.append(PayLink("paypal", f"https://paypal.me/{handles.paypal}/"
                                 f"{money_data(amount, code)}{code}", amount=True))
        else:
            links.append(PayLink("paypal", f"https://paypal.me/{handles.paypal}"))
    if handles.venmo:
        if code == "USD":
            args = urlencode({"txn": "pay", "amount": money_data(amount, code), "note": note},
                             quote_via=quote)
            links.append(PayLink("venmo", f"https://venmo.com/{handles.venmo}?{args}",
                                 amount=True))
        else:
            links.append(PayLink("venmo", f"https://venmo.com/{handles.venmo}"))
    if handles.cashapp:
        base = f"https://cash.app/${handles.cashapp}"
        if code in ("USD", "GBP"):
            links.append(PayLink("cashapp", f"{base}/{money_data(amount, code)}", amount=True))
        else:
            links.append(PayLink("cashapp", base))
    if handles.revolut:
        links.append(PayLink("revolut", f"https://revolut.me/{handles.revolut}"))
    if handles.iban and code != "EUR":
        # (written in groups of four, as banks print it and people read it out)
        bank = IBAN(handles.iban).formatted + (f" · BIC {handles.bic}" if handles.bic else "")
        links.append(PayLink("iban", text=bank))
    if handles.note:
        links.append(PayLink("note", text=handles.note))
    return links


def epc_payload(handles: Handles, payee: str, amount: Decimal, note: str) -> str:
    """The EPC QR code's text (EPC069-12, version 002, character set 1: UTF-8): service
    tag, version, character set, SCT, BIC, name, IBAN, amount, purpose, reference, note.
    The amount is written as segno writes it (``EUR2.5``), so that the code and the
    payload the API gives are the same text."""
    return "\n".join(("BCD", "002", "1", "SCT", handles.bic, payee[:MAX_EPC_NAME].strip(),
                      handles.iban, f"EUR{amount:.2f}".rstrip("0").rstrip("."), "", "",
                      note[:MAX_EPC_TEXT].rstrip()))


def epc_qr(handles: Handles, payee: str, amount: Decimal, note: str) -> segno.QRCode:
    """The GiroCode itself, drawn by segno (error correction M, at most version 13)."""
    return make_epc_qr(payee[:MAX_EPC_NAME].strip(), handles.iban, amount,
                       text=note[:MAX_EPC_TEXT].rstrip() or None,
                       reference=None if note.strip() else "Tonk",
                       bic=handles.bic or None, encoding="utf-8")
