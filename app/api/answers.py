"""What the API answers, declared once: each answer is a TypedDict that the view building it
returns (so the type checker holds the view to it) and that the OpenAPI document shows (the
door makes its schema, :func:`.door.schemas`). A key's description is the docstring below
it; a key named ``from`` needs the call form of a TypedDict, and a key another TypedDict takes
on (a base's) loses its docstring: they say theirs with :func:`.kinds.about`. The schema's
name is the class's without ``Json``.

What the core builds itself (a hand's result, a ruling, a player's money by part) is
declared here all the same, and the view takes it as that (``cast``): the schemathesis test
holds every answer to the document. A shape several answers hold has its one builder here
(a transfer, a pay link).
"""
from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Annotated, Any, NotRequired, cast

from pydantic import WithJsonSchema, with_config
from typing_extensions import TypedDict

from ..core.night import Money as PlayerMoney
from ..core.settle import OUTCOMES
from ..core.sidebets import BETS
from ..core.transfers import Transfer
from ..services.leagues import SCORINGS
from ..services.pay import SERVICES, PayLink
from .kinds import DOCSTRINGS, Count, Key, Money, Rules, When, about, choice, ref

Scoring = Annotated[str, choice(SCORINGS)]
#: A hand as a client sends it (the body :class:`.kinds.DealBody` and its table).
SentHand = Annotated[dict[str, Any], WithJsonSchema(ref("TableHand"))]


@with_config(DOCSTRINGS)
class ErrorJson(TypedDict):
    """What is wrong with a request."""

    error: str
    """What is wrong, for a person."""
    field: NotRequired[str]
    """Where, e.g. counts.Bob."""


# -- a hand settled (the core's) -------------------------------------------------------------

PaymentJson = TypedDict("PaymentJson", {
    "from": str, "to": str, "amount": Money,
    "rule": Annotated[str, about("The rule that made it, in words.")]})


@with_config(DOCSTRINGS)
class SideBetResultJson(TypedDict):
    """A side bet settled at one deal, apart from the hand's own result."""

    bet: Annotated[str, choice(BETS)]
    suit: NotRequired[str]
    players: list[str]
    winner: str | None
    rule: Annotated[str, choice(["side_bet.won", "side_bet.carried", "side_bet.returned",
                                 "side_bet.left"])]
    """side_bet.left: players (who left the table after this deal, the last they played)
    take back what they had in the pot; net is what each took."""
    net: dict[str, Money]
    pot: Money
    """In the pot after this deal."""
    explanation: list[str]


@with_config(DOCSTRINGS)
class ResultJson(TypedDict):
    """A hand settled: how it ended, who won, every payment and the rule that made it."""

    outcome: Annotated[str, choice(OUTCOMES)]
    winners: list[str]
    payments: list[PaymentJson]
    net: NotRequired[dict[str, Money]]
    pushed: NotRequired[dict[str, int]]
    explanation: NotRequired[list[str]]
    side_bets: NotRequired[list[SideBetResultJson]]
    """A recorded hand's side bets, settled (not in the hand's net)."""


@with_config(DOCSTRINGS)
class DiffersJson(TypedDict):
    """What is not as under the first ruling that could be settled (the table's own rules
    when given)."""

    winners: bool
    players: list[str]
    """Whose net (or push-up) differs."""


@with_config(DOCSTRINGS)
class RulingJson(TypedDict):
    """The hand under one set of rules."""

    rules: Rules
    """A preset's name, or the table's own rules as sent (then own is true)."""
    title: str
    own: NotRequired[bool]
    """The table's own rules."""
    result: NotRequired[ResultJson]
    differs: NotRequired[DiffersJson]
    note: NotRequired[str]
    """A change the comparison had to make, e.g. a stake of 1 point under points scoring."""
    error: NotRequired[str]
    """Why the hand cannot be settled under these rules (instead of result)."""
    field: NotRequired[str]


@with_config(DOCSTRINGS)
class ComparisonJson(TypedDict):
    """The same hand under every preset, the table's own rules first."""

    results: list[RulingJson]


# -- transfers and pay links -----------------------------------------------------------------

@with_config(DOCSTRINGS)
class PayLinkJson(TypedDict):
    """One way to pay the payee: a url (amount filled in where the service takes it), an EPC
    QR code's payload (euros), or words."""

    service: Annotated[str, choice(SERVICES)]
    url: NotRequired[str]
    payload: NotRequired[str]
    text: NotRequired[str]


