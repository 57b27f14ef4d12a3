"""Take Four as the platform hosts it: how a game is created.

What the platform asks of the rules beyond the game contract (``contract.ENGINE``) and
beside the standings, clocks, replay mapping and the deal of each round (``contract.chance``,
the first round's too, dealt right after the create): the create command for the seats given
(``create``). Its bots are a runner's (they plan whole turns, ``parlor.gamehost.botrunner``).
"""

from __future__ import annotations

from parlor.rules.takefour.commands import CreateGame
from parlor.rules.takefour.state import TakeFourConfig


def engine_seats(players: tuple[str, ...], bots: tuple[bool, ...]) -> tuple[str, ...]:
    """The engine's seat names: player ids, made distinct for bots ("bot:easy/2")."""
    return tuple(
        f"{p}/{i}" if bot else p for i, (p, bot) in enumerate(zip(players, bots, strict=True))
    )


class TakeFour:
    """The game as one value (``GAME``)."""

    bots_think = True

    def create(
        self, config: TakeFourConfig | None, players: tuple[str, ...], bots: tuple[bool, ...]
    ) -> CreateGame:
        """A match plays the default rules, with the dictionary's default lexicon ("")."""
        return CreateGame(config or TakeFourConfig(lexicon=""), engine_seats(players, bots))

    def opening(self, create: CreateGame) -> None:
        """Nothing is drawn at the create: the first round's deal follows it."""
        return None


GAME = TakeFour()
