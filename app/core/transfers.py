"""Settle up with the fewest transfers: who pays whom, and how much, so every balance ends at zero.

The job
-------
:func:`fewest_transfers` takes each person's balance at the end of a game or a session (``+``:
they are up and are owed money; ``-``: they owe) and returns the shortest list of payments
(:class:`Transfer`: payer, payee, amount) after which everyone is square, to the cent. Money is
exact: balances are :class:`~decimal.Decimal`, worked on as whole numbers of the smallest unit
the input uses (``10**-k`` with ``k`` the most decimal places of any balance, at most 6), and
every amount comes back as a ``Decimal`` with those ``k`` places. The result is deterministic:
people are sorted by name before anything else, so the same balances in any order give the
same transfers in the same order (sorted by payer, then payee).

Why the minimum is a partition problem
--------------------------------------
A group of ``k`` people whose balances add up to zero can always be settled among themselves
with ``k - 1`` transfers, and never fewer if no smaller part of it adds up to zero. So the
fewest transfers for ``n`` non-zero balances is ``n - g``, where ``g`` is the largest number of
disjoint zero-sum groups that partition them. Finding ``g`` is NP-hard in general (it contains
subset sum), so:

1. Zero balances are dropped.
2. Exact opposite pairs (``a`` and ``-a``) are cancelled, each with one transfer, pairing people
   in name order. This never costs optimality: in any best partition, putting ``a`` and ``-a``
   in a group of their own and merging what was left of their groups keeps the count.
3. If at most :data:`EXACT_LIMIT` people remain, ``g`` is found exactly by the subset dynamic
   programme over bitmasks of the remaining people::

       f(mask) = [sum(mask) == 0] + max(f(mask without i) for i in mask),   f(empty) = 0

   ``f(full)`` is ``g``, and the chain of masks that achieves it, cut at each zero-sum mask,
   is a best partition. The recurrence is evaluated level by level rather than mask by mask,
   which computes the same ``f`` with every step a whole-array operation done in C: a set of
   masks is a Python ``int`` used as a bitset with one bit per mask (``2**n`` bits).

   * ``Z``, the set of non-empty zero-sum masks, is built from the subset sums of two halves of
     the people (meet in the middle: each half's sums by the doubling recurrence
     ``sums[m | 2**i] = sums[m] + value[i]``), one ``2**h``-bit block per subset of the upper
     half, joined as bytes.
   * ``L_1 = Z``; ``L_(t+1)`` is the masks of ``Z`` that strictly contain a mask of ``L_t``,
     i.e. the zero-sum masks that split into at least ``t + 1`` zero-sum groups. The strict
     up-closure of a bitset is ``2n`` shift-and-or steps, one pair per person (with ``C_i``
     the bitset of masks without person ``i``: ``up |= (up & C_i) << 2**i``). Then
     ``f(mask) >= t`` exactly when ``mask`` contains a mask of ``L_t``, and
     ``g = max{t : full in L_t}``.
   * Reconstruction walks down: from ``full`` in ``L_g``, the lowest-numbered mask of ``L_(g-1)``
     strictly inside it (found with the bitset of its submasks), and so on; each difference is
     one zero-sum group.

   Each group is then settled greedily with ``k - 1`` transfers: the largest debtor pays the
   largest creditor as much as one of them needs, ties broken by name.

   The work is ``O(g * n)`` operations on ``2**n``-bit integers, a few of them kept at once;
   :data:`EXACT_LIMIT` is set so that the worst case stays well under half a second in pure
   Python (``benchmarks/bench_transfers.py``; 15 people take well under a millisecond).
4. Above :data:`EXACT_LIMIT` the answer is a good heuristic, **not guaranteed minimal**:
   disjoint zero-sum triples are taken greedily (people in name order, the first triple found
   for each person), then what is left is solved exactly if at most :data:`EXACT_LIMIT` people
   remain, and otherwise settled by the same largest-debtor-pays-largest-creditor greedy. Each
   pair and triple saves a transfer against the greedy alone, and the greedy needs at most
   ``r - 1`` transfers for ``r`` people, so the heuristic never uses more than ``n - 1``.

Errors (:class:`TransferError`, a :class:`~app.core.errors.TonkError`): balances that do not
add up to exactly zero, a balance that is not a finite ``Decimal``, more than 6 decimal
places, or an amount of a quadrillion or more.
"""
from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Final