TransferJson = TypedDict("TransferJson", {
    "from": str, "to": str, "amount": Money,
    "pay": NotRequired[Annotated[list[PayLinkJson], about(
        "In a ledger's open transfers: the payee's pay links.")]]})


def transfer_json(transfer: Transfer, fmt: Callable[[Decimal], str] = str) -> TransferJson:
    """A transfer, its amount written by ``fmt`` (the table's places)."""
    return {"from": transfer.payer, "to": transfer.payee, "amount": fmt(transfer.amount)}


def pay_link_json(link: PayLink) -> PayLinkJson:
    """A pay link, with the parts it has."""
    out: PayLinkJson = {"service": link.service}
    if link.url:
        out["url"] = link.url
    if link.payload:
        out["payload"] = link.payload
    if link.text:
        out["text"] = link.text
    return out


@with_config(DOCSTRINGS)
class TransfersJson(TypedDict):
    """The fewest transfers that settle the balances."""

    transfers: list[TransferJson]


# -- sessions --------------------------------------------------------------------------------

@with_config(DOCSTRINGS)
class SessionSummaryJson(TypedDict):
    """A session in the list of an account's sessions."""

    id: Key
    name: str
    players: list[str]
    currency: str
    closed: bool
    hands: int
    """Hands that count (voided ones not)."""
    voided_hands: int
    """Hands voided (numbered too)."""
    archived: bool
    """Put away off the home page."""
    created_at: When


@with_config(DOCSTRINGS)
class AtEventJson(TypedDict):
    """Where a session is a table of a tournament."""

    event: Annotated[Key | None, about("The tournament it is a table of, if any.")]
    round: Annotated[Key | None, about("The tournament's round it is a table of, if any.")]
    table: NotRequired[Annotated[Key, about("Its table's number in that round.")]]


@with_config(DOCSTRINGS)
class SessionJson(AtEventJson):
    """A session: its table, rules, stake, side bets and pots."""

    id: Key
    name: str
    players: list[str]
    """At the table now, in seat order."""
    left: list[str]
    """Who left (their totals stay in the ledger)."""
    dealer: str
    """Who deals the next hand."""
    rules: Rules
    """As stored: a preset and overrides."""
    scoring: Scoring
    stake: str | None
    """The stake; null under push-ups (played for points)."""
    currency: str
    side_bets: dict[str, Any]
    """The side bets it plays."""
    pots: dict[str, Money]
    """Money waiting in each side bet's pot."""
    closed: bool
    closed_at: When | None
    hands: int
    """Hands that count (voided ones not)."""
    voided_hands: int
    """Hands voided (numbered too)."""
    archived: bool
    """Put away off the home page."""
    archived_at: When | None
    share_url: str
    """Path of the read-only page."""
    league: Key | None
    """The league it belongs to, if any."""
    created_at: When


@with_config(DOCSTRINGS)
class SettledJson(TypedDict):
    """A hand as a client sends it, the rules and stake it was settled under, its result."""

    hand: SentHand
    rules: Annotated[Rules, about("The house rules it was settled under.")]
    stake: Annotated[str, about("The stake it was settled under.")]
    result: ResultJson


@with_config(DOCSTRINGS)
class RecordedHandJson(SettledJson):
    """A recorded hand, its number and result."""

    number: Key
    version: Key
    voided: bool


@with_config(DOCSTRINGS)
class HandVersionJson(SettledJson):
    """One version of a hand: when, by whom and why."""

    version: Key
    action: Annotated[str, choice(["recorded", "corrected", "voided"])]
    at: When
    by: str
    """The account's name."""
    reason: str | None


PaymentMadeJson = TypedDict("PaymentMadeJson", {
    "id": Key, "from": str, "to": str, "amount": Money,
    "planned": Annotated[bool, about("Along a planned transfer (false: outside the plan, "
                                     "after which what remains was planned again).")],
    "at": When, "by": str, "undone": bool, "undone_at": When | None, "undone_by": str | None,
    "undo_reason": str | None})

PlannedTransferJson = TypedDict("PlannedTransferJson", {
    "from": str, "to": str, "amount": Annotated[Money, about("As planned.")],
    "paid": Annotated[Money, about("Paid along it so far.")],
    "open": Annotated[Money, about("Still to pay along it.")]})

DebtJson = TypedDict("DebtJson", {
    "id": Key, "session": Key, "session_name": str, "from": str, "to": str, "amount": Money,
    "currency": str, "created_at": When, "paid": bool, "paid_at": When | None,
    "paid_by": str | None})


