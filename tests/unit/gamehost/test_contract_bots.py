"""A bot runner's game read from the game's contract (``botrunner.ContractBots``)."""

from __future__ import annotations

from typing import Any

from parlor.gamehost.drivers.botrunner import ContractBots
from parlor.rules import takefour as tf
from parlor.rules.takefour.contract import ENGINE


def played(*commands: Any) -> tf.TakeFourState:
    state = tf.TAKE_FOUR.initial_state()
    for command in commands:
        for event in tf.TAKE_FOUR.decide(state, command):
            state = tf.TAKE_FOUR.evolve(state, event)
    return state


async def test_phases_and_views_are_the_contracts_and_the_shared_part_is_built_once() -> None:
    built: list[str] = []
    made: list[tuple[str, str]] = []

    def shared() -> str:
        built.append("index")
        return "index"

    def seat_bot(index: str, level: str) -> Any:
        made.append((index, level))
        return tf.BotSeat(tf.TakeFourBot(["CAT"]))

    bots = ContractBots(ENGINE, shared, seat_bot, lambda s: s.round)
    await bots.prepare()
    await bots.seat_bot("easy")
    await bots.seat_bot("hard")
    assert built == ["index"]
    assert made == [("index", "easy"), ("index", "hard")]

    config = tf.TakeFourConfig()
    created = played(tf.CreateGame(config, ("ada", "bob")))
    assert bots.between_rounds(created)
    assert not bots.over(created)
    playing = played(
        tf.CreateGame(config, ("ada", "bob")), tf.StartRound(tuple(range(config.tiles.size)))
    )
    assert not bots.between_rounds(playing)
    assert not bots.over(playing)
    assert bots.round(playing) == 1
    assert bots.view(playing, 1) == tf.view(playing, 1)  # the seat's own view, nothing more
    ended = played(
        tf.CreateGame(config, ("ada", "bob")),
        tf.StartRound(tuple(range(config.tiles.size))),
        tf.Forfeit(0, "LEFT"),
    )
    assert bots.over(ended)
