"""The turns a game takes itself that are still its servicer's (issue 39: until a game is
one value): a bot's command and a matched game's create, as the pipeline asks for them
(``OwnTurns``); ``NoOwnTurns`` for a host's pipeline with no servicer (``Pipeline.bare``).
A game's chance steps are declared by its rules instead (``GameType.chance``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from parlor.core.errors import FailedPrecondition
from parlor.gamehost.command import OwnBody
from parlor.gamehost.host import Outcome
from parlor.matchmaking.v1.events_pb2 import MatchFormed

BotCommand = OwnBody
"""A command the platform makes itself, as a coroutine function of the state it is decided
on (a bot's move, a round dealt)."""


class OwnTurns(Protocol):
    """The turns a game takes itself that are still its servicer's hooks: a bot's command
    and a match's create (its chance steps are declared: ``Pipeline(chance=...)``)."""

    @property
    def max_bot_moves(self) -> int: ...

    @property
    def bot_retry_seconds(self) -> Sequence[float]: ...

    def bot_command(self, seat: int, level: str) -> BotCommand: ...

    async def open_match(self, match: MatchFormed) -> Outcome[Any, Any]:
        """Create a match's game (its id and command id the match's: a redelivery makes
        nothing twice)."""
        ...


class NoOwnTurns:
    """A game that takes no turns of its own (no bots, no matches): the turns of
    ``Pipeline.bare``, a host's pipeline with no servicer (tests, tools)."""

    max_bot_moves = 0
    bot_retry_seconds: Sequence[float] = ()

    def bot_command(self, seat: int, level: str) -> BotCommand:
        raise FailedPrecondition("this game has no bots", reason="NO_BOTS")

    async def open_match(self, match: MatchFormed) -> Outcome[Any, Any]:
        raise FailedPrecondition("this game is not matchmade", reason="NO_MATCHES")
