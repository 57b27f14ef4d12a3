"""One seat's command, from its arrival to what followed it, read top to bottom in one place.

``Pipeline.handle(game_id, command)`` is the path of every command a seat sends, a
person's through gRPC or a bot runner's bot: the gate (no seat in the game: refused before
it waits for the game's turn), the seat resolved once, the game's turn, the decision on the
latest state (``GameHost.execute``: the body built for the seat, the outside answers it
declares it needs, the clocks), then the platform's own turns that follow it (``after``:
the game's next command, the bots). Before it, a move went to and fro between the
servicer and the host as a closure, and its seat was resolved three times.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from parlor.core.errors import ParlorError
from parlor.gamehost.command import Command
from parlor.gamehost.host import GameHost, Outcome, Recorded
from parlor.gamehost.seating import Table

T = TypeVar("T", bound=Table[Any])
E = TypeVar("E")

Answer = Callable[[Any, Any, Callable[[], float | None]], Awaitable[Any]]
"""The game's outside answers: (game state, engine command, time left) -> the command
carrying them (a word game's dictionary verdicts on the words it is decided by)."""


@dataclass(frozen=True)
class Handled(Generic[T, E]):
    """What a command did: the outcome after it and what followed it, the seat it acted
    for, and the events a reply to its sender carries (``Pipeline.reply_records``)."""

    outcome: Outcome[T, E]
    seat: int
    records: list[Recorded[E]]


class Pipeline(Generic[T, E]):
    """The command path of one game type.

    ``turn(game_id)`` is held around the decision (a game's queue, Take Four's); ``private``
    says whether a game is hidden from those outside it (they hear it does not exist);
    ``after`` makes the platform's own commands that follow a command (the game's next
    one, the bots' turns); ``refused`` is told of a refused command (a bot owed its move
    moves in the background); ``answer`` gets a command's outside answers (None: the game
    needs none); ``simultaneous``: seats act at once, a reply shows only the sender's own.
    """

    def __init__(
        self,
        host: GameHost[T, Any, E],
        *,
        turn: Callable[[str], contextlib.AbstractAsyncContextManager[None]],
        private: Callable[[str], Awaitable[bool]],
        not_found: Callable[[str], ParlorError],
        after: Callable[[str, Outcome[T, E]], Awaitable[Outcome[T, E]]],
        refused: Callable[[str], Awaitable[None]],
        answer: Answer | None = None,
        simultaneous: bool = False,
    ) -> None:
        self.host = host
        self.turn = turn
        self.private = private
        self.not_found = not_found
        self.after = after
        self.refused = refused
        self.answer = answer
        self.simultaneous = simultaneous

    async def handle(self, game_id: str, command: Command) -> Handled[T, E]:
        """Decide ``command`` for its seat, then what follows it (``after``).

        A command id already in the stream is answered with its stored outcome, even when
        deciding again failed, but only to a holder of the seat: a seat the actor may not
        act for is refused as it was when first resolved, or a replayed id would show them
        someone else's rack.
        """
        # Seats never change once the game is created: a caller with none is refused here,
        # before waiting for the game's turn, so no one outside a game can queue commands
        # on it ahead of its players (each holding its turn for reads of the store).
        table, _ = await self.host.latest(game_id)
        outside = bool(table.seats) and not table.seats_of(command.actor)
        if outside and await self.private(game_id):
            raise self.not_found(game_id)
        seat: int | None = None
        unseated: ParlorError | None = None
        try:
            seat = table.seat_of(command.actor, command.seat)  # the one resolution
        except ParlorError as refusal:
            if outside:
                raise  # NOT_SEATED and the like: before the game's turn
            unseated = refusal  # a seat not theirs: refused by the decision, as any refusal

        async def decided(state: T) -> Any:
            if command.check is not None:
                command.check(state)
            if unseated is not None:
                raise unseated
            assert seat is not None
            return await self.built(command, state, seat)

        arrived = command.arrived or self.host.now()  # not charged its wait for the turn
        try:
            async with self.turn(game_id):
                moved = await self.host.execute(
                    game_id,
                    decided,
                    command_id=command.command_id,
                    actor=command.actor,
                    arrived=arrived,
                    fingerprint=command.fingerprint,
                )
        except ParlorError:
            await self.refused(game_id)
            raise
        if unseated is not None:
            raise unseated  # a stored outcome, of a seat the caller may not act for
        assert seat is not None
        followed = await self.after(game_id, moved)
        return Handled(followed, seat, await self.reply_records(game_id, moved, followed))

    async def built(self, command: Command, state: T, seat: int) -> Any:
        """The engine's command ``command`` asks for on ``state``, for ``seat``: its body,
        with the outside answers it needs about that very state (``asks``), bounded by the
        caller's time left (a retry after a conflict asks again, so no answer is stale)."""
        made = command.body(state, seat)
        built = await made if inspect.isawaitable(made) else made
        if command.asks and self.answer is not None:
            built = await self.answer(state.game, built, command.remaining)
        return built

    async def reply_records(
        self, game_id: str, moved: Outcome[T, E], followed: Outcome[T, E]
    ) -> list[Recorded[E]]:
        """The events a command's reply carries: every one from the command's first to the
        last of what followed it (bots' moves, timeouts on the way), from the outcomes'
        records where they hold them. In a game where seats act at once (``simultaneous``),
        only the command's own events and those of its follow-up, not others' between."""
        first = moved.version - len(moved.events) + 1
        if not self.simultaneous:
            return await self.host.recorded(game_id, first, followed.version, moved, followed)
        mine: list[Recorded[E]] = []
        if moved.events:
            mine = await self.host.recorded(game_id, first, moved.version, moved)
        if followed.events and followed is not moved:
            then = followed.version - len(followed.events) + 1
            mine += await self.host.recorded(game_id, then, followed.version, followed)
        return mine
