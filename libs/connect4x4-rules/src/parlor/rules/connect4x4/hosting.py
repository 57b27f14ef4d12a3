"""Connect 4x4 as the platform hosts it: how a game is created and how its bots play.

What the platform asks of the rules beyond the game contract (``contract.ENGINE``) and
beside the standings, clocks and replay mapping: the create command for the seats given
(``create``), the chance step that opens a game (none: nothing is hidden or drawn), and a
bot of each level as a pure strategy, ``(state, seat, rng) -> command``, which the host
thinks in its bot workers (``bots_think``: a strong bot searches about a second).
"""

from __future__ import annotations

import functools
import random
from dataclasses import replace

from parlor.core.errors import InvalidArgument
from parlor.rules.connect4x4 import bot
from parlor.rules.connect4x4.commands import Config, CreateGame, Move
from parlor.rules.connect4x4.state import State


def bot_move(state: State, seat: int, rng: random.Random, *, level: str, budget: int) -> Move:
    """A bot's drop (the rules' ``bot.choose_move``): ``seat`` is the one on turn."""
    return bot.choose_move(state, level, rng, budget=budget)


class Connect4x4:
    """The game as one value (``GAME``); ``bot_budget`` is the strong bot's search budget."""

    bots_think = True
    bot_budget: int = bot.DEFAULT_BUDGET

    def create(
        self, config: Config | None, players: tuple[str, ...], bots: tuple[bool, ...]
    ) -> CreateGame:
        """A game of as many players as seats (``config.players`` 0: so); a config naming
        another count is refused (INVALID_PLAYER_COUNT)."""
        if config is None:
            return CreateGame(Config(players=len(players)))
        if config.players == 0:
            return CreateGame(replace(config, players=len(players)))
        if config.players != len(players):
            raise InvalidArgument(
                f"config says {config.players} players but {len(players)} seats are given",
                reason="INVALID_PLAYER_COUNT",
            )
        return CreateGame(config)

    def opening(self, create: CreateGame) -> None:
        """Nothing is drawn when a game opens."""
        return None

    def bot(self, level: str) -> functools.partial[Move]:
        """The bot of ``level`` (``random``, ``greedy``, ``strong``; none named: random)."""
        return functools.partial(bot_move, level=level or "random", budget=self.bot_budget)


GAME = Connect4x4()
