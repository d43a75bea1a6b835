"""Tests for the fewest-transfers settle-up (app.core.transfers): exact money, minimality."""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core import transfers as transfers_module
from app.core.messages import as_sent
from app.core.transfers import (
    EXACT_LIMIT,
    Transfer,
    TransferError,
    fewest_transfers,
)


def money(**balances: str | int) -> dict[str, Decimal]:
    return {name: Decimal(value) for name, value in balances.items()}


def applied(balances: Mapping[str, Decimal], result: tuple[Transfer, ...]) -> dict[str, Decimal]:
    """The balances after every transfer is paid."""
    after = dict(balances)
    for transfer in result:
        after[transfer.payer] += transfer.amount
        after[transfer.payee] -= transfer.amount
    return after


@functools.cache
def most_zero_sum_groups(values: tuple[int, ...]) -> int:
    """Exhaustive search: the most disjoint zero-sum groups that partition ``values``.

    ``values`` sums to zero and holds no zero. The first value's group is tried with every
    subset of the others that brings it to zero, and the rest is searched the same way.
    """
    if not values:
        return 0
    first, others = values[0], values[1:]
    best = 0
    for size in range(1, len(others) + 1):
        for chosen in itertools.combinations(range(len(others)), size):
            if first + sum(others[i] for i in chosen) == 0:
                rest = tuple(sorted(v for i, v in enumerate(others) if i not in chosen))
                best = max(best, 1 + most_zero_sum_groups(rest))
    return best


def fewest_by_search(balances: Mapping[str, Decimal]) -> int:
    values = tuple(sorted(int(value * 100) for value in balances.values() if value))
    return len(values) - most_zero_sum_groups(values)


def assert_settles(balances: Mapping[str, Decimal], result: tuple[Transfer, ...]) -> None:
    """Every balance ends at exactly zero; debtors only pay, creditors only receive."""
    assert all(value == 0 for value in applied(balances, result).values())
    for transfer in result:
        assert isinstance(transfer.amount, Decimal)
        assert transfer.amount > 0
        assert balances[transfer.payer] < 0
        assert balances[transfer.payee] > 0
    payers = {t.payer for t in result}
    payees = {t.payee for t in result}
    assert not payers & payees
    pairs = [(t.payer, t.payee) for t in result]
    assert len(pairs) == len(set(pairs))


# --- known cases -----------------------------------------------------------------------------


def test_defeats_greedy_matching() -> None:
    balances = money(a=-4, b=-3, c=-3, d=6, e=4)
    result = fewest_transfers(balances)
    assert len(result) == 3
    assert result == (
        Transfer("a", "e", Decimal(4)),
        Transfer("b", "d", Decimal(3)),
        Transfer("c", "d", Decimal(3)),
    )


def test_defeats_greedy_without_opposite_pairs() -> None:
    # Largest debtor to largest creditor needs 5; {+8, -7, -1} and {-9, +6, +3} need 4.
    balances = money(a=8, b=-9, c=6, d=-7, e=3, f=-1)
    result = fewest_transfers(balances)
    assert len(result) == 4
    assert_settles(balances, result)
    assert {frozenset((t.payer, t.payee)) for t in result} <= {
        frozenset(pair) for group in ("adf", "bce") for pair in itertools.combinations(group, 2)
    }


def test_one_pair() -> None:
    assert fewest_transfers(money(Ann="-10", Bob="10")) == (Transfer("Ann", "Bob", Decimal(10)),)


def test_amounts_keep_the_places_of_the_input() -> None:
    (transfer,) = fewest_transfers(money(Ann="4.50", Bob="-4.50"))
    assert transfer == Transfer("Bob", "Ann", Decimal("4.50"))
    assert str(transfer.amount) == "4.50"


def test_mixed_places_use_the_most_places() -> None:
    result = fewest_transfers(money(Ann="1.5", Bob="-1.25", Cy="-0.250"))
    assert [str(t.amount) for t in result] == ["1.250", "0.250"]
    assert result == (
        Transfer("Bob", "Ann", Decimal("1.25")),
        Transfer("Cy", "Ann", Decimal("0.25")),
    )


