"""A game is said once: its declaration and the game contract give the game host the rest.

``GameType`` takes the name and seat range from the engine and builds the seated rules and
the replay hooks; ``GameService`` serves declared moves (``Move``) by their RPC names, knows
whose turn a bot has from ``to_move``, and keeps one picture per version of a game that
hides nothing.
"""

from __future__ import annotations

from typing import Any

import pytest
from kits.callers import as_

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4grpc
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.pipeline.games import games
from parlor.gamehost.table.seating import Table
from parlor.gamehost.wire.service import GameService
from parlor.gamehost.wire.wire import Move, Wire
from parlor.gamehost.wiring.component import generated_register
from parlor.gametypes.seats import Seat
from parlor.kit import auth
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import GAME as C4
from parlor.services.connect4x4.game import SERVING as C4_SERVING
from parlor.services.connect4x4.game import WIRE
from parlor.services.takefour.game import GAME as TF

SERVICE = auth.Identity("host", roles=(auth.SERVICE_ROLE,))


def test_every_declaration_takes_its_name_and_seat_range_from_its_engine() -> None:
    for name, game in games().items():
        assert game.engine is not None
        assert (name, game.category) == (game.engine.name, game.engine.name)
        assert (game.min_seats, game.max_seats) == (game.engine.min_seats, game.engine.max_seats)
        seated: Any = game.decider
        assert (seated.min_seats, seated.max_seats) == (game.min_seats, game.max_seats)
        assert game.decider is game.decider  # made once
        assert game.rules() is not game.decider  # a fresh one for a fold of its own
        assert game.create_of is game.create_of
        assert game.service.endswith("Service")
        assert game.service.startswith(f"parlor.{name}.")


def test_every_departure_is_an_event_of_the_game_naming_a_seat() -> None:
    """What the game directory folds to stop counting a game against a player who left it:
    each a body of the game's ``GameEvent`` with a ``seat``; every game whose players can
    leave while the others play on declares them."""
    for name, game in games().items():
        assert game.proto is not None
        bodies = {
            f.message_type.full_name
            for f in game.proto.GameEvent.DESCRIPTOR.fields
            if f.containing_oneof is not None
        }
        for departure in game.departures:
            assert departure.DESCRIPTOR.full_name in bodies, (name, departure)
            assert "seat" in departure.DESCRIPTOR.fields_by_name, (name, departure)
        if game.max_seats > 2:
            assert game.departures, name


def test_the_proto_gives_the_grpc_registration() -> None:
    assert generated_register(C4) is c4grpc.add_Connect4x4ServiceServicer_to_server


def test_a_declared_move_is_served_under_its_rpc_name() -> None:
    declared = WIRE.moves["PlayMove"]
    assert isinstance(declared, Move)
    assert declared.name == "PlayMove"
    host: Any = GameHost(C4.name, C4.decider, C4.codec, InMemoryEventStore())
    assert C4_SERVING.servicer(host).PlayMove.__name__ == "PlayMove"


def test_a_wire_move_named_after_no_rpc_is_refused_when_the_servicer_is_built() -> None:
    host: Any = GameHost(C4.name, C4.decider, C4.codec, InMemoryEventStore())
    typo = Wire(WIRE.game, WIRE.event, {"PlayMoov": Move(lambda r, table, seat: c4.Resign(seat))})
    with pytest.raises(TypeError, match=r"PlayMoov is no RPC of parlor\.connect4x4\.v1"):
        GameService(host, game=C4, wire=typo)


async def test_declared_moves_answer_with_their_own_response_type() -> None:
    host: Any = GameHost(C4.name, C4.decider, C4.codec, InMemoryEventStore())
    servicer = C4_SERVING.servicer(host)
    seats = [common_pb2.Seat(player_id="ada"), common_pb2.Seat(player_id="bob")]
    config = c4pb.Config(players=2, first_seat=0)
    request = c4pb.CreateGameRequest(game_id="g", seats=seats, config=config)
    await as_(SERVICE, servicer.CreateGame(request, None))
    played = await as_("ada", servicer.PlayMove(c4pb.PlayMoveRequest(game_id="g", move="df"), None))
    assert isinstance(played, c4pb.PlayMoveResponse)
    assert [e.WhichOneof("body") for e in played.events] == ["checker_dropped"]
    resigned = await as_("bob", servicer.Resign(c4pb.ResignRequest(game_id="g"), None))
    assert isinstance(resigned, c4pb.ResignResponse)
    assert resigned.game.winners == [0]


def c4_table(*players: str) -> Table[c4.State]:
    state = c4.initial_state()
    for event in c4.decide(state, c4.CreateGame(c4.Config(len(players), first_seat=1))):
        state = c4.evolve(state, event)
    return Table(tuple(Seat(p) for p in players), state)


def test_the_bot_to_move_is_the_engines_one_seat_to_move_if_a_bot_holds_it() -> None:
    host: Any = GameHost(C4.name, C4.decider, C4.codec, InMemoryEventStore())
    servicer = C4_SERVING.servicer(host)
    assert servicer.pipeline.bot_to_move(c4_table("ada", "bot:random")) == 1  # seat 1 moves first
    assert servicer.pipeline.bot_to_move(c4_table("bot:random", "ada")) is None
    assert servicer.pipeline.bot_to_move(Table((), c4.initial_state())) is None
    assert TF.simultaneous  # its bots are the runner's: never played here


def test_a_game_that_hides_nothing_shows_every_viewer_one_picture_per_version() -> None:
    host: Any = GameHost(C4.name, C4.decider, C4.codec, InMemoryEventStore())
    servicer = C4_SERVING.servicer(host)
    table = c4_table("ada", "bob")
    seen = [servicer.pictures.game_message("g", 2, table, viewer, False) for viewer in (0, 1, None)]
    assert seen[0] is seen[1] is seen[2]
    assert servicer.pictures.game_message("g", 3, table, 0, False) is not seen[0]


async def test_the_callers_own_seat_named_by_no_display_name_takes_their_tokens_name() -> None:
    """A client that signed in as "Ada" and seats itself by id alone is shown as Ada, as a
    match seats her, not as her guest id; other seats keep their ids."""
    host: Any = GameHost(C4.name, C4.decider, C4.codec, InMemoryEventStore())
    servicer = C4_SERVING.servicer(host)
    seats = [common_pb2.Seat(player_id="guest-1"), common_pb2.Seat(player_id="bot:random")]
    request = c4pb.CreateGameRequest(seats=seats, config=c4pb.Config(players=2, first_seat=0))
    ada = auth.Identity("guest-1", name="Ada")
    created = await as_(ada, servicer.CreateGame(request, None))
    assert [s.display_name for s in created.game.seats] == ["Ada", "bot:random"]
    named = c4pb.CreateGameRequest()
    named.CopyFrom(request)
    named.seats[0].display_name = "Ada L."
    created = await as_(ada, servicer.CreateGame(named, None))
    assert created.game.seats[0].display_name == "Ada L."
