"""A ticket is a game to come: a player at the cap of unfinished games gets none.

``CreateTicket``, ``CreateLobby`` and ``JoinLobby`` ask the game type's count (the game
directory in production; a fixed count here) before any ticket or lobby is stored.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest
from kits.callers import as_

from parlor.core.errors import PermissionDenied, ResourceExhausted
from parlor.gametypes.timecontrol import TimeControl
from parlor.kit import auth
from parlor.matchmaking.v1 import matchmaking_pb2 as pb
from parlor.services.matchmaking.board import TicketBoard
from parlor.services.matchmaking.games import GAME_TYPES
from parlor.services.matchmaking.servicer import MatchmakingServicer

SERVICE = auth.Identity(
    "service:tournaments", roles=(auth.SERVICE_ROLE,), audience=("matchmaking",)
)


class Stored(Exception):
    """The fake store was reached: the cap let the call through."""


class Counted:
    def __init__(self, held: dict[str, int]) -> None:
        self.held = held
        self.asked: list[tuple[str, int]] = []

    async def open_games(self, player_id: str, at_most: int) -> int:
        self.asked.append((player_id, at_most))
        return min(self.held.get(player_id, 0), at_most)


class Engine:
    """The lobbies' transactions: JoinLobby asks the count, then reads the lobby under its
    lock (the count's refusal comes after the lobby's own); CreateLobby asks the count
    before it begins one."""

    def __init__(self) -> None:
        self.began = 0
        self.inside = False

    @contextlib.asynccontextmanager
    async def begin(self) -> AsyncIterator[object]:
        self.began += 1
        self.inside = True
        try:
            yield object()
        finally:
            self.inside = False


class Tickets:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def transaction(self) -> contextlib.AbstractAsyncContextManager[object]:
        return self.engine.begin()

    async def create(self, *args: Any, **kwargs: Any) -> Any:
        raise Stored


class Lobbies:
    def __init__(self) -> None:
        self.engine = Engine()

    async def game_type(self, code: str) -> str | None:
        return "connect4x4"

    async def lock(self, code: str, conn: object, player: str = "") -> Any:
        return SimpleNamespace(
            code=code,
            match_id=None,
            host_waiting=True,
            others=0,
            host_player_id="host",
            game_type="connect4x4",
            min_players=2,
            max_players=2,
            time_control=TimeControl(),
        )


def servicer(
    counted: Counted, limit: int = 3, lobbies: Lobbies | None = None
) -> MatchmakingServicer:
    by_category = {GAME_TYPES["connect4x4"].category: counted}
    lobbies = lobbies or Lobbies()
    return MatchmakingServicer(
        Tickets(lobbies.engine),  # type: ignore[arg-type]
        lobbies,  # type: ignore[arg-type]
        tuple(GAME_TYPES),
        TicketBoard(None),  # type: ignore[arg-type]
        lambda game: by_category.get(game.category),
        limit,
    )


async def test_a_player_at_the_cap_gets_no_ticket_lobby_or_seat_in_a_lobby() -> None:
    counted = Counted({"ada": 3})
    mm = servicer(counted)
    engine = mm.lobbies.engine
    calls = [
        mm.CreateTicket(pb.CreateTicketRequest(game_type="connect4x4"), None),
        mm.CreateLobby(pb.CreateLobbyRequest(game_type="connect4x4"), None),
        mm.JoinLobby(pb.JoinLobbyRequest(code="ABCDEFGHJKMN"), None),
    ]
    for call in calls:
        with pytest.raises(ResourceExhausted) as refused:
            await as_("ada", call)
        assert refused.value.reason == "TOO_MANY_OPEN_GAMES"
        assert refused.value.metadata == {"max_open_games": "3", "game_type": "connect4x4"}
    assert counted.asked == [("ada", 3)] * 3
    assert engine.began == 1  # JoinLobby's, rolled back: CreateLobby refused before it began


async def test_join_lobby_counts_before_its_transaction_holds_a_connection() -> None:
    """A call holds one pooled connection at a time: the count (the directory's, a pooled
    connection of its own) is asked before the lobby's transaction takes one, or calls each
    holding one could take the whole pool and wait for each other's."""
    lobbies = Lobbies()
    inside: list[bool] = []

    class Watched(Counted):
        async def open_games(self, player_id: str, at_most: int) -> int:
            inside.append(lobbies.engine.inside)
            return await super().open_games(player_id, at_most)

    mm = servicer(Watched({}), lobbies=lobbies)
    with pytest.raises(Stored):
        await as_("ada", mm.JoinLobby(pb.JoinLobbyRequest(code="ABCDEFGHJKMN"), None))
    assert inside == [False]
    assert lobbies.engine.began == 1


async def test_under_the_cap_services_and_uncounted_game_types_reach_the_tickets() -> None:
    counted = Counted({"ada": 2, "service:tournaments": 99})
    mm = servicer(counted)
    with pytest.raises(Stored):
        await as_("ada", mm.CreateTicket(pb.CreateTicketRequest(game_type="connect4x4"), None))
    with pytest.raises(Stored):
        await as_(SERVICE, mm.CreateTicket(pb.CreateTicketRequest(game_type="connect4x4"), None))
    with pytest.raises(Stored):  # no count for this type here: not capped
        await as_("ada", mm.CreateTicket(pb.CreateTicketRequest(game_type="upwords"), None))
    with pytest.raises(Stored):  # 0: no cap
        await as_(
            "ada",
            servicer(Counted({"ada": 50}), 0).CreateTicket(
                pb.CreateTicketRequest(game_type="connect4x4"), None
            ),
        )


async def test_what_only_a_service_may_ask_is_refused_as_such_whatever_the_count() -> None:
    """A player asking for another player's ticket hears SERVICE_ONLY, the refusal that says
    what is wrong with the call, not TOO_MANY_OPEN_GAMES, which would send them to finish
    games for a call that can never pass."""
    mm = servicer(Counted({"ada": 3}))
    request = pb.CreateTicketRequest(game_type="connect4x4", player_id="bob")
    with pytest.raises(PermissionDenied) as refused:
        await as_("ada", mm.CreateTicket(request, None))
    assert refused.value.reason == "SERVICE_ONLY"
