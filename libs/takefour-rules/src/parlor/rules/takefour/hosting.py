"""Take Four as the platform hosts it: how a game is created and exported.

What the platform asks of the rules beyond the game contract (``contract.ENGINE``) and
beside the standings, clocks, replay mapping and the deal of each round
(``contract.chance``, the first round's too, dealt right after the create): the create
command for the seats given (``create``) and its export, a finished game's whole record
(``export``). Its bots are a runner's (they plan whole turns,
``parlor.gamehost.drivers.botrunner``).
"""

from __future__ import annotations

from collections.abc import Sequence

from parlor.core.errors import FailedPrecondition
from parlor.rules.takefour import notation
from parlor.rules.takefour.commands import CreateGame
from parlor.rules.takefour.events import TakeFourEvent
from parlor.rules.takefour.state import Phase, TakeFourConfig, TakeFourState


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

    def export(
        self,
        game_id: str,
        state: TakeFourState,
        moves: Sequence[TakeFourEvent],
        seat_lines: Sequence[str],
        finished: tuple[str, Sequence[int]] | None,
    ) -> str:
        """A finished game in Take Four notation (``notation.export``); GAME_NOT_OVER while it
        is on: the text shows every tile."""
        if state.phase is not Phase.OVER:
            raise FailedPrecondition(
                "only a finished game can be exported: the text shows every tile",
                reason="GAME_NOT_OVER",
            )
        return notation.export(game_id, state.config.lexicon, moves, seat_lines, finished)


GAME = TakeFour()