def test_whole_amounts_stay_whole() -> None:
    (transfer,) = fewest_transfers(money(Ann=7, Bob=-7, Cy=0))
    assert str(transfer.amount) == "7"


def test_pairs_cancel_by_name() -> None:
    result = fewest_transfers(money(a="5", b="5", c="-5", d="-5"))
    assert result == (Transfer("c", "a", Decimal(5)), Transfer("d", "b", Decimal(5)))


def test_three_way() -> None:
    result = fewest_transfers(money(Ann="-30.00", Bob="10.00", Cy="20.00"))
    assert result == (
        Transfer("Ann", "Bob", Decimal("10.00")),
        Transfer("Ann", "Cy", Decimal("20.00")),
    )


def test_one_debtor_many_creditors() -> None:
    balances = money(Zed="-10.00", a="1.00", b="2.00", c="3.00", d="4.00")
    result = fewest_transfers(balances)
    assert len(result) == 4
    assert {t.payer for t in result} == {"Zed"}
    assert {t.payee: t.amount for t in result} == {
        "a": Decimal("1.00"),
        "b": Decimal("2.00"),
        "c": Decimal("3.00"),
        "d": Decimal("4.00"),
    }


def test_one_creditor_many_debtors() -> None:
    balances = money(Zed="6", a="-1", b="-2", c="-3")
    result = fewest_transfers(balances)
    assert len(result) == 3
    assert_settles(balances, result)


def test_greedy_ties_are_broken_by_name() -> None:
    result = fewest_transfers(money(b="-2", a="-2", d="1", c="3"))
    assert result == (
        Transfer("a", "c", Decimal(2)),
        Transfer("b", "c", Decimal(1)),
        Transfer("b", "d", Decimal(1)),
    )


def test_all_zeros() -> None:
    assert fewest_transfers(money(Ann="0.00", Bob="0", Cy="-0.00")) == ()


def test_empty() -> None:
    assert fewest_transfers({}) == ()


def test_zero_balances_take_no_part() -> None:
    result = fewest_transfers(money(Ann="-3", Bob="0", Cy="3"))
    assert result == (Transfer("Ann", "Cy", Decimal(3)),)


