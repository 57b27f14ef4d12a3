"""One seat's command, from its arrival to what followed it, read top to bottom in one place.

``Pipeline.handle(game_id, command)`` is the path of every command a seat sends, a
person's through gRPC or a bot runner's bot: the gate (no seat in the game: refused before
it waits for the game's turn), the seat resolved once, the game's turn, the decision on the
latest state (``decide``: the command value handed by name to ``GameHost.decide``, which
asks it for the engine's command with the outside answers it declares it needs, and times
it), then the platform's own turns that follow it (``after``: the game's next command, the
bots). Every command of the platform's own goes through ``decide`` too, under a system
command id: the clock's ticks and walk-aways, the game's next command, the bots' moves and
the timeouts that overtake a late command. Before it, a move went to and fro between the
servicer and the host as a closure, its seat was resolved three times, and a late command's
timeouts were appended inside the host's decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, Protocol, TypeVar

from parlor.core.errors import Conflict, FailedPrecondition, ParlorError, PermissionDenied
from parlor.gamehost.host.host import GameHost, Outcome, Overtaken, Recorded
from parlor.gamehost.pipeline.turns import NO_BOTS, BotCommand, Bots
from parlor.gamehost.record.chance import Chance, drawn
from parlor.gamehost.record.command import Answer, Command, Given, Issued, Own
from parlor.gamehost.table.clocks import Tick
from parlor.gamehost.table.seating import Table
from parlor.gametypes.ids import system_command_id
from parlor.matchmaking.v1.events_pb2 import MatchFormed
from parlor.runtime.queue import GameQueue

__all__ = ["CLOCK_ACTOR", "BotCommand", "Bots", "Handled", "Pipeline"]

T = TypeVar("T", bound=Table[Any])
E = TypeVar("E")

log = logging.getLogger("parlor.gamehost.pipeline")

CLOCK_ACTOR = "parlor:clock"
"""The actor of the clock's commands (a sweep's ``Tick``, a walk-away's timeout)."""


class OpensMatches(Protocol):
    """What opens a match's game (``opener.Opener``; its id and command id the match's, so
    a redelivery makes nothing twice)."""

    async def open_match(self, match: MatchFormed) -> Outcome[Any, Any]: ...


@dataclass(frozen=True)
class Handled(Generic[T, E]):
    """What a command did: the outcome after it and what followed it, the seat it acted
    for, and the events a reply to its sender carries (``Pipeline.reply_records``)."""

    outcome: Outcome[T, E]
    seat: int
    records: list[Recorded[E]]


