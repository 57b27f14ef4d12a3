"""Calling again when it is safe: idempotent calls are retried on UNAVAILABLE and deadlines.

A Parlor command carries a ``command_id``: the server applies it once and answers a
repeat with the first answer, so a command whose reply was lost is simply sent again
with the same id. Reads (``Get*``, ``List*``...) are always safe. Anything else (a new
ticket, a lobby) is sent once: a lost reply there is the caller's to resolve.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import grpc

from parlor.client.errors import ParlorError, error_from

R = TypeVar("R")

RETRIED = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.ABORTED}
)
"""Codes worth another try (ABORTED: ``TOO_MANY_CONFLICTS``, which says "retry")."""

READS = ("Get", "List", "Watch", "Replay", "Export", "Check")
"""Method name prefixes of calls that change nothing."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently an idempotent call is tried (exponential backoff, jitter)."""

    attempts: int = 4
    first_backoff: float = 0.1
    max_backoff: float = 2.0
    multiplier: float = 2.0
    timeout: float | None = 10.0
    """Seconds for each attempt (None: no deadline); a deadline missed is retried too."""

    def backoff(self, attempt: int) -> float:
        """The pause before attempt ``attempt + 1`` (``attempt`` counts from 1)."""
        ceiling = min(self.max_backoff, self.first_backoff * self.multiplier ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)


NO_RETRY = RetryPolicy(attempts=1)


def idempotent(method_name: str, request: object) -> bool:
    """A read, or a command with a command id (a repeat returns the first answer)."""
    if method_name.startswith(READS):
        return True
    return bool(getattr(request, "command_id", ""))


async def call_with_retries(
    attempt: Callable[[float | None], Awaitable[R]],
    policy: RetryPolicy,
    retry: bool,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> R:
    """Run ``attempt(timeout)``; a gRPC failure becomes a :class:`ParlorError`.

    With ``retry``, failures whose code is in :data:`RETRIED` are tried again, up to
    ``policy.attempts`` in all; the last one raised.
    """
    tries = policy.attempts if retry else 1
    for number in range(1, tries + 1):
        try:
            return await attempt(policy.timeout)
        except grpc.RpcError as exc:
            error: ParlorError = error_from(exc)
            if number == tries or exc.code() not in RETRIED:  # type: ignore[attr-defined]
                raise error from exc
        await sleep(policy.backoff(number))
    raise AssertionError("unreachable")  # pragma: no cover
