"""Bots at a human pace: with a person at the table each bot level waits its time per step.

The runner's clock is given (no sleeping in the test, none in the engine): a bot's next
step is due its level's pace after its last command, and after the start of a round.
"""

from __future__ import annotations

from typing import Any

from kits.takefour import lexicon, tile_set

from parlor.core.decider import replay
from parlor.gamehost.drivers.botrunner import BotRunner
from parlor.gamehost.table.seating import OpenTable
from parlor.gametypes.seats import Seat
from parlor.rules import takefour as tf
from parlor.rules.takefour.rules import attach_verdicts
from parlor.services.takefour.game import TakeFourSettings, engine_seats, rules
from parlor.services.takefour.game import bots as takefour_bots

RULES = rules()
TILES = tile_set("C1 A1 T1 S1 D1 O1 G1 E1 H1 I1 N1", jokers=1)
WORDS = ("CATS", "CAT", "AT", "DOG", "DO", "GOD", "HE", "HI", "IN")


class Tabled:
    """One game kept in memory; the runner loads it and acts on it through the engine."""

    def __init__(self, *players: str) -> None:
        seats = tuple(Seat(p, p) for p in players)
        self.players = players
        config = tf.TakeFourConfig(tiles=TILES, max_rounds=1, lexicon="enable1-test")
        self.table = RULES.initial_state()
        self.version = 0
        self.run(OpenTable(seats, tf.CreateGame(config, engine_seats(seats))))
        self.run(tf.StartRound(tuple(range(TILES.size))))
        self.acted: list[tuple[float, int]] = []

    def run(self, command: Any) -> None:
        if isinstance(command, tf.CallTakeFour | tf.CallDone):
            command = attach_verdicts(self.table.game, command, lexicon(*WORDS))
        decided = RULES.decide(self.table, command)
        self.table = replay(RULES, decided, self.table)
        self.version += len(decided)

    async def load(self, game_id: str) -> tuple[tuple[str, ...], tf.TakeFourState, int]:
        return self.players, self.table.game, self.version


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def runner(game: Tabled, clock: Clock, human_pace: bool = True) -> BotRunner[Any, Any]:
    async def act(game_id: str, player: str, seat: int, command: Any, command_id: str) -> None:
        game.run(command)
        game.acted.append((clock.now, seat))

    async def start_round(game_id: str) -> None:
        raise AssertionError("the round is dealt")

    settings = TakeFourSettings(pause_seconds=0.0, idle_seconds=1.0, human_pace=human_pace)
    made = BotRunner(
        takefour_bots(words=lambda: WORDS),
        settings,
        game.load,
        act,
        start_round,
        paces={"easy": 8.0, "hard": 3.0},
        clock=clock,
    )
    made.track("g", game.players, over=False)
    return made


async def steps_at(bots: BotRunner[Any, Any], clock: Clock, times: list[float]) -> list[bool]:
    acted = []
    for t in times:
        clock.now = t
        acted.append(await bots.step("g"))
    return acted


async def test_beside_a_person_a_bot_waits_its_levels_pace_per_step() -> None:
    game, clock = Tabled("ada", "bot:easy"), Clock()
    bots = runner(game, clock)
    acted = await steps_at(bots, clock, [0.0, 7.9, 8.0, 8.1, 15.9, 16.0])
    assert acted == [False, False, True, False, False, True]
    assert [t for t, _ in game.acted] == [8.0, 16.0]


async def test_each_level_has_its_own_pace() -> None:
    game, clock = Tabled("ada", "bot:hard"), Clock()
    bots = runner(game, clock)
    assert await steps_at(bots, clock, [0.0, 3.0, 5.9, 6.0]) == [False, True, False, True]


async def test_bots_among_themselves_only_pause() -> None:
    game, clock = Tabled("bot:easy", "bot:hard"), Clock()
    bots = runner(game, clock)
    assert await steps_at(bots, clock, [0.0, 0.0, 0.0]) == [True, True, True]


async def test_the_pace_can_be_switched_off() -> None:
    game, clock = Tabled("ada", "bot:easy"), Clock()
    bots = runner(game, clock, human_pace=False)
    assert await steps_at(bots, clock, [0.0, 0.0]) == [True, True]


async def test_once_every_person_has_left_the_bots_only_pause() -> None:
    """Nobody is left to keep up with: the game is played out at the bots' own speed, not
    at a person's (an hour of steps 3-8 s apart for a game its person walked away from)."""
    game, clock = Tabled("ada", "bot:easy", "bot:hard"), Clock()
    bots = runner(game, clock)
    assert await steps_at(bots, clock, [0.0, 1.0]) == [False, False]  # paced beside ada
    game.run(tf.Forfeit(0, "LEFT"))
    assert await steps_at(bots, clock, [1.0, 1.0, 1.0]) == [True, True, True]


async def test_a_person_still_playing_keeps_the_pace_when_another_leaves() -> None:
    game, clock = Tabled("ada", "bob", "bot:easy"), Clock()
    bots = runner(game, clock)
    game.run(tf.Forfeit(0, "LEFT"))
    assert await steps_at(bots, clock, [0.0, 7.9, 8.0]) == [False, False, True]