class Pipeline(Generic[T, E]):
    """The command path of one game type: a seat's commands (``handle``) and the
    platform's own that follow them (``after``), each of those under a system command id.

    ``bots`` plays the game's bots (``Bots``: the game's strategies, ``Hosting``);
    ``opener`` opens a match's game (``create_from_match``; None: this pipeline opens none);
    ``to_move`` the seats the engine waits on in a game's state (a bot's turn: ``bot_to_move``);
    ``queue``, if given, serialises this replica's writes to a game (Take Four's); ``private``
    says whether a game is hidden from those outside it (they hear ``not_found``);
    ``answer`` gets a command's outside answers (None: the game needs none);
    ``simultaneous``: seats act at once, a reply shows only the sender's own events;
    ``chance`` the game's chance steps (``GameType.chance``), drawn here (``follow_up``).
    """

    def __init__(
        self,
        host: GameHost[T, Any, E],
        bots: Bots,
        opener: OpensMatches | None = None,
        *,
        to_move: Callable[[Any], Sequence[int]],
        queue: GameQueue | None = None,
        private: Callable[[str], Awaitable[bool]],
        not_found: Callable[[str], ParlorError],
        answer: Answer | None = None,
        simultaneous: bool = False,
        chance: Chance | None = None,
    ) -> None:
        self.host = host
        self.bots = bots
        self.opener = opener
        self.to_move = to_move
        self.queue = queue
        self.private = private
        self.not_found = not_found
        self.answer = answer
        self.simultaneous = simultaneous
        self.chance = chance
        self.watchers: list[Callable[[str, T], None]] = []
        """Told of each game's state after a command or create and what followed it (a bot
        runner tracks the games with bot seats so: ``botrunner.service_runner``)."""
        self._retries: dict[str, asyncio.Task[None]] = {}

    @classmethod
    def bare(cls, host: GameHost[T, Any, E]) -> Pipeline[T, E]:
        """The pipeline of a host alone, with no bots (``NO_BOTS``) and no opener: the
        clock's commands, for a sweeper given no service's pipeline."""

        async def public(game_id: str) -> bool:
            return False

        return cls(
            host,
            NO_BOTS,
            to_move=lambda game: (),
            private=public,
            not_found=host.not_found,
        )

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

        # The command as it is decided: for the one seat it acts for, charged from its
        # arrival (not its wait for the game's turn), refused by the decision if that seat
        # is not the actor's (as any refusal, so a stored outcome still answers a retry).
        command = replace(
            command, seat=seat, refusal=unseated, arrived=command.arrived or self.host.now()
        )
        try:
            async with self.turn(game_id):
                moved = await self.decide(game_id, command)
        except ParlorError:
            await self._bots_owed(game_id)
            raise
        if unseated is not None:
            raise unseated  # a stored outcome, of a seat the caller may not act for
        assert seat is not None
        followed = await self.after(game_id, moved)
        return Handled(followed, seat, await self.reply_records(game_id, moved, followed))

    async def decide(self, game_id: str, command: Issued) -> Outcome[T, E]:
        """``command`` decided and appended by the host (``GameHost.decide``, given the
        game's outside answers); if the timeouts due before it overtake it (``Overtaken``),
        they are appended as the platform's own command (``parlor:timeout-<version>``) and
        the command is refused with ``TIMED_OUT`` or ``GAME_OVER``: decided again if another
        writer appended first. The one way every command is made: a seat's, the clock's,
        the game's own, a bot's."""
        for _ in range(self.host.max_attempts):
            try:
                return await self.host.decide(game_id, command, answer=self.answer)
            except Overtaken as late:
                if await self.host.append_timeouts(game_id, late):
                    raise FailedPrecondition(str(late), reason=late.reason) from None
        raise Conflict(
            f"game {game_id} is too busy: gave up after {self.host.max_attempts} attempts",
            reason="TOO_MANY_CONFLICTS",
        )

    async def execute(
        self,
        game_id: str,
        command: Any,
        *,
        command_id: str | None = None,
        actor: str | None = None,
        fingerprint: str | None = None,
    ) -> Outcome[T, E]:
        """An engine command as it is (``Given``: a tool's, a test's), made as any other
        (``decide``): a late one's timeouts appended, the command refused."""
        return await self.decide(game_id, Given(command, actor, command_id, fingerprint))

    def turn(self, game_id: str) -> contextlib.AbstractAsyncContextManager[None]:
        """Held around this replica's writes to one game: its ``queue``'s turn, if it queues
        them (Take Four); else writers race and the host decides again after a conflict."""
        return self.queue.turn(game_id) if self.queue is not None else contextlib.nullcontext()

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

    # -- the platform's own turns ---------------------------------------------------------

    async def tick(self, game_id: str) -> Outcome[T, E]:
        """The clock's command to a game the deadline index says is due (the sweeper's): a
        ``Tick`` under ``system_command_id("tick", version)`` of the version it is first
        decided on, so replicas sweeping the same game at once fire its timeouts once (a
        duplicate, another's tick: the latest state, nothing fired here)."""
        _, version = await self.host.load(game_id)  # catch this replica's cache up first
        async with self.turn(game_id):
            ticked = await self.decide(
                game_id, Given(Tick(), CLOCK_ACTOR, system_command_id("tick", version))
            )
        if not ticked.duplicate:
            return ticked
        table, latest = await self.host.load(game_id)
        return Outcome(table, latest, ())

    async def walk_away(self, game_id: str) -> Outcome[T, E] | None:
        """Time out the person an untimed game with bots has waited on for
        ``GameHost.walked_away`` (the sweeper's): the game's own timeout command, as the
        clock would fire it, under the platform's id ``parlor:walkaway-<version>``. The game
        then goes on without them, and its bots finish it. None if it waits on no person,
        or they acted since (``GameHost.walked_out``)."""
        async with self.turn(game_id):
            found = await self.host.walked_out(game_id)
            if found is None:
                return None
            version, waited = found
            timing = self.host.decider.timing
            assert timing is not None  # a game that waits on a person has a timing

            def moved_on(current: T) -> None:
                if self.host.waits_on(current) != waited:
                    raise FailedPrecondition("the game has moved on", reason="NOT_WALKED_AWAY")

            async def timeout(current: T) -> Any:
                return timing.timeout(current.game, waited[0])

            walkaway = system_command_id("walkaway", version)
            return await self.decide(game_id, Own(CLOCK_ACTOR, walkaway, timeout, moved_on))

    async def create_from_match(self, match: MatchFormed) -> Outcome[T, E]:
        """A matchmade game (``match`` as the store holds it), as the match consumer asks for
        it: opened (``Opener.open_match``, under ``system_command_id("match", id)``), then
        what follows it (``after``: bots move at once). NO_MATCHES: this pipeline opens none."""
        if self.opener is None:
            raise FailedPrecondition("this game is not matchmade", reason="NO_MATCHES")
        opened: Outcome[T, E] = await self.opener.open_match(match)
        return await self.after(match.match_id, opened)

    async def after(self, game_id: str, outcome: Outcome[T, E]) -> Outcome[T, E]:
        """What follows a command or a create at once: the game's chance step, if one
        follows (``follow_up``), the ``watchers`` told, then the bots' turns. The sweeper
        and the bot runner call it too, after a timeout or to start a round."""
        outcome = await self.follow_up(game_id, outcome)
        for watcher in self.watchers:
            watcher(game_id, outcome.state)
        return await self.play_bots(game_id, outcome)

    async def follow_up(self, game_id: str, outcome: Outcome[T, E]) -> Outcome[T, E]:
        """Make the game's chance step that follows ``outcome``, if one does (``chance``:
        Take Four's next deal), its order drawn here, under its system command id; if it is
        refused (made already, by another), the latest state."""
        own = self.chance_step(outcome.state)
        if own is None:
            return outcome
        try:
            async with self.turn(game_id):
                return await self.decide(game_id, own)
        except ParlorError:
            table, version = await self.host.load(game_id)
            return Outcome(table, version, ())

    def chance_step(self, table: T) -> Own | None:
        """The chance step the game declares after ``table`` as the platform's own command
        (None: none follows, or the game has not started): made by the game (its name the
        actor) under ``parlor:<step>-<number>``, the order drawn as it is decided."""
        step = self.chance(table.game) if self.chance is not None and table.seats else None
        if step is None:
            return None

        async def made(current: T) -> Any:
            return drawn(step)

        # The game's name is the actor: the game's own command.
        return Own(self.host.category, system_command_id(step.name, step.number), made)

    def bot_to_move(self, table: T) -> int | None:
        """The seat of a bot whose turn it is, played at once (None: no bot to move): the
        engine's one seat to move (``to_move``), if a bot holds it. Where seats act at once
        (``simultaneous``) a runner plays the bots."""
        if self.simultaneous or not any(seat.is_bot for seat in table.seats):
            return None
        seats = self.to_move(table.game)
        return seats[0] if len(seats) == 1 and table.seats[seats[0]].is_bot else None

    async def play_bots(self, game_id: str, outcome: Outcome[T, E]) -> Outcome[T, E]:
        """Let bots whose turn it is move, each move its own idempotent platform command."""
        for _ in range(self.bots.max_moves):
            seat = self.bot_to_move(outcome.state)
            if seat is None:
                return outcome
            bot = outcome.state.seats[seat]
            chosen = self.bots.command(seat, bot.bot_level or "")

            def bots_turn(table: T, seat: int = seat) -> None:
                if self.bot_to_move(table) != seat:
                    raise PermissionDenied("it is not the bot's turn", reason="NOT_YOUR_TURN")

            command_id = system_command_id("bot", outcome.version)
            try:
                moved = await self.decide(
                    game_id, Own(bot.player_id, command_id, chosen, bots_turn)
                )
                outcome = replace(moved, records=outcome.records + moved.records)
            except ParlorError as exc:
                # Another replica moved for this bot first, or a dependency is down: the
                # caller sees the latest state; the bot moves again when next asked.
                log.info("bot move not made", extra={"game_id": game_id, "reason": exc.reason})
                self.retry_bots(game_id)
                table, version = await self.host.load(game_id)
                return Outcome(table, version, ())
        return outcome

    async def _bots_owed(self, game_id: str) -> None:
        """After a refused command: if a bot is to move there (its move failed earlier, and
        the retries of a replica since stopped are gone), let it move in the background, so a
        person waiting on a bot is never stuck; a read never does this, a command may."""
        if game_id in self._retries or not self.bots.retry_seconds:
            return
        try:
            table, _ = await self.host.load(game_id)
        except ParlorError:
            return
        if self.bot_to_move(table) is not None:
            self.retry_bots(game_id)

    def retry_bots(self, game_id: str) -> None:
        """Try the game's bots again later, in the background (one retry task a game)."""
        if game_id not in self._retries and self.bots.retry_seconds:
            task = asyncio.get_running_loop().create_task(self._retry_bots(game_id))
            self._retries[game_id] = task

    async def aclose(self) -> None:
        """Stop the bots' pending retries (the component is stopping; another replica, or
        this one once started again, moves those bots when next asked)."""
        tasks = list(self._retries.values())
        self._retries.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _retry_bots(self, game_id: str) -> None:
        """Let the bots move, after each delay of ``Bots.retry_seconds``, until none is to."""
        try:
            for delay in self.bots.retry_seconds:
                await asyncio.sleep(delay)
                try:
                    table, version = await self.host.load(game_id)
                    if self.bot_to_move(table) is not None:
                        table = (await self.play_bots(game_id, Outcome(table, version, ()))).state
                except ParlorError as exc:
                    log.info("bot retry failed", extra={"game_id": game_id, "reason": exc.reason})
                    continue
                if self.bot_to_move(table) is None:
                    return
            log.warning("bots not moved after retries", extra={"game_id": game_id})
        finally:
            self._retries.pop(game_id, None)