@with_config(DOCSTRINGS)
class LedgerJson(TypedDict):
    """Where the money of a session stands."""

    totals: dict[str, Money]
    """Each player's total as every page shows it: the hands, the side bets and what the
    pots give back (pot_returns); they sum to zero."""
    money: dict[str, NightMoneyJson]
    """Each total by part, as the session's page shows it."""
    hands: int
    """Hands that count (voided ones not)."""
    voided_hands: int
    """Hands voided (numbered too)."""
    transfers: list[TransferJson]
    """The same as open, without the pay links."""
    open: list[TransferJson]
    """The transfers still open: the plan less what was paid along it, each with the payee's
    pay links."""
    plan: list[PlannedTransferJson]
    """The plan in force (the fewest transfers), made when the totals change, not when money
    moves."""
    paid: list[PaymentMadeJson]
    """Payments that count (not undone)."""
    payments: list[PaymentMadeJson]
    """Every payment, undone ones marked."""
    balances: dict[str, Money]
    """Each total less what was paid or received."""
    all_paid: bool
    pots: dict[str, Money]
    """Money waiting in each side bet's pot."""
    pot_returns: dict[str, Money]
    """What is left in the pots, back to each who paid into them since they were last won
    (already in open and transfers)."""
    carried_over: list[DebtJson]
    """Debts kept when the session was closed."""
    scoring: Scoring
    currency: str


@with_config(DOCSTRINGS)
class DeletedJson(TypedDict):
    """What was deleted."""

    deleted: Key


# -- the read-only view ----------------------------------------------------------------------

@with_config(DOCSTRINGS)
class SharedSessionJson(TypedDict):
    """The session as its read-only view shows it."""

    name: str
    rules: str
    """The preset's name."""
    rules_title: str
    scoring: Scoring
    stake: str | None
    """Null under push-ups."""
    currency: str
    closed: bool
    closed_at: When | None
    created_at: When


@with_config(DOCSTRINGS)
class SeatJson(TypedDict):
    """A seat and its total."""

    seat: int
    name: str
    total: Money
    seated: bool
    """At the table now (false: left)."""


@with_config(DOCSTRINGS)
class LastHandJson(TypedDict):
    """A hand as the read-only view lists it."""

    number: Key
    version: Key
    voided: bool
    corrected: bool
    multiplier: int
    outcome: str
    winners: list[str]
    values: dict[str, Any]
    """Each player's net (pushes under push-ups)."""


@with_config(DOCSTRINGS)
class ShareJson(TypedDict):
    """The live state of a session for its read-only view."""

    session: SharedSessionJson
    seats: list[SeatJson]
    """In seat order, with each total."""
    players: list[str]
    """At the table now, in seat order."""
    dealer: str | None
    """Who deals next (null once closed)."""
    totals: dict[str, Money]
    """Each player's total as the view shows it (the pots' returns in it): they sum to zero."""
    money: dict[str, NightMoneyJson]
    """Each total by part, as the view shows it."""
    hands: int
    """Hands that count (not voided)."""
    voided_hands: int
    """Hands voided."""
    last_hands: list[LastHandJson]
    """The newest hands, newest first."""
    transfers: list[TransferJson]
    """The transfers still open."""
    pots: dict[str, Money]
    """Money waiting in each pot."""
    revision: int
    """Moves on with every change."""
    updated_at: When


# -- a night sent from a phone ---------------------------------------------------------------

@with_config(DOCSTRINGS)
class NightMoneyJson(TypedDict):
    """A player's money by part, as the session's page shows it."""

    hands: Money
    side_bets: Money
    pots_back: Money
    total: Money


def money_json(money: PlayerMoney, fmt: Callable[[Decimal], str] = str) -> NightMoneyJson:
    """A player's money by part (the core's :class:`~app.core.night.Money`)."""
    return cast(NightMoneyJson, money.to_json(fmt))


@with_config(DOCSTRINGS)
class NightSentJson(TypedDict):
    """What the server holds of a night sent from a phone."""

    night: str
    taken: list[str]
    """The ids of the events stored now."""
    already: list[str]
    """The ids of the events held already, skipped."""
    held: Count
    """How many events of the night the server holds."""
    next: Key
    """The seq of the next event to send."""
    session: SessionJson | None
    url: str | None
    """The session in the API."""
    page: NotRequired[str]
    """The session's page."""
    money: NotRequired[dict[str, NightMoneyJson]]
    """Each player's money by part, as the session's page shows it (and the core's fold of
    the events gives)."""
    ledger: NotRequired[LedgerJson]
