"""The same thing has the same shape in every game's API (issue 18), beside the old fields.

``seats_to_move`` in every ``Game``, ``winners`` as a list in Connect 4x4 too, Connect
4x4's ``ExportGame`` (served by the generic servicer), and its ``CreateGame`` and ``Resign``
answering with the events they appended, a bot's opening move included.
"""

from __future__ import annotations

from typing import Any

from kits.callers import as_

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.table.seating import Table
from parlor.gamehost.wire.service import GameService
from parlor.gametypes.seats import Seat
from parlor.rules import connect4x4 as c4
from parlor.rules import takefour as tf
from parlor.rules import upwords as uw
from parlor.services.connect4x4.game import GAME as C4
from parlor.services.connect4x4.game import SERVING as C4_SERVING
from parlor.services.connect4x4.game import game_pb
from parlor.services.takefour import game as tf_codec
from parlor.services.upwords import game as uw_codec
from parlor.takefour.v1 import takefour_pb2
from parlor.upwords.v1 import upwords_pb2


def c4_servicer() -> GameService[Any, Any]:
    host: Any = GameHost(C4.name, C4.decider, C4.codec, InMemoryEventStore())
    return C4_SERVING.servicer(host)


async def test_connect4x4_create_returns_the_bots_opening_move_and_resign_its_events() -> None:
    servicer = c4_servicer()
    seats = [common_pb2.Seat(player_id="ada"), common_pb2.Seat(player_id="bot:random")]
    created = await as_(
        "ada",
        servicer.CreateGame(
            c4pb.CreateGameRequest(
                game_id="g", seats=seats, config=c4pb.Config(players=2, first_seat=1)
            ),
            None,
        ),
    )
    kinds = [e.WhichOneof("body") for e in created.events]
    assert kinds[:2] == ["seats_taken", "game_created"]
    assert kinds[2] in ("checker_dropped", "blocker_dropped")  # the bot moved first
    assert len(created.events) == created.game.version
    assert list(created.game.seats_to_move) == [0]
    assert created.game.turn == 0  # the old field still says the same

    resigned = await as_("ada", servicer.Resign(c4pb.ResignRequest(game_id="g"), None))
    assert [e.WhichOneof("body") for e in resigned.events] == [
        "player_resigned",
        "game_won",
        "game_finished",
    ]
    assert list(resigned.game.winners) == [1]
    assert resigned.game.winner == 1
    assert list(resigned.game.seats_to_move) == []

    exported = await as_("carol", servicer.ExportGame(c4pb.ExportGameRequest(game_id="g"), None))
    tags, lines = exported.text.splitlines()[:4], exported.text.splitlines()[4:]
    assert tags == [
        '[Seat0 "ada"]',
        '[Seat0Id "ada"]',
        '[Seat1 "bot:random"]',
        '[Seat1Id "bot:random"]',
    ]
    assert lines[0].startswith("1 ")
    assert lines[-2] == "0 resign"
    assert lines[-1].startswith("# won 1 ")
    assert [(s.index, s.player_id) for s in exported.seats] == [(0, "ada"), (1, "bot:random")]


async def test_connect4x4_a_tie_has_no_winners_where_the_old_field_said_seat_0() -> None:
    state = c4.State()
    for event in c4.decide(state, c4.CreateGame(c4.Config(players=2))):
        state = c4.evolve(state, event)
    tied = c4.evolve(state, c4.GameTied("NO_LEGAL_MOVES"))
    game = game_pb("g", 3, Table((Seat("ada"), Seat("bob")), tied), None)
    assert game.winner == 0
    assert list(game.winners) == []
    assert list(game.seats_to_move) == []


def test_upwords_game_names_the_seat_to_move_in_the_common_field() -> None:
    bag = tuple(uw.full_bag())
    state = uw.UPWORDS.initial_state()
    for event in uw.UPWORDS.decide(
        state, uw.CreateGame(uw.UpwordsConfig(), ("ada", "bob"), bag, bag)
    ):
        state = uw.UPWORDS.evolve(state, event)
    game = uw_codec.game_pb("g", 3, Table((Seat("ada"), Seat("bob")), state), None)
    assert list(game.seats_to_move) == [game.to_move] == [state.to_move]


def test_takefour_game_names_every_seat_while_a_round_is_played_and_none_between() -> None:
    config = tf.TakeFourConfig()
    state = tf.TAKE_FOUR.initial_state()
    for command in (
        tf.CreateGame(config, ("ada", "bob")),
        tf.StartRound(tuple(range(config.tiles.size))),
    ):
        for event in tf.TAKE_FOUR.decide(state, command):
            state = tf.TAKE_FOUR.evolve(state, event)
    seats = (Seat("ada"), Seat("bob"))
    assert list(tf_codec.game_pb("g", 4, Table(seats, state), 0).seats_to_move) == [0, 1]


def test_every_game_that_creates_answers_with_events_and_names_seats_to_move() -> None:
    for pb in (c4pb, upwords_pb2, takefour_pb2):
        assert "events" in pb.CreateGameResponse.DESCRIPTOR.fields_by_name, pb.__name__
        assert "seats_to_move" in pb.Game.DESCRIPTOR.fields_by_name, pb.__name__
        assert "winners" in pb.Game.DESCRIPTOR.fields_by_name, pb.__name__
        assert (
            "ExportGame"
            in pb.DESCRIPTOR.services_by_name[
                next(iter(pb.DESCRIPTOR.services_by_name))
            ].methods_by_name
        ), pb.__name__


def test_the_fields_of_play_are_read_from_the_contract_alike_for_every_game() -> None:
    from parlor.gamehost.table.codec import play_fields
    from parlor.rules.connect4x4.contract import ENGINE as C4_ENGINE

    state = c4.initial_state()
    for event in c4.decide(state, c4.CreateGame(c4.Config(players=2, first_seat=1))):
        state = c4.evolve(state, event)
    assert play_fields(C4_ENGINE, state, 0) == {
        "seats_to_move": (1,),
        "winners": (),
        "viewer_seat": 0,
    }
    for event in c4.decide(state, c4.Resign(1)):
        state = c4.evolve(state, event)
    fields = play_fields(C4_ENGINE, state, None)
    assert (fields["seats_to_move"], list(fields["winners"]), fields["viewer_seat"]) == (
        (),
        [0],
        None,
    )
