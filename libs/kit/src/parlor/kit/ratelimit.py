"""Per-caller rate limits: a token bucket per player, so one client cannot starve the others.

Trusted services (tokens with the ``service`` role) are not limited. A caller
over the limit gets ``RESOURCE_EXHAUSTED`` with reason ``RATE_LIMITED`` and
the seconds to wait in the error's metadata.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from parlor.core.errors import ResourceExhausted
from parlor.kit.settings import setting


@dataclass(frozen=True)
class RateLimitSettings:
    per_second: float = setting(
        "PARLOR_RATE_LIMIT_PER_SECOND", "calls per second each player may make (0: no limit)", 50.0
    )
    burst: int = setting("PARLOR_RATE_LIMIT_BURST", "calls a player may make at once", 100)


class RateLimiter:
    """Token buckets keyed by caller; the least recently seen are forgotten beyond ``max_keys``."""

    def __init__(
        self,
        settings: RateLimitSettings,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 100_000,
    ) -> None:
        self.rate = settings.per_second
        self.burst = float(settings.burst)
        self.clock = clock
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def check(self, key: str) -> None:
        """Take one token for ``key`` or raise ResourceExhausted."""
        if self.rate <= 0:
            return
        now = self.clock()
        tokens, last = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            wait = (1 - tokens) / self.rate
            raise ResourceExhausted(
                f"too many calls: at most {self.rate:g} per second; retry in {wait:.2f} s",
                reason="RATE_LIMITED",
                metadata={"retry_after_seconds": f"{wait:.3f}"},
            )
        self._buckets[key] = (tokens - 1, now)
        if len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
