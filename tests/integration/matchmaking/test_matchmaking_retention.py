"""The retention sweep on real PostgreSQL: finished rows go, everything still in use stays.

Finished tickets, matches and lobbies used to be kept forever: the tables grew with every
game ever played. Rows are aged here by moving their timestamps back past the retention.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import grpc
import psycopg
import pytest

from parlor.eventstore import PostgresEventStore
from parlor.kit.settings import SettingsError, load
from parlor.kit.status import reason_of
from parlor.matchmaking.v1 import matchmaking_pb2 as pb
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from parlor.services.matchmaking import component as component_module
from parlor.services.matchmaking.retention import Retention
from parlor.services.matchmaking.settings import MatchmakingSettings

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("quiet_pool")]

GAME = "connect4x4"
KEEP = timedelta(hours=48)
OLD = timedelta(hours=49)


async def _no_rounds(*args: Any) -> None:
    await asyncio.Event().wait()


async def _age(database_url: str, players: list[str], lobbies: list[str]) -> None:
    """Move these players' tickets, their matches and these lobbies back by ``OLD``."""
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await conn.execute(
            "UPDATE mm_matches SET formed_at = formed_at - %s WHERE match_id IN"
            " (SELECT match_id FROM mm_tickets WHERE player_id = ANY(%s))",
            (OLD, players),
        )
        await conn.execute(
            "UPDATE mm_tickets SET created_at = created_at - %s, closed_at = closed_at - %s"
            " WHERE player_id = ANY(%s)",
            (OLD, OLD, players),
        )
        await conn.execute(
            "UPDATE mm_lobbies SET created_at = created_at - %s WHERE code = ANY(%s)",
            (OLD, lobbies),
        )


async def _count(database_url: str, sql: str, *args: Any) -> int:
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        row = await (await conn.execute(sql, args)).fetchone()
        assert row is not None
        return int(row[0])


