"""Built-in accounts' passwords, and the guard against guessing them (pure rules).

**A password** is kept only as its Argon2id hash (made by the service: a hash needs
randomness, its salt), in the account's own password stream (``PasswordSet``). What a
password may be: 10 to 128 characters once NFC-normalised (NIST SP 800-63B: length, not
composition rules).

**The guard** (one stream per handle's skeleton, ``accountguard-<key>``, whether an
account holds the handle or not, so a handle nobody has is guarded exactly like one
somebody has): every attempt is counted *before* its password is checked
(``GuessCounted``, appended with the stream's expected version, so attempts made at once
on several replicas are all counted), and a right password clears the count
(``GuessesCleared``). An attempt is answered no sooner than ``delay`` after it arrives
(doubling with each attempt counted in the window), and once ``max_attempts`` are counted
in ``window`` the handle is locked for ``lockout`` after the last of them: no password is
checked then, the right one neither.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from parlor.core.errors import InvalidArgument

MIN_PASSWORD = 10
MAX_PASSWORD = 128


def check_password(raw: str) -> str:
    """The password as it is hashed (NFC), or InvalidArgument with the reason."""
    if len(raw) > 4 * MAX_PASSWORD:
        raise InvalidArgument(
            f"a password has at most {MAX_PASSWORD} characters", reason="PASSWORD_TOO_LONG"
        )
    text = unicodedata.normalize("NFC", raw)
    if len(text) < MIN_PASSWORD:
        raise InvalidArgument(
            f"a password has at least {MIN_PASSWORD} characters", reason="PASSWORD_TOO_SHORT"
        )
    if len(text) > MAX_PASSWORD:
        raise InvalidArgument(
            f"a password has at most {MAX_PASSWORD} characters", reason="PASSWORD_TOO_LONG"
        )
    return text


@dataclass(frozen=True)
class PasswordSet:
    """The account's password, as its Argon2id hash (PHC string: parameters, salt, hash)."""

    hash: str
    set_at: int


PASSWORD_EVENT_TYPES: dict[str, type[PasswordSet]] = {"PasswordSet": PasswordSet}


# -- the guard -------------------------------------------------------------------------------


@dataclass(frozen=True)
class GuessCounted:
    at: int


@dataclass(frozen=True)
class GuessesCleared:
    at: int


GuardEvent = GuessCounted | GuessesCleared
GUARD_EVENT_TYPES: dict[str, type[GuardEvent]] = {
    "GuessCounted": GuessCounted,
    "GuessesCleared": GuessesCleared,
}


@dataclass(frozen=True)
class Guard:
    attempts: tuple[int, ...] = ()
    """When each attempt since the last right password was made."""


def evolve_guard(state: Guard, event: GuardEvent) -> Guard:
    if isinstance(event, GuessCounted):
        return Guard((*state.attempts, event.at))
    return Guard()


@dataclass(frozen=True)
class GuardPolicy:
    max_attempts: int = 5
    window: int = 900
    lockout: int = 900
    first_delay: float = 0.25
    max_delay: float = 4.0


@dataclass(frozen=True)
class Verdict:
    locked_until: int = 0
    """Nonzero: locked, no password checked until then."""
    delay: float = 0.0
    """How long after it arrived this attempt is answered, at the soonest."""


def guard_verdict(state: Guard, now: int, policy: GuardPolicy) -> Verdict:
    """Whether an attempt made ``now`` is checked, and how slowly it is answered."""
    times, n = state.attempts, policy.max_attempts
    # Locked by the attempt that made ``max_attempts`` within a window, for the lockout.
    locks = [
        times[i] + policy.lockout
        for i in range(n - 1, len(times))
        if times[i] - times[i - n + 1] < policy.window
    ]
    if locks and now < max(locks):
        return Verdict(locked_until=max(locks))
    recent = [t for t in times if now - t < policy.window]
    if not recent:
        return Verdict()
    return Verdict(delay=min(policy.max_delay, policy.first_delay * 2 ** (len(recent) - 1)))
