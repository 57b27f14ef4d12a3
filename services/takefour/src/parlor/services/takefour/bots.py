"""Bots in seats: a background runner plays for every bot seat of the games this replica knows.

Play is simultaneous, so bots cannot answer "on their turn". The runner wakes when
a game it knows changes (any command through this replica) or on a short timer,
and lets each bot seat take one step: plan from its own view only (``BotSeat``,
in a worker thread so a long search never holds up the event loop), then send
the next command like any player, with a command id made of the seat and the
version it was planned on. Another replica planning the same step sends the same
id, so the step is applied once. A refused step makes the bot plan afresh.

Pace: while a person sits at the table, each bot waits its level's time per step
(``paces``, e.g. easy 8 s a tile), counted from its last command (and from the start of
a round), so a person typing ``place A 0,0`` keeps up; bots among themselves only pause
``pause_seconds``. It is the runner's schedule: the engine never waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from functools import cache

from parlor.core.errors import NotFound, ParlorError
from parlor.gamehost import system_command_id
from parlor.kit.settings import setting
from parlor.rules import takefour as tf
from parlor.rules.takefour import BotSeat, TakeFourBot, WordIndex

log = logging.getLogger("parlor.services.takefour.bots")

Act = Callable[[str, str, int, tf.TakeFourCommand, str], Awaitable[None]]
"""(game id, bot player id, seat, command, command id) -> the command executed."""
Load = Callable[[str], Awaitable[tuple[tuple[str, ...], tf.TakeFourState, int]]]
"""game id -> (seat player ids, engine state, version)."""


@dataclass(frozen=True)
class BotSettings:
    pause_seconds: float = setting(
        "PARLOR_TAKEFOUR_BOT_PAUSE_SECONDS",
        "pause between two steps of one Take Four bot (0: as fast as it can plan)",
        0.5,
    )
    idle_seconds: float = setting(
        "PARLOR_TAKEFOUR_BOT_IDLE_SECONDS",
        "how often the Take Four bot runner looks at its games when nothing woke it",
        1.0,
    )
    human_pace: bool = setting(
        "PARLOR_TAKEFOUR_BOT_HUMAN_PACE",
        "while a person plays, each Take Four bot level waits its own time per step"
        " (easy 8 s, medium 5 s, hard 3 s; false: only the pause)",
        True,
    )


STEP_SECONDS = 10.0
"""The longest a bot's call (load, act, start a round) may take before the runner goes on to
the other games; a bot's own search is bounded by its budget instead."""


@cache
def bot_words() -> WordIndex:
    """The bots' own word index: the packaged ENABLE list (loaded once per process)."""
    from parlor.lexicon import enable1

    return WordIndex(enable1().words())


@dataclass
class _Game:
    bots: dict[int, BotSeat]
    levels: dict[int, str]
    people: bool = False
    rounds: dict[int, int] = field(default_factory=dict)
    next_step: dict[int, float] = field(default_factory=dict)
    last: int = -1


class BotRunner:
    def __init__(
        self,
        settings: BotSettings,
        budgets: dict[str, int],
        load: Load,
        act: Act,
        start_round: Callable[[str], Awaitable[None]],
        words: Callable[[], Iterable[str] | WordIndex] = bot_words,
        paces: dict[str, float] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.settings = settings
        self.budgets = budgets
        self.paces = paces or {}
        self._clock = clock
        self.load = load
        self.act = act
        self.start_round = start_round
        self.words = words
        self._index: WordIndex | None = None
        self._games: dict[str, _Game] = {}
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

    def pace(self, game: _Game, seat: int) -> float:
        """Seconds between two steps of this bot: its level's, if a person plays here."""
        if game.people and self.settings.human_pace:
            return max(self.settings.pause_seconds, self.paces.get(game.levels[seat], 0.0))
        return self.settings.pause_seconds

    @property
    def games(self) -> list[str]:
        return list(self._games)

    async def run(self) -> None:
        """Run forever: step every known game's bots whenever woken or every idle period.

        The bots' word index (seconds to build) is made first, as the service starts, so the
        first game with a bot does not wait for it."""
        await self._words()
        while True:
            now = self.now()
            due = [t - now for g in self._games.values() for t in g.next_step.values() if t > now]
            wait = min([self.settings.idle_seconds, *due])
            if wait > 0:
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

    async def _bot(self, game: _Game, seat: int) -> BotSeat:
        bot = game.bots.get(seat)
        if bot is None:
            budget = self.budgets.get(game.levels[seat], 20_000)
            bot = game.bots[seat] = BotSeat(TakeFourBot(await self._words(), budget=budget))
        return bot

    async def _words(self) -> WordIndex:
        if self._index is None:
            words = await asyncio.to_thread(self.words)  # a long build: off the loop
            if not isinstance(words, WordIndex):
                words = await asyncio.to_thread(WordIndex, words)
            self._index = words
        return self._index

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
        if state.phase is tf.Phase.OVER:
            self._games.pop(game_id, None)
            return False
        if state.phase is tf.Phase.BETWEEN_ROUNDS:
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
            if game.rounds.get(seat) != state.round:
                game.rounds[seat] = state.round
                bot.new_round()
                if game.people:  # a new hand: looked at first, as a person would
                    game.next_step[seat] = self.now() + self.pace(game, seat)
                    if game.next_step[seat] > self.now():
                        continue
            command = await asyncio.to_thread(bot.next_command, tf.view(state, seat))
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
