"""Built-in accounts' pure rules: what a password may be, and the guard against guessing."""

from __future__ import annotations

import pytest

from parlor.accounts import (
    Guard,
    GuardPolicy,
    GuessCounted,
    GuessesCleared,
    Verdict,
    check_password,
    evolve_guard,
    guard_verdict,
)
from parlor.core.errors import InvalidArgument

POLICY = GuardPolicy(max_attempts=5, window=900, lockout=900, first_delay=0.25, max_delay=4.0)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("short", "PASSWORD_TOO_SHORT"),
        ("x" * 129, "PASSWORD_TOO_LONG"),
        ("x" * 600, "PASSWORD_TOO_LONG"),
    ],
)
def test_passwords_are_10_to_128_characters(raw: str, reason: str) -> None:
    with pytest.raises(InvalidArgument) as error:
        check_password(raw)
    assert error.value.reason == reason


def test_passwords_are_compared_as_nfc() -> None:
    assert check_password("cafe\u0301 au lait") == check_password("caf\u00e9 au lait")


def test_attempts_are_slowed_then_locked_and_the_lock_passes() -> None:
    guard = Guard()
    verdicts = []
    for at in range(0, 50, 10):
        verdicts.append(guard_verdict(guard, at, POLICY))
        guard = evolve_guard(guard, GuessCounted(at))
    assert [v.delay for v in verdicts] == [0.0, 0.25, 0.5, 1.0, 2.0]
    assert not any(v.locked_until for v in verdicts)
    # five counted: locked for the lockout after the last, the right password neither checked
    assert guard_verdict(guard, 41, POLICY) == Verdict(locked_until=40 + 900)
    assert guard_verdict(guard, 939, POLICY).locked_until == 940
    assert guard_verdict(guard, 940, POLICY) == Verdict()  # passed, and out of the window
    # the lock holds its full time even as the attempts that made it leave the window
    quick = Guard((0, 1, 2, 3, 800))
    assert guard_verdict(quick, 850, POLICY) == Verdict(locked_until=1700)  # 0-800: 5 in 900
    assert guard_verdict(quick, 1650, POLICY).locked_until == 1700
    # a right password clears the count
    assert guard_verdict(evolve_guard(guard, GuessesCleared(45)), 46, POLICY) == Verdict()