from .errors import TonkError
from .messages import Message, as_sent
from .money import CENT_PLACES, parse_decimal
from .names import MAX_NAME, clean_text, name_key

__all__ = ["EXACT_LIMIT", "MAX_PLACES", "MAX_PEOPLE", "Transfer", "TransferError",
           "fewest_transfers", "parse_balances"]

EXACT_LIMIT: Final[int] = 22
"""Most non-zero balances (after cancelling opposite pairs) for which the answer is exact."""

MAX_PLACES: Final[int] = 6
"""Most decimal places a balance may have."""

MAX_PEOPLE: Final[int] = 500
"""Most people one settle-up takes."""

_MAX_ADJUSTED: Final[int] = 14
"""Largest power of ten a balance may reach (so every amount is below a quadrillion)."""


class TransferError(TonkError):
    """Balances that cannot be settled: they do not sum to zero, or an amount is not money."""


@dataclass(frozen=True, slots=True)
class Transfer:
    """One payment of the settle-up: ``payer`` gives ``payee`` ``amount`` (always positive)."""

    payer: str
    payee: str
    amount: Decimal


def fewest_transfers(balances: Mapping[str, Decimal]) -> tuple[Transfer, ...]:
    """The fewest transfers that bring every balance to zero, exactly.

    ``balances`` maps each name to a ``Decimal`` (``+`` is owed money, ``-`` owes); they must
    add up to exactly zero. Exact up to :data:`EXACT_LIMIT` people left after cancelling
    opposite pairs, a heuristic of at most ``n - 1`` transfers above that (see the module).
    Raises :class:`TransferError` for balances that cannot be settled.
    """
    people, places = _read_balances(balances)
    total = sum(units for _, units in people)
    if total != 0:
        raise TransferError(Message("balances.not_zero", total=_to_decimal(total, places)),
                            "balances")
    nonzero = [(name, units) for name, units in people if units]
    settled, rest = _cancel_pairs(nonzero)
    if len(rest) <= EXACT_LIMIT:
        groups = _exact_groups([units for _, units in rest])
    else:
        groups = _heuristic_groups([units for _, units in rest])
    for group in groups:
        settled.extend(_settle_greedily([rest[i] for i in group]))
    settled.sort(key=lambda t: (t[0], t[1]))
    return tuple(
        Transfer(payer=payer, payee=payee, amount=_to_decimal(units, places))
        for payer, payee, units in settled
    )


# --- reading money -------------------------------------------------------------------------


def parse_balances(data: object) -> dict[str, Decimal]:
    """Balances as JSON gives them (``{"Ann": "4.50", "Bob": -4.5}``: decimal strings, whole
    numbers or Decimals, never binary floats) → name to Decimal. Raises TransferError."""
    if not isinstance(data, Mapping) or not data:
        raise TransferError(Message("balances.not_object"), "balances")
    if len(data) > MAX_PEOPLE:
        raise TransferError(Message("balances.too_many", n=MAX_PEOPLE), "balances")
    out: dict[str, Decimal] = {}
    keys: dict[str, str] = {}
    for raw, value in data.items():
        name = clean_text(raw, TransferError, f"balances.{raw}", Message("balances.name"),
                          MAX_NAME)
        field = f"balances.{name}"
        if name_key(name) in keys:
            raise TransferError(Message("balances.twice", name=name,
                                        first=keys[name_key(name)]), field)
        keys[name_key(name)] = name
        out[name] = parse_decimal(
            value, TransferError,
            Message("balances.not_amount", name=name, value=as_sent(value)), field,
            places=CENT_PLACES)
    return out



