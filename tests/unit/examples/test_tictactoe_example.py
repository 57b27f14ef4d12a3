"""The example fourth game (examples/tictactoe) on the generic game host, end to end.

The example is a package of its own, not installed by ``make install`` (so the platform,
matchmaking and the deploy checks never see it): ``kits.example`` builds its protobuf code
with the example's own build hook into a temporary folder and puts it and the example's
source on the path. This test serves the game through ``GameService`` on an in-memory store: created
(also against a bot), played to the end over the servicer's RPCs, watched, read back,
replayed, exported and verified by today's rules. Its declaration is the one its
pyproject registers under ``parlor.game_types``, and it keeps the game contract.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from kits.callers import as_
from kits.example import registered, tictactoe_on_path

from parlor.common.v1 import common_pb2
from parlor.core.conformance import check_contract
from parlor.core.errors import InvalidArgument, PermissionDenied
from parlor.core.game import problems
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.pipeline.games import GameType
from parlor.gamehost.verify.verify import verify_history
from parlor.gametypes.catalogue import GROUP
from parlor.kit import auth

SERVICE = auth.Identity("host", roles=(auth.SERVICE_ROLE,))


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The example's component module (its servicer built from the game's value and its
    wire), its protobuf code generated as its build would."""
    with tictactoe_on_path(tmp_path_factory.mktemp("tictactoe-generated")):
        yield importlib.import_module("parlor.examples.tictactoe.game")


def make(example: Any) -> tuple[Any, Any, GameType[Any, Any, Any]]:
    game = registered(GROUP)
    host: Any = GameHost(game.name, game.decider, game.codec, InMemoryEventStore())
    return host, example.SERVING.servicer(host), game


async def collect(identity: str, stream: AsyncIterator[Any]) -> list[Any]:
    token = auth.bind(auth.Identity(identity))
    try:
        return [item async for item in stream]
    finally:
        auth.unbind(token)


def test_the_declaration_is_registered_by_the_examples_pyproject(example: Any) -> None:
    game = registered(GROUP)
    assert isinstance(game, GameType)
    assert (game.name, game.min_seats, game.max_seats) == ("tictactoe", 2, 2)
    assert game.service == "parlor.tictactoe.v1.TicTacToeService"
    assert game.engine is not None
    assert problems(game.engine) == []
    assert callable(registered("parlor.services"))


def test_the_engine_keeps_the_game_contract(example: Any) -> None:
    rules = importlib.import_module("parlor.examples.tictactoe.rules")
    for seed in range(5):
        played = check_contract(rules.ENGINE, [rules.CreateGame()], random.Random(seed))
        assert rules.ENGINE.is_terminal(played.final_state)


async def test_two_players_play_to_a_win_and_every_shared_rpc_answers(example: Any) -> None:
    pb = example.GAME.proto
    host, servicer, game = make(example)
    seats = [common_pb2.Seat(player_id=p, display_name=p.title()) for p in ("ada", "bob")]
    created = await as_(
        SERVICE, servicer.CreateGame(pb.CreateGameRequest(game_id="g1", seats=seats), None)
    )
    assert list(created.game.seats_to_move) == [0]
    assert [e.WhichOneof("body") for e in created.events] == ["seats_taken", "game_created"]

    with pytest.raises(PermissionDenied):
        await as_("bob", servicer.PlayMove(pb.PlayMoveRequest(game_id="g1", move="a1"), None))
    with pytest.raises(InvalidArgument) as bad:
        await as_("ada", servicer.PlayMove(pb.PlayMoveRequest(game_id="g1", move="d9"), None))
    assert bad.value.reason == "INVALID_NOTATION"

    moves = [("ada", "a1"), ("bob", "b1"), ("ada", "a2"), ("bob", "b2"), ("ada", "a3")]
    last = None
    for i, (who, square) in enumerate(moves):
        request = pb.PlayMoveRequest(game_id="g1", move=square, command_id=f"m{i}")
        last = await as_(who, servicer.PlayMove(request, None))
    assert last is not None
    assert list(last.game.winners) == [0]
    assert list(last.game.seats_to_move) == []
    assert last.game.end_reason == "THREE_IN_A_LINE"
    assert [e.WhichOneof("body") for e in last.events] == [
        "mark_placed",
        "game_won",
        "game_finished",
    ]
    assert last.events[0].notation == "a3"

    now = await as_("carol", servicer.GetGame(pb.GetGameRequest(game_id="g1"), None))
    assert now.game.squares[:3] == ["X", "O", ""]
    at_three = await as_(
        "carol", servicer.GetGame(pb.GetGameRequest(game_id="g1", version=3), None)
    )
    assert list(at_three.game.squares).count("X") == 1

    history = await as_("carol", servicer.GetHistory(pb.GetHistoryRequest(game_id="g1"), None))
    assert len(history.events) == now.game.version == 9
    watched = await collect("carol", servicer.WatchGame(pb.WatchGameRequest(game_id="g1"), None))
    assert [w.event.info.version for w in watched] == list(range(1, 10))
    replayed = await collect("carol", servicer.ReplayGame(pb.ReplayGameRequest(game_id="g1"), None))
    assert replayed[-1].game == now.game

    exported = await as_("carol", servicer.ExportGame(pb.ExportGameRequest(game_id="g1"), None))
    assert exported.text.splitlines()[-1] == "a1 b1 a2 b2 a3"
    assert exported.text.splitlines()[:2] == ['[Seat0 "Ada"]', '[Seat0Id "ada"]']

    stored = [r.event for r in await host.history("g1")]
    verdict = verify_history(game.decider, game.command_of, stored, create_of=game.create_of)
    assert verdict.ok
    assert verdict.commands == 6  # the creation and five marks
    finished = stored[-1]
    assert [s.rank for s in finished.standings] == [1, 2]


async def test_a_bot_answers_every_move_to_the_end(example: Any) -> None:
    pb = example.GAME.proto
    _, servicer, _ = make(example)
    seats = [common_pb2.Seat(player_id="ada"), common_pb2.Seat(player_id="bot:random")]
    request = pb.CreateGameRequest(game_id="g2", seats=seats)
    game = (await as_("ada", servicer.CreateGame(request, None))).game
    for _ in range(5):
        if not game.seats_to_move:
            break
        free = next(i for i, mark in enumerate(game.squares) if not mark)
        move = "abc"[free % 3] + str(free // 3 + 1)
        game = (
            await as_("ada", servicer.PlayMove(pb.PlayMoveRequest(game_id="g2", move=move), None))
        ).game
        assert list(game.seats_to_move) in ([0], [])
    assert not game.seats_to_move
    assert game.end_reason in ("THREE_IN_A_LINE", "DRAW")
