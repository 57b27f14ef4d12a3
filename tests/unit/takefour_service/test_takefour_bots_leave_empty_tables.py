"""Every Take Four game ends (issue 37, "every game ends"; docs/bounds.md): bots never play
on for ever at a table no person is at, a person who walked away is taken from the table,
and a target that would take for ever to reach is refused.

The runner's clock is given (no sleeping): the bots of a table no person has been at for
``alone_seconds`` leave it one by one, which ends the game; a person whose seat has not
changed for ``abandon_seconds`` while bots play leaves it (``ABANDONED``), and then so do
the bots. On main the bots of a table with a target of a million played at full speed for
days.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_takefour_bot_pace import Clock, Tabled
from test_takefour_bot_pace import runner as paced_runner

from parlor.core.errors import InvalidArgument
from parlor.gamehost.drivers.botrunner import ABANDON_SECONDS, ALONE_SECONDS, BotRunner
from parlor.rules import takefour as tf
from parlor.services.takefour.game import TakeFourSettings


def runner(game: Tabled, clock: Clock) -> BotRunner[Any, Any]:
    """The pace tests' runner, dealing each new round as the service does."""
    made = paced_runner(game, clock)

    async def start_round(game_id: str) -> None:
        game.run(tf.StartRound(tuple(range(game.table.game.config.tiles.size))))

    made.start_round = start_round
    return made


async def run_until(bots: BotRunner[Any, Any], clock: Clock, game: Tabled, until: float) -> None:
    while clock.now < until and game.table.game.phase is not tf.Phase.OVER:
        await bots.step("g")
        clock.now += 0.5


async def test_bots_left_alone_leave_the_table_and_the_game_ends() -> None:
    game, clock = Tabled("ada", "bot:easy", "bot:hard"), Clock()
    bots = runner(game, clock)
    # Bots that take their time: the game can end only by their leaving, not their play.
    bots.settings = TakeFourSettings(pause_seconds=1000.0, idle_seconds=1.0, human_pace=False)
    game.run(tf.Forfeit(0, "LEFT"))
    await run_until(bots, clock, game, ALONE_SECONDS + 5)
    state = game.table.game
    assert state.phase is tf.Phase.OVER
    assert clock.now <= ALONE_SECONDS + 1
    assert state.players[1].forfeited or state.players[2].forfeited
    assert "g" not in bots.games or not await bots.step("g")


async def test_a_table_of_bots_only_ends_too() -> None:
    game, clock = Tabled("bot:easy", "bot:hard"), Clock()
    bots = runner(game, clock)
    await run_until(bots, clock, game, ALONE_SECONDS + 5)
    assert game.table.game.phase is tf.Phase.OVER


async def test_a_person_who_walked_away_leaves_and_the_game_ends() -> None:
    game, clock = Tabled("ada", "bot:hard"), Clock()
    bots = runner(game, clock)
    await run_until(bots, clock, game, ABANDON_SECONDS - 1)
    assert not game.table.game.players[0].forfeited  # the bots play on beside ada meanwhile
    await run_until(bots, clock, game, ABANDON_SECONDS + ALONE_SECONDS + 5)
    state = game.table.game
    assert state.phase is tf.Phase.OVER
    assert state.players[0].forfeited


async def test_a_person_who_acts_is_not_taken_from_the_table() -> None:
    game, clock = Tabled("ada", "bot:hard"), Clock()
    bots = runner(game, clock)
    await run_until(bots, clock, game, ABANDON_SECONDS - 10)
    hand = game.table.game.players[0].hand
    game.run(tf.PlaceTile(0, hand[0], 0, 0, None if hand[0] < 11 else "A"))
    await run_until(bots, clock, game, ABANDON_SECONDS + 10)
    assert not game.table.game.players[0].forfeited


def test_a_target_without_a_round_limit_is_bounded() -> None:
    with pytest.raises(InvalidArgument) as refused:
        tf.TakeFourConfig(target=1_000_000).validate()
    assert refused.value.reason == "GAME_UNBOUNDED"
    tf.TakeFourConfig(target=1_000_000, max_rounds=50).validate()
    tf.TakeFourConfig(target=1_000).validate()
