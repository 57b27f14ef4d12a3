"""Take Four's bots: their levels, budgets and paces, played by the game host's runner.

The runner (``parlor.gamehost.botrunner``) plays every bot seat of the games this replica
knows; this says what is Take Four's: a bot of each level plans with its search budget
(``BOT_LEVELS``) on the bots' own word index, from its seat's view, and waits its level's
pace per step while a person plays (``BOT_PACE_SECONDS``, e.g. easy 8 s a tile, so a person
typing ``place A 0,0`` keeps up). Bots act through the same path as players.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from parlor.gamehost.botrunner import BotRunner, service_runner
from parlor.gamehost.botwords import built_index
from parlor.gamehost.once import BuiltOnce
from parlor.kit.settings import setting
from parlor.rules import takefour as tf
from parlor.rules.takefour import BotSeat, TakeFourBot, WordIndex
from parlor.services.takefour.game import BOT_LEVELS, BOT_PACE_SECONDS
from parlor.services.takefour.servicer import TakeFourServicer

TakeFourRunner = BotRunner[tf.TakeFourState, tf.TakeFourCommand]


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


def bot_words() -> WordIndex:
    """The bots' own word index: the packaged ENABLE list (built once per process)."""
    return built_index(WordIndex)


class TakeFourBots:
    """Take Four as the runner plays it: a bot per seat, each on the one word index."""

    def __init__(
        self,
        budgets: Mapping[str, int] = BOT_LEVELS,
        words: Callable[[], Iterable[str] | WordIndex] = bot_words,
    ) -> None:
        self.budgets = budgets
        self._index = BuiltOnce(lambda: _index(words()))

    async def prepare(self) -> None:
        await self._index.get()

    async def seat_bot(self, level: str) -> BotSeat:
        budget = self.budgets.get(level, 20_000)
        return BotSeat(TakeFourBot(await self._index.get(), budget=budget))

    def view(self, state: tf.TakeFourState, seat: int) -> tf.TakeFourView:
        return tf.view(state, seat)

    def over(self, state: tf.TakeFourState) -> bool:
        return state.phase is tf.Phase.OVER

    def between_rounds(self, state: tf.TakeFourState) -> bool:
        return state.phase is tf.Phase.BETWEEN_ROUNDS

    def round(self, state: tf.TakeFourState) -> int:
        return state.round


def _index(words: Iterable[str] | WordIndex) -> WordIndex:
    return words if isinstance(words, WordIndex) else WordIndex(words)


def bot_runner(servicer: TakeFourServicer, settings: BotSettings) -> TakeFourRunner:
    """The runner of the service's bot seats, at each level's pace."""
    return service_runner(servicer, TakeFourBots(), settings, paces=BOT_PACE_SECONDS)