def _read_balances(balances: Mapping[str, Decimal]) -> tuple[list[tuple[str, int]], int]:
    """The balances as (name, integer units) sorted by name, and the number of places."""
    if not isinstance(balances, Mapping):
        raise TransferError(Message("balances.not_mapping"), "balances")
    checked: list[tuple[str, Decimal, int]] = []
    places = 0
    for name, value in balances.items():
        if not isinstance(name, str):
            raise TransferError(Message("balances.name_not_text", value=as_sent(name)),
                                "balances")
        field = f"balances.{name}"
        if not isinstance(value, Decimal):
            raise TransferError(Message("balances.not_decimal", name=name, value=as_sent(value)),
                                field)
        if not value.is_finite():
            raise TransferError(Message("balances.not_finite", name=name, value=value), field)
        exponent = value.as_tuple().exponent
        assert isinstance(exponent, int)  # finite
        value_places = max(0, -exponent)
        if value_places > MAX_PLACES:
            raise TransferError(Message("balances.places", name=name, value=f"{value:f}",
                                        places=value_places, max=MAX_PLACES), field)
        if value and value.adjusted() > _MAX_ADJUSTED:
            raise TransferError(Message("balances.too_large", name=name, value=f"{value:f}"),
                                field)
        places = max(places, value_places)
        checked.append((name, value, exponent))
    checked.sort(key=lambda item: item[0])
    return [(name, _to_units(value, exponent, places)) for name, value, exponent in checked], places


def _to_units(value: Decimal, exponent: int, places: int) -> int:
    """``value`` as a whole number of ``10**-places`` (exact: ``places >= -exponent``)."""
    sign, digits, _ = value.as_tuple()
    units = 0
    for digit in digits:
        units = units * 10 + digit
    scale: int = 10 ** (exponent + places)
    units *= scale
    return -units if sign else units


def _to_decimal(units: int, places: int) -> Decimal:
    """``units`` of ``10**-places`` as a Decimal with exactly ``places`` places (no rounding)."""
    return Decimal(f"{units}E-{places}")


# --- grouping ------------------------------------------------------------------------------


def _cancel_pairs(
    people: Sequence[tuple[str, int]],
) -> tuple[list[tuple[str, str, int]], list[tuple[str, int]]]:
    """Pair exact opposites in name order: one transfer each, and the people left over."""
    waiting: dict[int, deque[int]] = {}
    partner: dict[int, int] = {}
    for index, (_, units) in enumerate(people):
        queue = waiting.get(-units)
        if queue:
            other = queue.popleft()
            partner[index] = other
            partner[other] = index
        else:
            waiting.setdefault(units, deque()).append(index)
    transfers: list[tuple[str, str, int]] = []
    for index, other in partner.items():
        name, units = people[index]
        if units < 0:
            transfers.append((name, people[other][0], -units))
    rest = [person for index, person in enumerate(people) if index not in partner]
    return transfers, rest


def _exact_groups(values: Sequence[int]) -> list[list[int]]:
    """A partition of ``values`` (summing to zero) into the most zero-sum groups, as indices."""
    n = len(values)
    if n == 0:
        return []
    size = 1 << n
    full = size - 1
    zero_sum = _zero_sum_masks(values)
    # without[i]: the bitset of masks that do not contain person i.
    without: list[int] = []
    for i in range(n):
        width = 1 << i
        pattern = (1 << width) - 1
        length = width << 1
        while length < size:
            pattern |= pattern << length
            length <<= 1
        without.append(pattern)
    shifts = [(mask, 1 << i) for i, mask in enumerate(without)]

    levels = [zero_sum]  # levels[t - 1] is L_t
    level = zero_sum
    while True:
        up = level
        for mask, width in shifts:
            up |= (up & mask) << width
        strictly_up = 0
        for mask, width in shifts:
            strictly_up |= (up & mask) << width
        level = zero_sum & strictly_up
        if not (level >> full) & 1:
            break
        levels.append(level)

    groups: list[list[int]] = []
    current = full
    for below in reversed(levels[:-1]):
        inside = 1 << current
        for i in range(n):
            if (current >> i) & 1:
                inside |= (inside & ~without[i]) >> (1 << i)
        candidates = below & inside & ~(1 << current)
        smaller = (candidates & -candidates).bit_length() - 1
        groups.append(_members(current ^ smaller, n))
        current = smaller
    groups.append(_members(current, n))
    return groups


