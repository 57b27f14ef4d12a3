import pytest

from parlor.core.errors import ResourceExhausted
from parlor.kit.ratelimit import RateLimiter, RateLimitSettings


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_player_over_the_limit_is_told_when_to_retry() -> None:
    clock = Clock()
    limiter = RateLimiter(RateLimitSettings(per_second=10, burst=3), clock)
    for _ in range(3):
        limiter.check("ada")
    with pytest.raises(ResourceExhausted) as caught:
        limiter.check("ada")
    assert caught.value.reason == "RATE_LIMITED"
    assert float(caught.value.metadata["retry_after_seconds"]) == pytest.approx(0.1)
    limiter.check("bob")  # others are not affected
    clock.now += 0.1
    limiter.check("ada")  # one token came back


def test_zero_rate_means_no_limit() -> None:
    limiter = RateLimiter(RateLimitSettings(per_second=0, burst=1), Clock())
    for _ in range(1000):
        limiter.check("ada")


def test_forgotten_callers_do_not_pile_up() -> None:
    limiter = RateLimiter(RateLimitSettings(per_second=1, burst=1), Clock(), max_keys=10)
    for i in range(100):
        limiter.check(f"player-{i}")
    assert len(limiter._buckets) == 10
