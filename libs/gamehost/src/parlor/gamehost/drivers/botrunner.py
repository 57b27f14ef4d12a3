"""Bots in seats of a game of simultaneous play: a background runner plays for every bot seat
of the games this replica knows.

Play is simultaneous, so bots cannot answer "on their turn" (``Pipeline.play_bots`` is
for games with turns). The runner wakes when a game it knows changes (any command through
this replica) or on a short timer, and lets each bot seat take one step: plan from its own
view only (the game's ``SeatBot``, in the process's shared bot pool, ``thinking``, so a
long search never holds up the event loop and the bots of many games share its workers),
then send the next command like any player, with a command id made of the seat and the
version it was planned on. Another replica planning the same step sends the same id, so
the step is applied once. A refused step makes the bot plan afresh.

Pace: while a person sits at the table, each bot waits its level's time per step
(``paces``), counted from its last command (and from the start of a round), so a person
typing keeps up; bots among themselves only pause ``pause_seconds``, and so do bots whose
people have all left the game (``BotGame.left``): nobody is left to keep up with. It is
the runner's schedule: the engine never waits.

Every game ends (docs/bounds.md): bots play on at a table no person is at (all left, or
none ever sat) for ``ALONE_SECONDS`` at most, then leave it one by one (``BotGame.leave``),
which ends it; a person who has not acted (``BotGame.mark``) for ``ABANDON_SECONDS`` while
bots play has walked away, and their seat leaves (``ABANDONED``) before the bots do.

Its pace settings and limits are ``botpace``'s. What is the game's own is a ``BotGame``
(``botgames``): its bots by level, the seat's view they plan
from, and the phases the runner tells apart (over, between rounds, the round); a
``ContractBots`` reads all but the bots and the round from the game's contract.
``service_runner`` wires a runner to a game's command pipeline: it loads games from the
pipeline's host, acts through its ``handle`` and starts rounds by its ``after``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from parlor.core.errors import NotFound, ParlorError
from parlor.gamehost.bots.botgames import BotGame, ContractBots, SeatBot
from parlor.gamehost.bots.botpace import (
    ABANDON_HELP,
    ABANDON_SECONDS,
    ALONE_HELP,
    ALONE_SECONDS,
    HUMAN_PACE_HELP,
    IDLE_HELP,
    PAUSE_HELP,
    PaceSettings,
)
from parlor.gamehost.bots.thinking import think
from parlor.gamehost.host.host import Outcome
from parlor.gamehost.pipeline.pipeline import Pipeline
from parlor.gamehost.record.command import Command
from parlor.gametypes.ids import system_command_id

__all__ = [
    "ABANDON_HELP",
    "ABANDON_SECONDS",
    "ALONE_HELP",
    "ALONE_SECONDS",
    "HUMAN_PACE_HELP",
    "IDLE_HELP",
    "PAUSE_HELP",
    "BotGame",
    "BotRunner",
    "ContractBots",
    "PaceSettings",
    "SeatBot",
    "service_runner",
]  # the pace (``botpace``) and the game as bots play it (``botgames``) given with the runner

log = logging.getLogger("parlor.gamehost.botrunner")

S = TypeVar("S")
C = TypeVar("C")
T = TypeVar("T")

Act = Callable[[str, str, int, C, str], Awaitable[None]]
"""(game id, bot player id, seat, command, command id) -> the command executed."""
Load = Callable[[str], Awaitable[tuple[tuple[str, ...], S, int]]]
"""game id -> (seat player ids, engine state, version)."""

LOOK_FLOOR_SECONDS = 0.01
"""The runner looks at its games at most this often when nothing woke it, whatever its idle
setting says: with an idle of 0 and no bot due, a pass that awaited nothing would never give
the event loop a turn, and every other call of the process (its gRPC servers, its consumers)
would hang behind it."""

STEP_SECONDS = 10.0
"""The longest a bot's call (load, act, start a round) may take before the runner goes on to
the other games; a bot's own search is bounded by its budget instead."""


@dataclass
class _Game(Generic[C]):
    bots: dict[int, SeatBot[C]]
    levels: dict[int, str]
    people: bool = False
    rounds: dict[int, int] = field(default_factory=dict)
    next_step: dict[int, float] = field(default_factory=dict)
    last: int = -1
    marks: dict[int, Any] = field(default_factory=dict)
    """Each person's ``BotGame.mark`` when last seen to change, and when (``since``)."""
    since: float | None = None
    alone: float | None = None
    """Since when no person is left at the table (None: one is)."""