def _zero_sum_masks(values: Sequence[int]) -> int:
    """The bitset of non-empty masks of ``values`` whose sum is zero (bit ``m`` for mask ``m``)."""
    n = len(values)
    low_count = min(n, max(3, n // 2))
    low_sums = _subset_sums(values[:low_count])
    high_sums = _subset_sums(values[low_count:])
    by_sum: dict[int, int] = {}
    for mask, total in enumerate(low_sums):
        by_sum[total] = by_sum.get(total, 0) | (1 << mask)
    block_bytes = max(1, (1 << low_count) >> 3)
    blocks = {total: bits.to_bytes(block_bytes, "little") for total, bits in by_sum.items()}
    empty = bytes(block_bytes)
    bitset = int.from_bytes(b"".join([blocks.get(-total, empty) for total in high_sums]), "little")
    return bitset & ~1


def _subset_sums(values: Sequence[int]) -> list[int]:
    """``sums[m]`` is the sum of ``values[i]`` for the bits ``i`` of ``m``."""
    sums = [0]
    for value in values:
        sums += [total + value for total in sums]
    return sums


def _members(mask: int, n: int) -> list[int]:
    return [i for i in range(n) if (mask >> i) & 1]


def _heuristic_groups(values: Sequence[int]) -> list[list[int]]:
    """Zero-sum triples taken greedily, then the rest exactly if small enough, else one block."""
    n = len(values)
    by_value: dict[int, list[int]] = {}
    for index, value in enumerate(values):
        by_value.setdefault(value, []).append(index)
    used = [False] * n
    groups: list[list[int]] = []
    for i in range(n):
        if used[i]:
            continue
        for j in range(i + 1, n):
            if used[j]:
                continue
            k = next(
                (k for k in by_value.get(-values[i] - values[j], ()) if k > j and not used[k]),
                None,
            )
            if k is not None:
                used[i] = used[j] = used[k] = True
                groups.append([i, j, k])
                break
    left = [i for i in range(n) if not used[i]]
    if len(left) <= EXACT_LIMIT:
        sub_groups = _exact_groups([values[i] for i in left])
        groups.extend([left[i] for i in group] for group in sub_groups)
    elif left:
        groups.append(left)
    return groups


# --- paying --------------------------------------------------------------------------------


def _settle_greedily(people: Sequence[tuple[str, int]]) -> list[tuple[str, str, int]]:
    """Settle a zero-sum group: the largest debtor pays the largest creditor, ties by name.

    Every transfer brings at least one of the two to zero and the last brings both, so ``k``
    people need at most ``k - 1`` transfers; a debtor only pays and a creditor only receives.
    """
    debtors = [(units, name) for name, units in people if units < 0]
    creditors = [(-units, name) for name, units in people if units > 0]
    heapq.heapify(debtors)
    heapq.heapify(creditors)
    transfers: list[tuple[str, str, int]] = []
    while debtors and creditors:
        debt, payer = heapq.heappop(debtors)
        credit, payee = heapq.heappop(creditors)
        amount = min(-debt, -credit)
        transfers.append((payer, payee, amount))
        if debt + amount:
            heapq.heappush(debtors, (debt + amount, payer))
        if credit + amount:
            heapq.heappush(creditors, (credit + amount, payee))
    return transfers
