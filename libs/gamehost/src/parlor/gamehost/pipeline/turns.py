"""The bots' turns the pipeline plays (``Bots``), from the game's value: a bot of a level is
the game's pure strategy (``Strategies.bot``: ``parlor.rules.<game>.hosting``), thought in
the process's bot workers where the game says its bots think (``thinking``: off the event
loop and its GIL), from a seed drawn here. A game whose bots need outside answers gives
its own ``Bots`` (Upwords': its word graph, the dictionary's verdicts); ``NO_BOTS`` for a
host's pipeline with nothing of a game's (``Pipeline.bare``). What a game is to the host
beside its engine is said here too (``Hosting``), below the registry that names it."""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from parlor.core.errors import FailedPrecondition
from parlor.gamehost.bots.thinking import think
from parlor.gamehost.record.chance import Shuffle
from parlor.gamehost.record.command import OwnBody

BotCommand = OwnBody
"""A command the platform makes itself, as a coroutine function of the state it is decided
on (a bot's move, a round dealt)."""
Strategy = Callable[[Any, int, random.Random], Any]
"""A bot of one level as the rules give it: (the engine's state, its seat, a random source
the platform seeds) -> its command; pure, and picklable (the host thinks it in its bot
workers, ``parlor.gamehost.bots.thinking``)."""


class Hosting(Protocol):
    """A game as the platform hosts it, beyond its engine: one value in its rules package
    (``parlor.rules.<game>.hosting.GAME``), free of protobuf. ``create`` is the engine's
    create command for a config (None: the defaults, a match's) and the seats' players (and
    which are bots); ``opening`` the chance step that opens the game (Upwords' bags), whose
    order the platform draws (``chance.drawn``), None: none; ``bots_think``: its bots are
    thought in the host's bot workers, else inline."""

    @property
    def bots_think(self) -> bool: ...

    def create(self, config: Any, players: tuple[str, ...], bots: tuple[bool, ...]) -> Any: ...

    def opening(self, create: Any) -> Shuffle | None: ...


@runtime_checkable
class Strategies(Protocol):
    """A ``Hosting`` whose bots the host plays one command at a time: ``bot(level)``."""

    def bot(self, level: str) -> Strategy: ...


@runtime_checkable
class Exports(Protocol):
    """A ``Hosting`` that writes a game's whole export itself (Take Four's text names its id,
    lexicon, seats and finish; refused while the game is on): from the engine's state, its
    own events in order, the platform's seat tags and how it finished (reason, each seat's
    rank; None: not finished; ``export.export_parts``)."""

    def export(
        self,
        game_id: str,
        state: Any,
        moves: Sequence[Any],
        seat_lines: Sequence[str],
        finished: tuple[str, Sequence[int]] | None,
    ) -> str: ...


class Bots:
    """The bots of a game as the pipeline plays them (``Pipeline.play_bots``): ``command``
    for a seat's bot of a level; at most ``max_moves`` in a row after one command; a move
    that failed (a dependency down) tried again after each of ``retry_seconds`` (a read
    never moves a bot; the sweeper also plays a timed game's bots when its clock comes due).
    """

    def __init__(
        self,
        hosting: Hosting | None,
        *,
        max_moves: int = 500,
        retry_seconds: Sequence[float] = (1.0, 4.0, 15.0, 60.0, 240.0),
    ) -> None:
        self.hosting = hosting
        self.max_moves = max_moves
        self.retry_seconds = retry_seconds

    def command(self, seat: int, level: str) -> BotCommand:
        """The bot's command, as a coroutine function of the state it is decided on: the
        game's bot of ``level``; NO_BOTS if the game has none of its own (a runner's)."""
        if not isinstance(self.hosting, Strategies):
            raise FailedPrecondition("this game has no bots of its own", reason="NO_BOTS")
        strategy, thinks = self.hosting.bot(level), self.hosting.bots_think

        async def move(table: Any) -> Any:
            rng = random.Random(secrets.randbits(64))
            if thinks:
                return await think(strategy, table.game, seat, rng)
            return strategy(table.game, seat, rng)

        return move


NO_BOTS = Bots(None, max_moves=0, retry_seconds=())
"""A game that plays no bots of its own here (``Pipeline.bare``)."""
