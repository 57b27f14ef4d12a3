"""JoinLobby against a round that closes the lobby, interleaved on real PostgreSQL.

A JoinLobby landing while a round matched the lobby used to leave the joiner's waiting
ticket in a closed lobby (the round closed it without seeing the ticket), where it waited
for a game that never came until it expired. Both interleavings are forced here: the
round's rounds loop is off, and the test runs each round at the moment it wants.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import psycopg
import pytest

from parlor.kit.status import reason_of
from parlor.matchmaking.v1 import matchmaking_pb2 as pb
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from parlor.services.matchmaking import component as component_module
from parlor.services.matchmaking import rounds as rounds_module

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("quiet_pool")]

GAME = "connect4x4"


async def _no_rounds(*args: Any) -> None:
    """The component's round loop, switched off: the test runs each round itself."""
    await asyncio.Event().wait()


@pytest.fixture
def manual_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(component_module, "run_rounds", _no_rounds)
    monkeypatch.setenv("PARLOR_MATCHMAKING_ACCEPT_MINIMUM_SECONDS", "0")


def _extra(platform: Any) -> dict[str, Any]:
    (mm,) = [c for c in platform.server.components if c.name == "matchmaking"]
    return mm.extra


async def _tickets_of(database_url: str, player: str) -> list[tuple[str, str | None]]:
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        rows = await conn.execute(
            "SELECT status, lobby FROM mm_tickets WHERE player_id = %s", (player,)
        )
        return [(s, lobby) for s, lobby in await rows.fetchall()]


async def _lobby_of_two(stubs: dict[str, pb_grpc.MatchmakingServiceStub]) -> str:
    """A lobby for 2 to 3 with its host and one friend in it: a round matches them now."""
    lobby = await stubs["host"].CreateLobby(
        pb.CreateLobbyRequest(game_type=GAME, min_players=2, max_players=3)
    )
    await stubs["pal"].JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
    return lobby.code


@pytest.mark.usefixtures("manual_rounds")
async def test_a_join_while_the_round_closes_the_lobby_is_lobby_closed(
    start_platform, monkeypatch, database_url, unique
):
    """The round has matched the lobby and not yet committed when JoinLobby comes: the
    joiner waits for the round, then gets LOBBY_CLOSED, and no ticket of theirs is left."""
    names = {p: f"{p}-{unique}" for p in ("host", "pal", "late")}
    async with start_platform("matchmaking") as platform:
        chans = {p: platform.channel(n) for p, n in names.items()}
        try:
            stubs = {p: pb_grpc.MatchmakingServiceStub(c) for p, c in chans.items()}
            code = await _lobby_of_two(stubs)
            joining: list[asyncio.Future[pb.JoinLobbyResponse]] = []
            append = rounds_module.append_matches

            async def join() -> pb.JoinLobbyResponse:
                return await stubs["late"].JoinLobby(pb.JoinLobbyRequest(code=code))

            async def append_then_join(*args: Any) -> None:
                await append(*args)  # the lobby is closed in this uncommitted round
                joining.append(asyncio.ensure_future(join()))
                await asyncio.wait(joining, timeout=0.5)  # before: done here, with a ticket

            monkeypatch.setattr(rounds_module, "append_matches", append_then_join)
            outcome = await _extra(platform)["rounds"].run(GAME)
            assert outcome is not None
            (formed,) = outcome[1]
            assert formed.match.lobby == code
            with pytest.raises(grpc.aio.AioRpcError) as late:
                await joining[0]
            assert late.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert reason_of(late.value) == "LOBBY_CLOSED"
            assert await _tickets_of(database_url, names["late"]) == []
        finally:
            for c in chans.values():
                await c.close()


@pytest.mark.usefixtures("manual_rounds")
async def test_a_round_during_a_join_leaves_the_lobby_to_the_next_round(
    start_platform, monkeypatch, database_url, unique
):
    """JoinLobby has found the lobby open and is writing its ticket when a round runs: the
    round leaves that lobby alone (its lock is held), and the next round seats all three."""
    names = {p: f"{p}-{unique}" for p in ("host", "pal", "late")}
    async with start_platform("matchmaking") as platform:
        chans = {p: platform.channel(n) for p, n in names.items()}
        try:
            stubs = {p: pb_grpc.MatchmakingServiceStub(c) for p, c in chans.items()}
            code = await _lobby_of_two(stubs)
            extra = _extra(platform)
            rounds, tickets = extra["rounds"], extra["tickets"]
            create: Callable[..., Awaitable[Any]] = tickets.create
            during: list[Any] = []

            async def round_then_create(player: str, *args: Any, **kwargs: Any) -> Any:
                if player == names["late"]:
                    during.append(await asyncio.wait_for(rounds.run(GAME), 10))
                return await create(player, *args, **kwargs)

            monkeypatch.setattr(tickets, "create", round_then_create)
            joined = await stubs["late"].JoinLobby(pb.JoinLobbyRequest(code=code))
            (first,) = during
            assert first is not None
            assert first[1] == []  # before: host and pal matched, the lobby closed
            outcome = await rounds.run(GAME)
            assert outcome is not None
            (formed,) = outcome[1]
            assert set(formed.match.tickets) >= {joined.ticket.ticket_id}
            assert set(formed.match.players) == set(names.values())
            assert await _tickets_of(database_url, names["late"]) == [("matched", code)]
        finally:
            for c in chans.values():
                await c.close()
