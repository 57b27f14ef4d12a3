"""Take Four, declared once: the one place that says what this game is to the platform.

Its rules are in ``parlor.rules.takefour`` (every rule, in words: docs/rules/takefour.md),
under the game contract (``contract.ENGINE``: the name, the seat range), with what the
platform asks of them beyond it: the standings ``GameFinished`` carries, the idle clocks
(``timing``), how replay tools rebuild commands (``replay``) and the deal of each round, the
game's chance step (``contract.chance``), which the platform draws for. This module adds the
event codec and what of it may be published (hands, grids and bags never are), the bots,
the proto and the time controls. It is registered under ``parlor.game_types``
(pyproject.toml).

The bots are played by the game host's runner (``parlor.gamehost.botrunner``), which reads
the rest from the contract: a bot of each level plans with its search budget (the rules'
``bot.LEVELS``) on the bots' own word index, from its seat's view, and waits its level's
pace per step while a person plays (``BOT_PACE_SECONDS``, e.g. easy 8 s a tile, so a person
typing ``place A 0,0`` keeps up; ``TakeFourSettings``). Bots act through the same path as
players.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from parlor.gamehost.botrunner import (
    ABANDON_HELP,
    ABANDON_SECONDS,
    ALONE_HELP,
    ALONE_SECONDS,
    HUMAN_PACE_HELP,
    IDLE_HELP,
    PAUSE_HELP,
    ContractBots,
)
from parlor.gamehost.botwords import built_index
from parlor.gamehost.games import GameType
from parlor.gamehost.queue import PER_GAME_HELP
from parlor.gamehost.seating import Table
from parlor.gamehost.thinking import think
from parlor.gamehost.timecontrol import TimeControl
from parlor.kit.settings import setting
from parlor.rules import takefour as tf
from parlor.rules.takefour import WordIndex, hosting, replay
from parlor.rules.takefour.bot import LEVELS, BotSeat, TakeFourBot, seat_bot
from parlor.rules.takefour.contract import ENGINE, chance
from parlor.rules.takefour.standings import standings as standings  # the component's too
from parlor.rules.takefour.timing import Timing
from parlor.services.takefour.codec import Codec, Event, config_of, public
from parlor.takefour.v1 import takefour_pb2

BOT_PACE_SECONDS = {"easy": 8.0, "medium": 5.0, "hard": 3.0}
"""Bot level -> seconds between two of its steps (a tile placed...) while a person plays."""

ENABLE = functools.partial(built_index, WordIndex)
"""The bots' own word index: the packaged ENABLE list (built once per process)."""


@dataclass(frozen=True)
class TakeFourSettings:
    """The service's own settings: its queue (``queue.GameQueue``), its bots' pace
    (``botrunner.PaceSettings``; with a person at the table, ``BOT_PACE_SECONDS``)."""

    queue_per_game: bool = setting("PARLOR_TAKEFOUR_QUEUE_PER_GAME", PER_GAME_HELP, True)
    pause_seconds: float = setting("PARLOR_TAKEFOUR_BOT_PAUSE_SECONDS", PAUSE_HELP, 0.5)
    idle_seconds: float = setting("PARLOR_TAKEFOUR_BOT_IDLE_SECONDS", IDLE_HELP, 1.0)
    human_pace: bool = setting("PARLOR_TAKEFOUR_BOT_HUMAN_PACE", HUMAN_PACE_HELP, True)
    alone_seconds: float = setting("PARLOR_TAKEFOUR_BOT_ALONE_SECONDS", ALONE_HELP, ALONE_SECONDS)
    abandon_seconds: float = setting(
        "PARLOR_TAKEFOUR_BOT_ABANDON_SECONDS", ABANDON_HELP, ABANDON_SECONDS
    )


Bots = ContractBots[tf.TakeFourState, tf.TakeFourCommand, WordIndex | None]


def planned(budget: int, seen: tf.TakeFourView) -> list[tf.TakeFourCommand]:
    """A bot's plan as a bot worker thinks it (``gamehost.thinking``): on the worker's own
    ENABLE index, built there once and never sent; a bot of its own per plan, so nothing a
    worker keeps grows with the games it plans for."""
    return TakeFourBot(ENABLE(), budget).plan(seen)


class PooledSeat:
    """A bot in a seat whose plans are thought in the process's bot workers (``think``: off
    the event loop and its GIL), then run to their end one command at a time (as the rules'
    ``BotSeat``)."""

    def __init__(self, level: str) -> None:
        self.budget = LEVELS.get(level, LEVELS["medium"])
        self._pending: list[tf.TakeFourCommand] = []

    async def think(self, seen: tf.TakeFourView) -> tf.TakeFourCommand | None:
        if not self._pending:
            self._pending = await think(planned, self.budget, seen)
        return self._pending.pop(0) if self._pending else None

    def next_command(self, seen: tf.TakeFourView) -> tf.TakeFourCommand | None:
        """Planned here, in the caller's thread (for a runner without the bot workers)."""
        if not self._pending:
            self._pending = planned(self.budget, seen)
        return self._pending.pop(0) if self._pending else None

    def refused(self) -> None:
        self._pending = []

    def new_round(self) -> None:
        self._pending = []


def _seat_bot(index: WordIndex | None, level: str) -> PooledSeat | BotSeat:
    return PooledSeat(level) if index is None else seat_bot(index, level)


def bots(words: Callable[[], Iterable[str] | WordIndex] = ENABLE) -> Bots:
    """Take Four's bots as the runner plays them: a bot per seat of its level (the rules'
    ``bot.seat_bot``), all on one word index of ``words`` (``ENABLE``: planned in the bot
    workers, each with an index of its own, so this process builds none; another word list,
    a test's: planned in the bot thread on an index built here); a seat that forfeited
    (left, or out of time) has left the game, and a seat leaves by forfeiting (its bots, once
    no person is left; a person's, once they walked away: ``botrunner``)."""
    return ContractBots(
        ENGINE,
        (lambda: None) if words is ENABLE else (lambda: WordIndex.of(words())),
        _seat_bot,
        lambda s: s.round,
        left=lambda s, seat: s.players[seat].forfeited,
        leave=lambda s, seat, why: tf.Forfeit(seat, why),
        mark=_mark,
    )


def _mark(state: tf.TakeFourState, seat: int) -> object:
    """What the seat's own actions change: its grid, its agreement to deal, its calls (a
    deal changes its hand, not this; a new round empties the grid once)."""
    player = state.players[seat]
    return (tuple(sorted(player.grid.items())), player.agrees_to_deal, player.calls)


GAME: GameType[Table[tf.TakeFourState], Any, Event] = GameType(
    ENGINE,
    Codec(),
    standings,
    replay,
    Timing(),
    takefour_pb2,
    bots=tuple(LEVELS),
    public=public,
    rules_page="docs/rules/takefour.md",
    calls=("dictionary",),
    departures=(takefour_pb2.SeatForfeited,),
    chance=chance,
    hosting=hosting.GAME,
    words=tf.TAKE_FOUR,  # what each command needs checked: the dictionary's verdicts go in
    simultaneous=True,  # its bots are the runner's (``bots``), never the pipeline's
    config_of=config_of,
    default_time_control=TimeControl.per_move(120),
    time_controls=(
        TimeControl.per_move(60),
        TimeControl.per_move(120),
        TimeControl.correspondence(days=1),
    ),
)
rules = GAME.rules  # the seated rules, as tests and tools fold a stream with
