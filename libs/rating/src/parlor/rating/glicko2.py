"""Glicko-2, step by step as in Glickman's "Example of the Glicko-2 system".

Every function is pure and deterministic: the same inputs give the same bits on
every machine, because the operations happen in a fixed order and ``exp``/``ln``
come from ``parlor.rating.portable`` (``sqrt`` is correctly rounded by IEEE-754).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from parlor.core.errors import InvalidArgument
from parlor.rating.portable import exp, ln

SCALE = 173.7178
"""Glicko-2's conversion factor between the Glicko scale and its own (step 2)."""
INITIAL_RATING = 1500.0
INITIAL_RD = 350.0
INITIAL_VOLATILITY = 0.06
TAU = 0.5
"""The system constant: how much volatility may change in one period (0.3-1.2 is sensible)."""
EPSILON = 0.000001
"""Convergence tolerance of the volatility iteration (step 5)."""

_PI_SQUARED = math.pi * math.pi


@dataclass(frozen=True)
class Rating:
    """A player's strength on the Glicko scale: rating, deviation (RD) and volatility."""

    rating: float = INITIAL_RATING
    rd: float = INITIAL_RD
    volatility: float = INITIAL_VOLATILITY

    def __post_init__(self) -> None:
        if not math.isfinite(self.rating):
            raise InvalidArgument("a rating must be a finite number", reason="BAD_RATING")
        if not (math.isfinite(self.rd) and self.rd > 0.0):
            raise InvalidArgument("a rating deviation must be positive", reason="BAD_RATING")
        if not (math.isfinite(self.volatility) and self.volatility > 0.0):
            raise InvalidArgument("a volatility must be positive", reason="BAD_RATING")

    @property
    def conservative(self) -> float:
        """Rating minus two RDs: what leaderboards sort by, so a lucky newcomer does not top it."""
        return self.rating - 2.0 * self.rd


@dataclass(frozen=True)
class Result:
    """One outcome in a rating period: the opponent's pre-period rating, the score, a weight.

    ``score`` is 1 for a win, 0.5 for a draw, 0 for a loss. ``weight`` is 1 in plain
    Glicko-2; the multi-player generalisation gives each pairwise result 1/(n-1).
    """

    opponent: Rating
    score: float
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.score <= 1.0:
            raise InvalidArgument("a score lies between 0 and 1", reason="BAD_SCORE")
        if not (math.isfinite(self.weight) and self.weight > 0.0):
            raise InvalidArgument("a result's weight must be positive", reason="BAD_WEIGHT")


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / _PI_SQUARED)


def _expected(mu: float, mu_j: float, g_j: float) -> float:
    return 1.0 / (1.0 + exp(-g_j * (mu - mu_j)))


def _volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois variant of regula falsi."""
    a = ln(sigma * sigma)
    phi2 = phi * phi
    delta2 = delta * delta
    tau2 = tau * tau

    def f(x: float) -> float:
        ex = exp(x)
        d = phi2 + v + ex
        return ex * (delta2 - phi2 - v - ex) / (2.0 * d * d) - (x - a) / tau2

    big_a = a
    if delta2 > phi2 + v:
        big_b = ln(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0.0:
            k += 1
        big_b = a - k * tau
    f_a = f(big_a)
    f_b = f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0.0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2.0
        big_b, f_b = big_c, f_c
    return exp(big_a / 2.0)


def rate(player: Rating, results: Sequence[Result], *, tau: float = TAU) -> Rating:
    """The player's rating after one rating period with these results (steps 1-8).

    With no results the player only ages by one period (RD grows, step 6), as in the
    paper. The sums run over ``results`` in the order given.
    """
    if not results:
        return idle(player, 1, max_rd=math.inf)
    mu = (player.rating - INITIAL_RATING) / SCALE
    phi = player.rd / SCALE
    information = 0.0
    improvement = 0.0
    for result in results:
        mu_j = (result.opponent.rating - INITIAL_RATING) / SCALE
        g_j = _g(result.opponent.rd / SCALE)
        e_j = _expected(mu, mu_j, g_j)
        information += result.weight * g_j * g_j * e_j * (1.0 - e_j)
        improvement += result.weight * g_j * (result.score - e_j)
    if information == 0.0:
        # Outcomes so certain that they carry no information (e.g. 1500 against 10**6).
        return idle(player, 1, max_rd=math.inf)
    v = 1.0 / information
    delta = v * improvement
    sigma = _volatility(player.volatility, phi, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    return Rating(
        rating=SCALE * new_mu + INITIAL_RATING,
        rd=SCALE * new_phi,
        volatility=sigma,
    )


def idle(player: Rating, periods: float, *, max_rd: float = INITIAL_RD) -> Rating:
    """The rating after ``periods`` rating periods without games: only RD grows.

    Each idle period adds ``volatility**2`` to ``phi**2`` (step 6 with no games), so
    ``periods`` may be fractional. RD never grows past ``max_rd`` (a player never
    becomes less certain than a newcomer), as Glicko-1 prescribes.
    """
    if not (math.isfinite(periods) and periods >= 0.0):
        raise InvalidArgument("idle periods must be a non-negative number", reason="BAD_PERIODS")
    if periods == 0:
        return player
    phi = player.rd / SCALE
    sigma = player.volatility
    rd = SCALE * math.sqrt(phi * phi + periods * (sigma * sigma))
    return Rating(rating=player.rating, rd=min(rd, max(max_rd, player.rd)), volatility=sigma)


def elapsed_periods(last_played: datetime, now: datetime, period: timedelta) -> int:
    """Whole rating periods between two instants (exact integer arithmetic on timedeltas)."""
    if period <= timedelta(0):
        raise InvalidArgument("a rating period must be positive", reason="BAD_PERIODS")
    if now <= last_played:
        return 0
    return (now - last_played) // period
