"""A verified token is not verified again: a small bounded cache in front of ``verify_token``.

Every call of a connection carries the same bearer token, so checking its signature on
every call repeats work whose answer cannot change until the token expires. The cache
maps the token's exact text to the identity its verification gave and the expiry its
claims name; a hit after that expiry is dropped and verified again (which then refuses
it as expired). Only successes are kept: a refused token is checked afresh each time, so
nothing is learnt from a cache about tokens that were never valid. The oldest entry goes
when the cache is full.

It wraps any ``verify(token) -> Identity`` (HS256 today, public-key signatures
tomorrow) and reads the expiry from the token's payload only after that function has
accepted the token, so it trusts nothing the verifier did not.
"""

from __future__ import annotations

import base64
import binascii
import json
import time
from collections import OrderedDict
from collections.abc import Callable

from parlor.kit.auth import Identity

DEFAULT_SIZE = 4096


def _expiry(token: str) -> float | None:
    """The ``exp`` claim of a token that has already been verified, or None if unreadable."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    payload = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        claims = json.loads(base64.urlsafe_b64decode(payload))
    except (binascii.Error, ValueError):
        return None
    exp = claims.get("exp") if isinstance(claims, dict) else None
    return float(exp) if isinstance(exp, int | float) and not isinstance(exp, bool) else None


class CachedVerifier:
    """``verify`` with the identities of recently verified tokens remembered until they expire."""

    def __init__(
        self,
        verify: Callable[[str], Identity],
        size: int = DEFAULT_SIZE,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if size < 1:
            raise ValueError("the cache needs room for at least one token")
        self._verify = verify
        self._size = size
        self._clock = clock
        self._known: OrderedDict[str, tuple[Identity, float]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._known)

    def __call__(self, token: str) -> Identity:
        entry = self._known.get(token)
        if entry is not None:
            identity, expires = entry
            if self._clock() < expires:
                self.hits += 1
                self._known.move_to_end(token)
                return identity
            del self._known[token]
        self.misses += 1
        identity = self._verify(token)  # raises for a bad or expired token: nothing is kept
        expiry = _expiry(token)
        if expiry is not None:
            self._known[token] = (identity, expiry)
            if len(self._known) > self._size:
                self._known.popitem(last=False)
        return identity
