"""A command as a value: who sends it, for which seat, what, under which id.

A move used to travel as a closure over the gRPC request and context, and the game host
read the caller's fingerprint from the interceptor's context variables deep inside. A
command is a value carrying all of it explicitly, built once where it starts (the gRPC
servicer, a bot runner, the pipeline for the platform's own turns), and handed by name
down to the decider: the pipeline (``parlor.gamehost.pipeline.pipeline``) gives it to
``GameHost.decide``, which asks it for the engine's command on the state it is decided on
(``Issued.made``) and gives that to the rules. What it decides is in the value, nothing
is fetched from around it, and nothing calls back into the code that sent it.

Three kinds, one shape (``Issued``):

- ``Command``: a seat's (a person's through gRPC, a bot runner's bot), its seat resolved
  by the pipeline, its body the game's declared move;
- ``Own``: the platform's own (a bot's move, a round dealt, a walk-away's timeout), under
  a system command id, made on the state it is decided on;
- ``Given``: an engine command ready as it is (a create, the clock's ``Tick``, tools).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from parlor.core.errors import ParlorError

Body = Callable[[Any, int], Any]
"""What the seat asks for, built on the state it is decided on: (table, seat) -> the
engine's command, or an awaitable of it (a bot's thinking)."""
Check = Callable[[Any], None]
"""Refuses a command the state it is decided on has made stale (Take Four: one meant for
another round)."""
Answer = Callable[[Any, Any, Callable[[], float | None]], Awaitable[Any]]
"""The game's outside answers: (game state, engine command, time left) -> the command
carrying them (a word game's dictionary verdicts on the words it is decided by)."""
OwnBody = Callable[[Any], Awaitable[Any]]
"""A command the platform makes itself, as a coroutine function of the state it is decided
on (a bot's move, a round dealt)."""


class Issued(Protocol):
    """What ``GameHost.decide`` asks of a command: who sends it, under which id, and the
    engine's command on the state it is decided on (``made``). ``awaits``: making it may
    take time (a dictionary asked, a bot thinking), so the time it is given is read after."""

    @property
    def actor(self) -> str | None: ...

    @property
    def command_id(self) -> str | None: ...

    @property
    def fingerprint(self) -> str | None: ...

    @property
    def arrived(self) -> datetime | None: ...

    @property
    def awaits(self) -> bool: ...

    async def made(self, state: Any, answer: Answer | None) -> Any: ...


@dataclass(frozen=True)
class Command:
    """One command of a player (or a bot) for their seat, as the pipeline handles it.

    ``seat`` is the seat the actor names (None: their only one), the one it acts for once
    the pipeline has resolved it; ``refusal`` why the actor may not act for it (decided as
    any refusal, on the state); ``fingerprint`` what makes a retry under ``command_id``
    "the same" (the carrying request's, ``parlor.kit.fingerprint``; None: not checked);
    ``arrived`` when it reached the server (the seat's clock is charged from then; None:
    when the pipeline takes it); ``expires`` the caller's deadline on the monotonic clock
    (None: none), which bounds the outside answers it needs; ``asks`` whether it needs the
    game's outside answers (a word game's dictionary verdicts on the words it is decided
    by), which ``made`` gets, on the very state it is decided on.
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
    refusal: ParlorError | None = None

    @property
    def awaits(self) -> bool:
        return True

    def remaining(self) -> float | None:
        """The caller's time left in seconds (None: no deadline)."""
        return None if self.expires is None else self.expires - time.monotonic()

    async def made(self, state: Any, answer: Answer | None) -> Any:
        """The engine's command this asks for on ``state``, for its seat: the ``check``
        first, then its body, with the outside answers it needs about that very state
        (``asks``, given by ``answer``), bounded by the caller's time left (a retry after a
        conflict asks again: no answer is stale)."""
        if self.check is not None:
            self.check(state)
        if self.refusal is not None:
            raise self.refusal
        assert self.seat is not None, "a command's seat is resolved before it is decided"
        made = self.body(state, self.seat)
        made = await made if inspect.isawaitable(made) else made
        if self.asks and answer is not None:
            made = await answer(state.game, made, self.remaining)
        return made


@dataclass(frozen=True)
class Own:
    """A command the platform makes itself, under its system command id
    (``host.system_command_id``): ``body`` makes it on the state it is decided on, after
    ``check`` (refusing one that state has made pointless: the bot's turn passed)."""

    actor: str | None
    command_id: str
    body: OwnBody
    check: Check | None = None

    @property
    def fingerprint(self) -> str | None:
        return None  # a system id is unique by construction: nothing to compare

    @property
    def arrived(self) -> datetime | None:
        return None  # timed when it is decided: the platform's thinking is charged to no one

    @property
    def awaits(self) -> bool:
        return True

    async def made(self, state: Any, answer: Answer | None) -> Any:
        if self.check is not None:
            self.check(state)
        return await self.body(state)


@dataclass(frozen=True)
class Given:
    """An engine command as it is (a create's ``OpenTable``, the clock's ``Tick``, a
    tool's or a test's command)."""

    command: Any
    actor: str | None = None
    command_id: str | None = None
    fingerprint: str | None = None
    arrived: datetime | None = None

    @property
    def awaits(self) -> bool:
        return False

    async def made(self, state: Any, answer: Answer | None) -> Any:
        return self.command


def expires_in(seconds: float | None) -> float | None:
    """The monotonic time ``seconds`` from now (None: no deadline)."""
    return None if seconds is None else time.monotonic() + seconds
