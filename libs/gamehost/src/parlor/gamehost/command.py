"""A seat's command as a value: who sends it, for which seat, what, under which id.

A move used to travel as a closure over the gRPC request and context, and the game host
read the caller's fingerprint from the interceptor's context variables deep inside. A
``Command`` carries all of it explicitly, built once at the edge (the gRPC servicer, a bot
runner), so the pipeline (``parlor.gamehost.pipeline``) can be read, tested and driven
without gRPC: what it decides is in the value, nothing is fetched from around it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

Body = Callable[[Any, int], Any]
"""What the seat asks for, built on the state it is decided on: (table, seat) -> the
engine's command, or an awaitable of it (a bot's thinking)."""
Check = Callable[[Any], None]
"""Refuses a command the state it is decided on has made stale (Take Four: one meant for
another round)."""


@dataclass(frozen=True)
class Command:
    """One command of a player (or a bot) for their seat, as the pipeline handles it.

    ``seat`` is the seat the actor names (None: their only one); ``fingerprint`` what makes
    a retry under ``command_id`` "the same" (the carrying request's, ``parlor.kit.fingerprint``;
    None: not checked); ``arrived`` when it reached the server (the seat's clock is charged
    from then; None: when the pipeline takes it); ``expires`` the caller's deadline on the
    monotonic clock (None: none), which bounds the outside answers it needs; ``asks``
    whether it needs the game's outside answers (a word game's dictionary verdicts on the
    words it is decided by), which the pipeline gets, on the very state it is decided on.
    """

    actor: str
    body: Body
    seat: int | None = None
    command_id: str | None = None
    fingerprint: str | None = None
    check: Check | None = None
    asks: bool = False
    arrived: datetime | None = None
    expires: float | None = None

    def remaining(self) -> float | None:
        """The caller's time left in seconds (None: no deadline)."""
        return None if self.expires is None else self.expires - time.monotonic()


def expires_in(seconds: float | None) -> float | None:
    """The monotonic time ``seconds`` from now (None: no deadline)."""
    return None if seconds is None else time.monotonic() + seconds
