"""Every registered game offers the one game contract (``parlor.core.game``) and keeps it.

The contract is checked by name (``problems``), then by random playouts through the
contract alone (``check_contract``): moves only for seats to move, a result exactly when
the game is over, every event one of the game's and its secret fields hidden.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from kits.takefour import check_invariants, lenient_word, tile_set

from parlor.core.conformance import check_contract
from parlor.core.game import GameContract, Result, Secret, problems, secret_fields
from parlor.gamehost.pipeline.games import GameType, games
from parlor.rules import connect4x4 as c4
from parlor.rules import takefour as tf
from parlor.rules import upwords as uw
from parlor.rules.takefour.rules import attach_verdicts


@dataclass(frozen=True)
class Kit:
    """How a test starts one game of a kind, and plays the service's part in it."""

    setup: Callable[[int, random.Random], list[Any]]
    chance: Callable[[Any, random.Random], Any] | None = None
    prepare: Callable[[Any, Any], Any] | None = None
    check_invariants: Callable[[Any], None] = lambda state: None


def _shuffled(items: tuple[Any, ...], rng: random.Random) -> tuple[Any, ...]:
    order = list(items)
    rng.shuffle(order)
    return tuple(order)


def _upwords(seats: int, rng: random.Random) -> list[Any]:
    bag = tuple(uw.full_bag())
    names = tuple(f"p{i}" for i in range(seats))
    return [uw.CreateGame(uw.UpwordsConfig(), names, _shuffled(bag, rng), _shuffled(bag, rng))]


def _takefour(seats: int, rng: random.Random) -> list[Any]:
    config = tf.TakeFourConfig(tiles=tile_set("E6 A4 T4 S2", jokers=2), checking="auto", target=5)
    return [tf.CreateGame(config, tuple(f"p{i}" for i in range(seats)))]


def _deal(state: tf.TakeFourState, rng: random.Random) -> tf.StartRound:
    return tf.StartRound(_shuffled(tuple(range(state.config.tiles.size)), rng))


def _tictactoe(seats: int, rng: random.Random) -> list[Any]:
    from parlor.examples.tictactoe import rules as ttt

    return [ttt.CreateGame()]


KITS: dict[str, Kit] = {
    "connect4x4": Kit(lambda seats, rng: [c4.CreateGame(c4.Config(players=seats))]),
    "upwords": Kit(_upwords),
    "takefour": Kit(
        _takefour,
        chance=_deal,
        prepare=lambda state, command: attach_verdicts(state, command, lenient_word),
        check_invariants=check_invariants,
    ),
    "tictactoe": Kit(_tictactoe),
}
REGISTERED = games()


def test_the_three_games_are_registered() -> None:
    assert {"connect4x4", "upwords", "takefour"} <= set(REGISTERED)


@pytest.mark.parametrize("name", sorted(REGISTERED))
def test_every_registered_game_declares_an_engine_that_names_the_whole_contract(
    name: str,
) -> None:
    game: GameType[Any, Any, Any] = REGISTERED[name]
    assert game.engine is not None, f"{name}'s declaration names no engine (engine=ENGINE)"
    assert isinstance(game.engine, GameContract)
    assert problems(game.engine) == []
    assert game.engine.name == name
    assert (game.engine.min_seats, game.engine.max_seats) == (game.min_seats, game.max_seats)


@pytest.mark.parametrize("name", sorted(REGISTERED))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_registered_game_keeps_its_contract_in_random_playouts(name: str, seed: int) -> None:
    engine = REGISTERED[name].engine
    assert engine is not None
    assert name in KITS, f"no conformance kit for {name}: add one to KITS"
    kit = KITS[name]
    rng = random.Random(seed)
    seats = rng.randint(engine.min_seats, engine.max_seats)
    played = check_contract(
        engine,
        kit.setup(seats, rng),
        rng,
        chance=kit.chance,
        prepare=kit.prepare,
        check_invariants=kit.check_invariants,
        max_steps=3_000,
    )
    assert played.steps > 0
    if engine.is_terminal(played.final_state):
        assert isinstance(engine.result(played.final_state), Result)


def test_secret_fields_are_marked_one_way_in_every_game() -> None:
    assert tf.Secret is Secret
    assert secret_fields(uw.GameCreated) == {"racks", "bag"}
    assert secret_fields(uw.TileExchanged) == {"returned", "drawn", "position"}
    assert secret_fields(tf.TilesDealt) == {"hands", "unused"}
    assert secret_fields(c4.CheckerDropped) == frozenset()


def test_a_missing_name_is_reported() -> None:
    class Half:
        name = "half"
        min_seats, max_seats = 2, 1

    found = problems(Half())
    assert "no decider" in found
    assert "no view()" in found
    assert any("seat range" in p for p in found)