class BotRunner(Generic[S, C]):
    def __init__(
        self,
        game: BotGame[S, C],
        settings: PaceSettings,
        load: Load[S],
        act: Act[C],
        start_round: Callable[[str], Awaitable[None]],
        paces: Mapping[str, float] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.game = game
        # The game's settings may set both (Take Four: PARLOR_TAKEFOUR_BOT_ALONE_SECONDS...).
        self.abandon_seconds: float = getattr(settings, "abandon_seconds", ABANDON_SECONDS)
        self.alone_seconds: float = getattr(settings, "alone_seconds", ALONE_SECONDS)
        self.settings = settings
        self.paces = paces or {}
        self._clock = clock
        self.load = load
        self.act = act
        self.start_round = start_round
        self._games: dict[str, _Game[C]] = {}
        self._wake = asyncio.Event()
        self.steps = 0

    def track(self, game_id: str, seats: tuple[str, ...], over: bool) -> None:
        """Note a game this replica saw; games with bot seats are played until they end."""
        if over:
            self._games.pop(game_id, None)
            return
        if game_id not in self._games:
            levels = {
                i: p.removeprefix("bot:") for i, p in enumerate(seats) if p.startswith("bot:")
            }
            if not levels:
                return
            self._games[game_id] = _Game({}, levels, people=len(levels) < len(seats))
        self._wake.set()

    def now(self) -> float:
        return self._clock() if self._clock is not None else asyncio.get_running_loop().time()

    def pace(self, game: _Game[C], seat: int) -> float:
        """Seconds between two steps of this bot: its level's, if a person plays here."""
        if game.people and self.settings.human_pace:
            return max(self.settings.pause_seconds, self.paces.get(game.levels[seat], 0.0))
        return self.settings.pause_seconds

    @property
    def games(self) -> list[str]:
        return list(self._games)

    async def run(self) -> None:
        """Run forever: step every known game's bots whenever woken or every idle period.

        The game's set-up for its bots (seconds to build a word index) is done first, as the
        service starts, so the first game with a bot does not wait for it."""
        await self.game.prepare()
        while True:
            now = self.now()
            due = [t - now for g in self._games.values() for t in g.next_step.values() if t > now]
            wait = max(LOOK_FLOOR_SECONDS, min([self.settings.idle_seconds, *due]))
            # A wake already set returns at once without a turn for anyone else, and a pass
            # whose games are not due awaits nothing: the loop is given a turn every pass.
            await asyncio.sleep(0)
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation
            # that lands as the event is set, and the runner would outlive its server.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await self._wake.wait()
            self._wake.clear()
            for game_id in list(self._games):
                try:
                    await self.step(game_id)
                except asyncio.CancelledError:
                    raise
                except TimeoutError:
                    # One game's call that hangs (the store, the dictionary, a queue) must not
                    # stop the bots of every other game on this replica: tried again later.
                    log.warning(
                        "a bot's call took over %s s; the other games go on",
                        STEP_SECONDS,
                        extra={"game_id": game_id},
                    )
                except Exception:
                    log.exception("bot step failed", extra={"game_id": game_id})

    async def _walked_away(
        self, game_id: str, game: _Game[C], seats: tuple[str, ...], state: S, present: list[int]
    ) -> bool:
        """Whether the people still seated have walked away: none of them has acted
        (``BotGame.mark``) for ``abandon_seconds``. Their seats then leave (``ABANDONED``), as
        the platform's own commands; True if one did."""
        marks = {seat: self.game.mark(state, seat) for seat in present}
        if None in marks.values():
            return False  # the game does not say when a person acts
        now = self.now()
        if game.since is None or marks != game.marks:
            game.marks, game.since = marks, now
            return False
        if now - game.since < self.abandon_seconds:
            return False
        acted = False
        for seat in present:
            command = self.game.leave(state, seat, "ABANDONED")
            if command is None:
                continue
            log.info("a person walked away: their seat leaves", extra={"game_id": game_id})
            with contextlib.suppress(ParlorError):
                async with asyncio.timeout(STEP_SECONDS):
                    await self.act(
                        game_id, seats[seat], seat, command, system_command_id("abandon", seat)
                    )
                acted = True
        if acted:
            self._wake.set()
        return acted

    async def _bots_leave(
        self, game_id: str, game: _Game[C], seats: tuple[str, ...], state: S
    ) -> bool:
        """No person has been at the table for ``alone_seconds``: its bots leave it one by
        one (``BotGame.leave``), which ends it (a game left with one seat racing is won by
        it), instead of playing on among themselves for as long as the game's rules allow.
        True if one left."""
        for seat in sorted(game.levels):
            if self.game.left(state, seat):
                continue
            command = self.game.leave(state, seat, "LEFT")
            if command is None:
                return False
            try:
                async with asyncio.timeout(STEP_SECONDS):
                    await self.act(
                        game_id, seats[seat], seat, command, system_command_id(f"leave{seat}")
                    )
            except ParlorError:
                continue  # the game ended meanwhile, or another replica's bot left first
            self._wake.set()
            return True
        return False

    async def _bot(self, game: _Game[C], seat: int) -> SeatBot[C]:
        bot = game.bots.get(seat)
        if bot is None:
            bot = game.bots[seat] = await self.game.seat_bot(game.levels[seat])
        return bot

    async def step(self, game_id: str) -> bool:
        """One step for each bot seat that is due; True if any bot acted."""
        game = self._games.get(game_id)
        if game is None:
            return False
        try:
            async with asyncio.timeout(STEP_SECONDS):
                seats, state, version = await self.load(game_id)
        except NotFound:
            self._games.pop(game_id, None)
            return False
        if self.game.over(state):
            self._games.pop(game_id, None)
            return False
        # a person still playing holds the bots to their pace; once all have left, it is off
        present = [
            seat
            for seat in range(len(seats))
            if seat not in game.levels and not self.game.left(state, seat)
        ]
        if present and await self._walked_away(game_id, game, seats, state, present):
            return True
        people = bool(present)
        if game.people and not people:
            game.next_step.clear()  # the steps were due at a person's pace: due now
        game.people = people
        if people:
            game.alone = None
        else:
            game.alone = self.now() if game.alone is None else game.alone
            if self.now() - game.alone >= self.alone_seconds and await self._bots_leave(
                game_id, game, seats, state
            ):
                return True
        if self.game.between_rounds(state):
            async with asyncio.timeout(STEP_SECONDS):
                await self.start_round(game_id)
            self._wake.set()
            return False
        acted = False
        order = sorted(game.levels)
        order = [s for s in order if s > game.last] + [s for s in order if s <= game.last]
        for seat in order:
            if self.now() < game.next_step.get(seat, 0.0):
                continue
            bot = await self._bot(game, seat)
            number = self.game.round(state)
            if game.rounds.get(seat) != number:
                game.rounds[seat] = number
                bot.new_round()
                if game.people:  # a new hand: looked at first, as a person would
                    game.next_step[seat] = self.now() + self.pace(game, seat)
                    if game.next_step[seat] > self.now():
                        continue
            command = await _thought(bot, self.game.view(state, seat))
            if command is None:
                continue
            try:
                async with asyncio.timeout(STEP_SECONDS):
                    await self.act(
                        game_id,
                        seats[seat],
                        seat,
                        command,
                        system_command_id(f"bot{seat}", f"v{version}"),
                    )
            except ParlorError:
                bot.refused()  # the game moved on (a deal came first): plan afresh
                continue
            self.steps += 1
            acted = True
            game.last = seat
            game.next_step[seat] = self.now() + self.pace(game, seat)
            break  # the state moved on: the next bot plans from the new one
        if acted:
            self._wake.set()
        return acted


async def _thought(bot: SeatBot[C], seen: Any) -> C | None:
    """The bot's next command, thought in the process's shared bot pool (``thinking``): in
    its workers if the bot plans there itself (``think``), else in its one thread. Either
    way, off the event loop, and the bots of N games never take N cores."""
    planner = getattr(bot, "think", None)
    if planner is not None and inspect.iscoroutinefunction(planner):
        thought: C | None = await planner(seen)
        return thought
    return await think(bot.next_command, seen, in_thread=True)


def service_runner(
    pipeline: Pipeline[Any, Any],
    game: BotGame[S, C],
    settings: PaceSettings,
    paces: Mapping[str, float] | None = None,
) -> BotRunner[S, C]:
    """A runner playing the bot seats of ``pipeline``'s game: bots act through the same
    path as players (``Pipeline.handle``: seat check, dictionary verdicts, follow-up
    rounds), and a round is started by the platform's own turns (``Pipeline.after``); it
    tracks every game the pipeline tells its ``watchers`` of. The runner is given the
    pipeline, never the servicer: nothing calls it back."""
    host = pipeline.host

    async def load(game_id: str) -> tuple[tuple[str, ...], S, int]:
        table, version = await host.load(game_id)
        return tuple(s.player_id for s in table.seats), table.game, version

    async def act(game_id: str, player_id: str, seat: int, command: C, command_id: str) -> None:
        made = Command(player_id, lambda table, _: command, seat, command_id, asks=True)
        await pipeline.handle(game_id, made)

    async def start_round(game_id: str) -> None:
        table, version = await host.load(game_id)
        await pipeline.after(game_id, Outcome(table, version, ()))

    runner = BotRunner(game, settings, load, act, start_round, paces=paces)

    def track(game_id: str, table: Any) -> None:
        over = host.decider.is_terminal(table)
        runner.track(game_id, tuple(s.player_id for s in table.seats), over)

    pipeline.watchers.append(track)
    return runner
