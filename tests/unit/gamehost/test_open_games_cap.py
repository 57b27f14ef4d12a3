"""A player holds at most ``max_open_games`` unfinished games of a type; the next is refused.

``CreateGame`` counts the caller's unfinished games (here from the in-memory store's events,
``EventScan``; in production the game directory) and refuses ``RESOURCE_EXHAUSTED``
``TOO_MANY_OPEN_GAMES`` before anything is written; a finished game frees its slot, and
services, other players and retries of a game already made are not refused.
"""

from __future__ import annotations

from typing import Any

import pytest
from kits.callers import as_

from parlor.admission.opengames import OpenGamesSettings
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
from parlor.core.errors import ResourceExhausted
from parlor.directory.eventscan import EventScan
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.wire.service import GameService
from parlor.kit import auth
from parlor.kit.settings import load
from parlor.services.connect4x4.game import GAME as C4
from parlor.services.connect4x4.game import SERVING as C4_SERVING

SERVICE = auth.Identity("service:tournaments", roles=(auth.SERVICE_ROLE,))


def make(limit: int) -> tuple[InMemoryEventStore, GameService[Any, Any]]:
    store = InMemoryEventStore()
    host: Any = GameHost(C4.name, C4.decider, C4.codec, store)
    servicer = C4_SERVING.servicer(
        host, open_games=EventScan(store, C4.category, C4.departures), max_open_games=limit
    )
    return store, servicer


def create(game_id: str, player: str = "ada", command_id: str = "") -> c4pb.CreateGameRequest:
    seats = [common_pb2.Seat(player_id=player), common_pb2.Seat(player_id="bot:random")]
    return c4pb.CreateGameRequest(
        game_id=game_id,
        seats=seats,
        config=c4pb.Config(players=2, first_seat=0),
        command_id=command_id,
    )


async def test_the_game_over_the_cap_is_refused_before_anything_is_written() -> None:
    store, servicer = make(limit=2)
    await as_("ada", servicer.CreateGame(create("g1", command_id="c1"), None))
    await as_("ada", servicer.CreateGame(create("g2"), None))
    head = await store.head_position()
    with pytest.raises(ResourceExhausted) as refused:
        await as_("ada", servicer.CreateGame(create("g3"), None))
    assert refused.value.reason == "TOO_MANY_OPEN_GAMES"
    assert refused.value.metadata == {"max_open_games": "2", "game_type": C4.name}
    assert await store.head_position() == head
    assert not await servicer.host.exists("g3")
    # A retry of a create already made is answered, not refused.
    again = await as_("ada", servicer.CreateGame(create("g1", command_id="c1"), None))
    assert again.game.game_id == "g1"
    # Others, and services seating ada, are not held to ada's count.
    await as_("bob", servicer.CreateGame(create("b1", "bob"), None))
    await as_(SERVICE, servicer.CreateGame(create("s1"), None))
    assert await store.head_position() > head


async def test_a_finished_game_frees_its_slot() -> None:
    _, servicer = make(limit=1)
    await as_("ada", servicer.CreateGame(create("g1"), None))
    with pytest.raises(ResourceExhausted):
        await as_("ada", servicer.CreateGame(create("g2"), None))
    resigned = await as_("ada", servicer.Resign(c4pb.ResignRequest(game_id="g1"), None))
    assert resigned.game.status == c4pb.STATUS_WON
    created = await as_("ada", servicer.CreateGame(create("g2"), None))
    assert created.game.game_id == "g2"


async def test_a_cap_of_zero_is_no_cap_and_the_default_is_one_people_never_reach() -> None:
    _, servicer = make(limit=0)
    for n in range(5):
        await as_("ada", servicer.CreateGame(create(f"g{n}"), None))
    assert load(OpenGamesSettings, {}).max_per_player == 20
    assert load(OpenGamesSettings, {"PARLOR_MAX_OPEN_GAMES_PER_PLAYER": "0"}).max_per_player == 0


async def test_a_game_the_player_left_while_the_others_play_on_frees_its_slot() -> None:
    """Resigning from a game of three ends it for the resigner alone: the others may play on
    (untimed, for as long as they like) and the resigner can do nothing more there, so it no
    longer counts among their open games; it still does for those who stay."""
    _, servicer = make(limit=1)
    three = create("g1")
    del three.seats[:]
    three.seats.extend(common_pb2.Seat(player_id=p) for p in ("ada", "bob", "cat"))
    three.config.players = 3
    await as_(SERVICE, servicer.CreateGame(three, None))  # a tournament's table of three
    with pytest.raises(ResourceExhausted):
        await as_("ada", servicer.CreateGame(create("g2"), None))
    resigned = await as_("ada", servicer.Resign(c4pb.ResignRequest(game_id="g1"), None))
    assert resigned.game.status == c4pb.STATUS_IN_PROGRESS  # bob and cat play on
    created = await as_("ada", servicer.CreateGame(create("g2"), None))
    assert created.game.game_id == "g2"
    with pytest.raises(ResourceExhausted):  # bob still holds g1
        await as_("bob", servicer.CreateGame(create("b1", "bob"), None))