def test_many_small_groups_at_the_exact_limit() -> None:
    # EXACT_LIMIT people in groups of 3 (the last of 3 to 5): with no zeros and no opposite
    # pairs every group has at least 3 people, so these groups are the most there can be.
    sizes = [3] * (EXACT_LIMIT // 3 - 1) + [3 + EXACT_LIMIT % 3]
    rng = random.Random(7)
    while True:
        values: list[int] = []
        for size in sizes:
            group = [rng.randint(1, 10**6) for _ in range(size - 1)]
            values += [*group, -sum(group)]
        if not any(-v in values for v in values):
            break
    rng.shuffle(values)
    balances = {f"p{i:02}": Decimal(v) for i, v in enumerate(values)}
    result = fewest_transfers(balances)
    assert len(result) == EXACT_LIMIT - len(sizes)
    assert_settles(balances, result)


# --- errors ----------------------------------------------------------------------------------


def test_balances_that_do_not_add_up() -> None:
    with pytest.raises(TransferError) as caught:
        fewest_transfers(money(Ann="4.50", Bob="-4.45"))
    assert str(caught.value) == "the balances do not add up to zero: they sum to 0.05"
    assert caught.value.field == "balances"


def test_negative_sum_is_named() -> None:
    with pytest.raises(TransferError, match="they sum to -3$"):
        fewest_transfers(money(Ann="-4", Bob="1"))


def test_too_many_places() -> None:
    with pytest.raises(TransferError) as caught:
        fewest_transfers(money(Ann="0.0000001", Bob="-0.0000001"))
    assert str(caught.value) == (
        "Ann's balance 0.0000001 has 7 decimal places; at most 6 are allowed"
    )
    assert caught.value.field == "balances.Ann"


def test_six_places_are_fine() -> None:
    (transfer,) = fewest_transfers(money(Ann="0.000001", Bob="-0.000001"))
    assert transfer.amount == Decimal("0.000001")


@pytest.mark.parametrize("text", ["NaN", "sNaN", "Infinity", "-Infinity"])
def test_not_a_number(text: str) -> None:
    with pytest.raises(TransferError) as caught:
        fewest_transfers({"Ann": Decimal(text), "Bob": Decimal(0)})
    assert str(caught.value) == f"Ann's balance is not an amount of money: {Decimal(text)}"
    assert caught.value.field == "balances.Ann"


@pytest.mark.parametrize("value", [1.5, 2, True, "3.00", None])
def test_not_a_decimal(value: Any) -> None:
    with pytest.raises(TransferError) as caught:
        fewest_transfers({"Ann": value, "Bob": Decimal(0)})
    assert str(caught.value) == (
        f"Ann's balance must be an exact decimal amount, not {as_sent(value)}"
    )
    assert caught.value.field == "balances.Ann"


def test_too_large() -> None:
    with pytest.raises(TransferError) as caught:
        fewest_transfers(money(Ann="1E15", Bob="-1E15"))
    assert str(caught.value) == "Ann's balance 1000000000000000 is too large to be money"


def test_error_is_a_value_error() -> None:
    assert issubclass(TransferError, ValueError)


# --- properties ------------------------------------------------------------------------------


@st.composite
def small_tables(draw: st.DrawFn, most: int = 9) -> dict[str, Decimal]:
    """Up to ``most`` people, integer cents summing to zero (small ranges make many groups)."""
    count = draw(st.integers(1, most))
    reach = draw(st.sampled_from([3, 10, 40, 100_000]))
    cents = draw(st.lists(st.integers(-reach, reach), min_size=count - 1, max_size=count - 1))
    cents.append(-sum(cents))
    names = draw(
        st.lists(
            st.text(alphabet="abcXYZ é", min_size=1, max_size=3),
            min_size=count,
            max_size=count,
            unique=True,
        )
    )
    return {name: Decimal(f"{c}E-2") for name, c in zip(names, cents, strict=True)}


@settings(max_examples=300, deadline=None)
@given(balances=small_tables(), seed=st.integers(0, 2**32))
def test_fewest_matches_exhaustive_search(balances: dict[str, Decimal], seed: int) -> None:
    result = fewest_transfers(balances)
    assert len(result) == fewest_by_search(balances)
    assert_settles(balances, result)
    assert all(t.amount.as_tuple().exponent == -2 for t in result)
    shuffled = list(balances.items())
    random.Random(seed).shuffle(shuffled)
    assert fewest_transfers(dict(shuffled)) == result
    assert fewest_transfers(dict(reversed(shuffled))) == result


@settings(max_examples=60, deadline=None)
@given(balances=small_tables())
def test_heuristic_settles_within_n_minus_1(balances: dict[str, Decimal]) -> None:
    # Force the path used above EXACT_LIMIT on tables small enough to search exhaustively.
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(transfers_module, "EXACT_LIMIT", 2)
        result = fewest_transfers(balances)
    nonzero = sum(1 for value in balances.values() if value)
    assert fewest_by_search(balances) <= len(result) <= max(0, nonzero - 1)
    assert_settles(balances, result)


@settings(max_examples=25, deadline=None)
@given(
    count=st.integers(EXACT_LIMIT + 1, 30),
    reach=st.sampled_from([20, 1_000, 10_000_000]),
    data=st.data(),
)
def test_above_exact_limit_settles_within_n_minus_1(
    count: int, reach: int, data: st.DataObject
) -> None:
    cents = data.draw(st.lists(st.integers(-reach, reach), min_size=count - 1, max_size=count - 1))
    cents.append(-sum(cents))
    balances = {f"player {i}": Decimal(f"{c}E-2") for i, c in enumerate(cents)}
    result = fewest_transfers(balances)
    nonzero = sum(1 for value in balances.values() if value)
    assert len(result) <= max(0, nonzero - 1)
    assert_settles(balances, result)
    assert fewest_transfers(dict(reversed(balances.items()))) == result


def test_above_exact_limit_finds_triples() -> None:
    # 10 disjoint triples of distinct values: 30 people, greedy triples give 20 transfers.
    values: list[int] = []
    for a in range(1, 11):
        values += [a, 100 + a, -(100 + 2 * a)]
    balances = {f"p{i:02}": Decimal(v) for i, v in enumerate(values)}
    result = fewest_transfers(balances)
    assert len(result) == 20
    assert_settles(balances, result)