async def test_finished_rows_are_swept_and_nothing_in_use_goes(
    start_platform, monkeypatch, database_url, unique
):
    monkeypatch.setattr(component_module, "run_rounds", _no_rounds)
    monkeypatch.setenv("PARLOR_MATCHMAKING_ACCEPT_MINIMUM_SECONDS", "0")
    players = ("host", "pal", "quitter", "waiter", "back", "guest", "fresh")
    who = {p: f"{p}-{unique}" for p in players}
    async with start_platform("matchmaking") as platform:
        chans = {p: platform.channel(n) for p, n in who.items()}
        try:
            stubs = {p: pb_grpc.MatchmakingServiceStub(c) for p, c in chans.items()}
            (mm,) = [c for c in platform.server.components if c.name == "matchmaking"]
            rounds = mm.extra["rounds"]
            # A lobby whose game was formed: its tickets matched, the lobby closed.
            played = await stubs["host"].CreateLobby(
                pb.CreateLobbyRequest(game_type=GAME, min_players=2, max_players=2)
            )
            pal = await stubs["pal"].JoinLobby(pb.JoinLobbyRequest(code=played.code))
            outcome = await rounds.run(GAME)
            assert outcome is not None
            (formed,) = outcome[1]
            # A cancelled public ticket, and a lobby its host left (cancelled there), which
            # closed the ticket of the guest in it.
            quit_ = await stubs["quitter"].CreateTicket(pb.CreateTicketRequest(game_type=GAME))
            await stubs["quitter"].CancelTicket(
                pb.CancelTicketRequest(ticket_id=quit_.ticket.ticket_id)
            )
            left = await stubs["back"].CreateLobby(pb.CreateLobbyRequest(game_type=GAME))
            guest = await stubs["guest"].JoinLobby(pb.JoinLobbyRequest(code=left.code))
            await stubs["back"].CancelTicket(
                pb.CancelTicketRequest(ticket_id=left.ticket.ticket_id)
            )
            # Still in use: a waiting ticket (made long ago, by its timestamps), an old lobby
            # whose host waits in it, and a ticket cancelled just now.
            waiting = await stubs["waiter"].CreateLobby(pb.CreateLobbyRequest(game_type=GAME))
            await _age(
                database_url,
                [who[p] for p in ("host", "pal", "quitter", "back", "guest", "waiter")],
                [played.code, left.code, waiting.code],
            )
            recent = await stubs["fresh"].CreateTicket(pb.CreateTicketRequest(game_type=GAME))
            await stubs["fresh"].CancelTicket(
                pb.CancelTicketRequest(ticket_id=recent.ticket.ticket_id)
            )

            # Two replicas sweep at once, a row per batch: each row goes once, no one waits.
            sweeps = await asyncio.gather(
                *(Retention(rounds.engine, KEEP, batch=1).sweep() for _ in range(2))
            )
            assert sum(s.matches for s in sweeps) >= 1

            for player, ticket_id in (
                ("host", played.ticket.ticket_id),
                ("pal", pal.ticket.ticket_id),
                ("quitter", quit_.ticket.ticket_id),
                ("back", left.ticket.ticket_id),
                ("guest", guest.ticket.ticket_id),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as gone:
                    await stubs[player].GetTicket(pb.GetTicketRequest(ticket_id=ticket_id))
                assert gone.value.code() == grpc.StatusCode.NOT_FOUND
                assert reason_of(gone.value) == "TICKET_NOT_FOUND"
                with pytest.raises(grpc.aio.AioRpcError) as watched:
                    async for _ in stubs[player].WatchTicket(
                        pb.WatchTicketRequest(ticket_id=ticket_id), timeout=5
                    ):
                        pass
                assert watched.value.code() == grpc.StatusCode.NOT_FOUND
                assert reason_of(watched.value) == "TICKET_NOT_FOUND"
            for code in (played.code, left.code):  # even its host cannot come back to it
                with pytest.raises(grpc.aio.AioRpcError) as no_lobby:
                    await stubs["back"].JoinLobby(pb.JoinLobbyRequest(code=code))
                assert reason_of(no_lobby.value) == "LOBBY_NOT_FOUND"
            assert (
                await _count(
                    database_url,
                    "SELECT count(*) FROM mm_matches WHERE match_id = %s",
                    formed.match_id,
                )
                == 0
            )
            assert (
                await _count(
                    database_url,
                    "SELECT count(*) FROM mm_match_players WHERE match_id = %s",
                    formed.match_id,
                )
                == 0
            )

            # Kept: the waiting ticket, its lobby (a friend may still join), the recent one.
            kept = await stubs["waiter"].GetTicket(
                pb.GetTicketRequest(ticket_id=waiting.ticket.ticket_id)
            )
            assert kept.ticket.status == pb.TICKET_STATUS_WAITING
            friend = await stubs["quitter"].JoinLobby(pb.JoinLobbyRequest(code=waiting.code))
            assert friend.ticket.lobby == waiting.code
            again = await stubs["fresh"].GetTicket(
                pb.GetTicketRequest(ticket_id=recent.ticket.ticket_id)
            )
            assert again.ticket.status == pb.TICKET_STATUS_CANCELLED
        finally:
            for c in chans.values():
                await c.close()
    # The match's record, from which its game is made, is the event store's: it stays.
    store = PostgresEventStore(database_url)
    try:
        (event,) = await store.read_stream(f"matchmaking-{formed.match_id}")
    finally:
        await store.close()
    assert event.type.endswith("MatchFormed")


async def test_the_component_sweeps_when_it_starts(start_platform, database_url, unique):
    """Each replica sweeps at start and then every few minutes, with no one asking."""
    player = f"gone-{unique}"
    async with start_platform("matchmaking") as platform, platform.channel(player) as ch:
        stub = pb_grpc.MatchmakingServiceStub(ch)
        made = await stub.CreateTicket(pb.CreateTicketRequest(game_type=GAME))
        await stub.CancelTicket(pb.CancelTicketRequest(ticket_id=made.ticket.ticket_id))
    await _age(database_url, [player], [])
    async with start_platform("matchmaking"):
        for _ in range(100):
            left = await _count(
                database_url, "SELECT count(*) FROM mm_tickets WHERE player_id = %s", player
            )
            if not left:
                break
            await asyncio.sleep(0.05)
    assert left == 0


def test_a_retention_under_an_hour_is_refused_at_start() -> None:
    with pytest.raises(SettingsError, match="PARLOR_MATCHMAKING_RETENTION_HOURS"):
        load(MatchmakingSettings, {"PARLOR_MATCHMAKING_RETENTION_HOURS": "0"})
    assert load(MatchmakingSettings, {}).retention_hours == 48.0
