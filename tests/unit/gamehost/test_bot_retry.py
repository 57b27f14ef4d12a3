"""A bot's move that failed (a dependency down) is tried again on a write path, never by a read.

GetGame only reads: the game stays where the failure left it however often it is read,
and the servicer's background retry lets the bot move once its dependency answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from kits.callers import as_

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
from parlor.core.errors import PermissionDenied, Unavailable
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.pipeline.pipeline import BotCommand, Bots
from parlor.gamehost.table.seating import Table
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import GAME as C4
from parlor.services.connect4x4.game import SERVING as C4_SERVING

RETRIES: Sequence[float] = (0.01, 0.01, 0.01)


class FlakyBots(Bots):
    """Bots whose first ``failures`` moves fail as an unreachable dependency does."""

    def __init__(self, failures: int) -> None:
        super().__init__(C4.hosting, retry_seconds=RETRIES)
        self.failures = failures

    def command(self, seat: int, level: str) -> BotCommand:
        chosen = super().command(seat, level)

        async def move(table: Table[c4.State]) -> c4.Command:
            if self.failures > 0:
                self.failures -= 1
                raise Unavailable("the bot's dependency is down", reason="DEPENDENCY_DOWN")
            command: c4.Command = await chosen(table)
            return command

        return move


def flaky_c4(failures: int) -> Any:
    """Connect 4x4's servicer, its bots ``FlakyBots``."""
    host: Any = GameHost(C4.name, C4.decider, C4.codec, InMemoryEventStore())
    servicer = C4_SERVING.servicer(host)
    servicer.bots = FlakyBots(failures)
    return servicer


def create(game_id: str) -> c4pb.CreateGameRequest:
    seats = [common_pb2.Seat(player_id="bot:random"), common_pb2.Seat(player_id="ada")]
    return c4pb.CreateGameRequest(
        game_id=game_id, seats=seats, config=c4pb.Config(players=2, first_seat=0)
    )


async def get(servicer: Any, game_id: str) -> c4pb.Game:
    reply = await as_("ada", servicer.GetGame(c4pb.GetGameRequest(game_id=game_id), None))
    game: c4pb.Game = reply.game
    return game


async def test_reading_a_game_whose_bot_failed_writes_nothing_and_the_retry_moves_it() -> None:
    servicer = flaky_c4(failures=2)
    servicer.bots.retry_seconds = (3.0, 0.01)  # the reads below come well before the first
    created = await as_("ada", servicer.CreateGame(create("g"), None))
    assert list(created.game.seats_to_move) == [0]  # the bot's move failed: still its turn
    task = servicer.pipeline._retries["g"]
    for _ in range(3):
        assert (await get(servicer, "g")).version == created.game.version
    await asyncio.wait_for(task, 30)  # the retry fails once more, then the bot moves
    moved = await get(servicer, "g")
    assert moved.version == created.game.version + 1
    assert list(moved.seats_to_move) == [1]
    assert servicer.bots.failures == 0
    assert "g" not in servicer.pipeline._retries


async def test_the_retry_gives_up_after_its_delays_and_a_later_failure_retries_again() -> None:
    servicer = flaky_c4(failures=10)
    created = await as_("ada", servicer.CreateGame(create("g"), None))
    await asyncio.wait_for(servicer.pipeline._retries["g"], 30)
    assert (await get(servicer, "g")).version == created.game.version
    assert servicer.bots.failures == 10 - 1 - len(RETRIES)
    assert "g" not in servicer.pipeline._retries
    servicer.bots.failures = 0
    servicer.pipeline.retry_bots("g")
    await asyncio.wait_for(servicer.pipeline._retries["g"], 30)
    assert list((await get(servicer, "g")).seats_to_move) == [1]


async def test_closing_the_servicer_stops_its_pending_retries() -> None:
    servicer = flaky_c4(failures=10)
    servicer.bots.retry_seconds = (30.0,)
    await as_("ada", servicer.CreateGame(create("g"), None))
    task = servicer.pipeline._retries["g"]
    await servicer.aclose()  # as the component does when it stops
    assert task.cancelled()
    assert "g" not in servicer.pipeline._retries


async def test_a_persons_refused_move_lets_a_bot_owed_its_move_move_again() -> None:
    servicer = flaky_c4(failures=1)
    servicer.bots.retry_seconds = ()  # no retry now: as after the replica that tried stopped
    created = await as_("ada", servicer.CreateGame(create("g"), None))
    assert list(created.game.seats_to_move) == [0]  # the bot's move failed: its turn still
    servicer.bots.retry_seconds = (0.01,)
    move = c4pb.PlayMoveRequest(game_id="g", move="af")
    with pytest.raises(PermissionDenied):  # not ada's turn: refused, as before
        await as_("ada", servicer.PlayMove(move, None))
    await asyncio.wait_for(servicer.pipeline._retries["g"], 30)  # the refusal set the bot going
    assert list((await get(servicer, "g")).seats_to_move) == [1]
