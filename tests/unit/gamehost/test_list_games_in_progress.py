"""``ListGames`` for every game, served by the game host: a player's games in progress alone
(``in_progress_only``), finished ones alone, or all; both filters at once are refused.

Here over the in-memory store (``EventScan``: the directory read from the events); the
directory's tables answer the same in tests/integration/replay/test_replay_directory.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from kits.callers import as_

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
from parlor.core.errors import InvalidArgument
from parlor.directory.eventscan import EventScan
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.wire.service import GameService
from parlor.kit import auth
from parlor.services.connect4x4.game import GAME as C4
from parlor.services.connect4x4.game import SERVING as C4_SERVING

SERVICE = auth.Identity("service:tournaments", roles=(auth.SERVICE_ROLE,))


def make() -> GameService[Any, Any]:
    store = InMemoryEventStore()
    host: Any = GameHost(C4.name, C4.decider, C4.codec, store)
    return C4_SERVING.servicer(
        host, directory=EventScan(store, C4.category, C4.departures), max_open_games=0
    )


async def create(servicer: GameService[Any, Any], game_id: str, *players: str) -> None:
    seats = [common_pb2.Seat(player_id=p, display_name=p.title()) for p in players]
    request = c4pb.CreateGameRequest(
        game_id=game_id, seats=seats, config=c4pb.Config(players=len(seats))
    )
    await as_(SERVICE, servicer.CreateGame(request, None))


async def listed(servicer: GameService[Any, Any], **fields: Any) -> list[str]:
    """A listing as the player it filters by asks for it (others find a player only where
    they chose to be found), else as ada."""
    caller = fields.get("player_id") or "ada"
    response = await as_(caller, servicer.ListGames(c4pb.ListGamesRequest(**fields), None))
    return [g.game_id for g in response.games]


async def test_a_game_the_player_left_while_the_others_play_on_is_not_theirs_in_progress() -> None:
    """Resigned from a game of three that bob and carol play on: ada has nothing to resume
    there (nor does the open-games cap count it), but it is still a game seating her, and
    still in progress for everyone else's listing."""
    servicer = make()
    await create(servicer, "g1", "ada", "bob", "carol")
    await create(servicer, "g2", "ada", "bot:random")
    await as_("ada", servicer.Resign(c4pb.ResignRequest(game_id="g1"), None))

    assert await listed(servicer, player_id="ada", in_progress_only=True) == ["g2"]
    assert await listed(servicer, player_id="ada") == ["g2", "g1"]
    assert await listed(servicer, player_id="bob", in_progress_only=True) == ["g1"]
    assert await listed(servicer, in_progress_only=True) == ["g2", "g1"]


async def test_a_players_games_in_progress_are_listed_alone_newest_first() -> None:
    servicer = make()
    await create(servicer, "g1", "ada", "bot:random")
    await create(servicer, "g2", "ada", "bob")
    await create(servicer, "g3", "bob", "carol")
    await create(servicer, "g4", "ada", "bot:random")
    await as_("ada", servicer.Resign(c4pb.ResignRequest(game_id="g2"), None))

    assert await listed(servicer, player_id="ada", in_progress_only=True) == ["g4", "g1"]
    assert await listed(servicer, player_id="ada", finished_only=True) == ["g2"]
    assert await listed(servicer, player_id="ada") == ["g4", "g2", "g1"]
    assert await listed(servicer, in_progress_only=True) == ["g4", "g3", "g1"]
    # paged like any listing: the token continues after the last game of the page
    first = await as_(
        "ada",
        servicer.ListGames(
            c4pb.ListGamesRequest(player_id="ada", in_progress_only=True, page_size=1), None
        ),
    )
    assert [g.game_id for g in first.games] == ["g4"]
    assert not first.games[0].HasField("finished_at")
    assert [s.player_id for s in first.games[0].seats] == ["ada", "bot:random"]
    rest = await listed(
        servicer, player_id="ada", in_progress_only=True, page_token=first.next_page_token
    )
    assert rest == ["g1"]


async def test_finished_only_and_in_progress_only_together_are_refused() -> None:
    servicer = make()
    with pytest.raises(InvalidArgument) as refused:
        await listed(servicer, player_id="ada", finished_only=True, in_progress_only=True)
    assert refused.value.reason == "CONFLICTING_FILTERS"


async def test_the_scan_counts_what_it_lists_as_in_progress() -> None:
    """The open-games cap and the listing read the same games: what one counts, the other
    lists."""
    store = InMemoryEventStore()
    host: Any = GameHost(C4.name, C4.decider, C4.codec, store)
    scan = EventScan(store, C4.category)
    servicer = C4_SERVING.servicer(host, directory=scan, max_open_games=0)
    await create(servicer, "g1", "ada", "bot:random")
    await create(servicer, "g2", "ada", "bot:random")
    await as_("ada", servicer.Resign(c4pb.ResignRequest(game_id="g1"), None))
    in_progress = await scan.list(player_id="ada", finished=False)
    assert [g.game_id for g in in_progress] == ["g2"]
    assert await scan.open_games("ada", 20) == 1
