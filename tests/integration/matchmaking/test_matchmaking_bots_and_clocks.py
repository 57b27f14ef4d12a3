"""Bots at once, bot levels, time controls and the game-type listing, on PostgreSQL and NATS."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
from matchmaking_tickets import status_of, watch_until_done

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.eventstore import PostgresEventStore
from parlor.gamehost.pipeline.games import games
from parlor.gametypes.timecontrol import TimeControl
from parlor.kit import client
from parlor.kit.status import reason_of
from parlor.matchmaking.v1 import events_pb2
from parlor.matchmaking.v1 import matchmaking_pb2 as pb
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("quiet_pool")]

BLITZ = TimeControl.fischer(300, 3)
MOVE = TimeControl.per_move(30)
LONG = TimeControl.fischer(1200, 10)  # Upwords offers these two (Connect 4x4 neither)
UPWORDS_MOVE = TimeControl.per_move(90)


async def match_formed(database_url: str, match_id: str) -> events_pb2.MatchFormed:
    async with PostgresEventStore(database_url) as store:
        (event,) = await store.read_stream(f"matchmaking-{match_id}")
    return events_pb2.MatchFormed.FromString(event.data)


async def test_bots_at_once_are_seated_at_once_at_their_level_and_the_game_is_created(
    start_platform, monkeypatch, database_url
):
    # The platform's bot fill waits its default 60 s; this ticket asks for bots at once.
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.1")
    monkeypatch.delenv("PARLOR_MATCHMAKING_BOT_FILL_SECONDS", raising=False)
    async with (
        start_platform("matchmaking", "connect4x4") as platform,
        platform.channel("newcomer") as ch,
    ):
        stub = pb_grpc.MatchmakingServiceStub(ch)
        started = time.monotonic()
        made = await stub.CreateTicket(
            pb.CreateTicketRequest(
                game_type="connect4x4",
                min_players=2,
                max_players=4,
                bots_at_once=True,
                bot_level="greedy",
                time_control=BLITZ.to_proto(),
            )
        )
        assert made.ticket.bots_at_once
        assert made.ticket.bot_level == "greedy"
        assert TimeControl.from_proto(made.ticket.time_control) == BLITZ
        matched = await watch_until_done(stub, made.ticket.ticket_id)
        assert time.monotonic() - started < 10  # a round or two, not the 60 s wait
        assert matched.status == pb.TICKET_STATUS_MATCHED
        players = [s.player_id for s in matched.seats]
        assert sorted(players) == ["bot:greedy", "newcomer"]  # the minimum count: one bot
        assert players[matched.seat] == "newcomer"

        formed = await match_formed(database_url, matched.match_id)
        assert [s.player_id for s in formed.seats] == players
        assert TimeControl.from_proto(formed.time_control) == BLITZ

        # The Connect 4x4 service creates the game from MatchFormed, with those seats.
        games_stub = c4_grpc.Connect4x4ServiceStub(ch)
        game = None
        for _ in range(300):
            try:
                game = (await games_stub.GetGame(c4.GetGameRequest(game_id=matched.match_id))).game
                break
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.NOT_FOUND:
                    raise
            await asyncio.sleep(0.1)
        assert game is not None, "the game was never created from MatchFormed"
        assert [s.player_id for s in game.seats] == players
        assert game.status == c4.STATUS_IN_PROGRESS


async def test_an_unknown_bot_level_or_time_control_is_refused_with_a_reason(
    start_platform, monkeypatch
):
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.1")
    bad = common_pb2.TimeControl(kind=common_pb2.TimeControl.KIND_PER_MOVE)  # no seconds
    async with start_platform("matchmaking") as platform, platform.channel("picky") as ch:
        stub = pb_grpc.MatchmakingServiceStub(ch)
        refusals = [
            (
                stub.CreateTicket(
                    pb.CreateTicketRequest(
                        game_type="takefour", bots_at_once=True, bot_level="best"
                    )
                ),
                "UNKNOWN_BOT_LEVEL",
                "its levels: easy, medium, hard",
            ),
            (
                stub.CreateTicket(pb.CreateTicketRequest(game_type="upwords", bot_level="x" * 33)),
                "UNKNOWN_BOT_LEVEL",
                "",
            ),
            (
                stub.CreateTicket(pb.CreateTicketRequest(game_type="upwords", time_control=bad)),
                "INVALID_TIME_CONTROL",
                "",
            ),
            (
                stub.CreateLobby(pb.CreateLobbyRequest(game_type="upwords", time_control=bad)),
                "INVALID_TIME_CONTROL",
                "",
            ),
            (  # valid, but not one Upwords offers: it would only split the queue
                stub.CreateTicket(
                    pb.CreateTicketRequest(game_type="upwords", time_control=BLITZ.to_proto())
                ),
                "INVALID_TIME_CONTROL",
                "it takes: 90s/move, 10+5, 20+10, 2d/move, none",
            ),
            (
                stub.CreateLobby(
                    pb.CreateLobbyRequest(
                        game_type="connect4x4", time_control=TimeControl.per_move(7).to_proto()
                    )
                ),
                "INVALID_TIME_CONTROL",
                "does not offer that time control (7s/move)",
            ),
        ]
        for call, reason, says in refusals:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await call
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert reason_of(refused.value) == reason
            assert says in (refused.value.details() or "")
        # Nothing was stored: the player may still ask.
        made = await stub.CreateTicket(pb.CreateTicketRequest(game_type="takefour"))
        assert made.ticket.status == pb.TICKET_STATUS_WAITING


async def test_tickets_match_only_equal_time_controls(start_platform, monkeypatch, database_url):
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    monkeypatch.setenv("PARLOR_MATCHMAKING_ACCEPT_MINIMUM_SECONDS", "0")
    async with start_platform("matchmaking") as platform:
        token = platform.token("service:tests", roles=("service",))
        async with client.channel(platform.target, token) as ch:
            stub = pb_grpc.MatchmakingServiceStub(ch)

            async def ask(player: str, control: TimeControl | None) -> pb.Ticket:
                request = pb.CreateTicketRequest(
                    game_type="upwords", min_players=2, max_players=2, player_id=player, rating=1500
                )
                if control is not None:
                    request.time_control.CopyFrom(control.to_proto())
                return (await stub.CreateTicket(request)).ticket

            blitz = await ask("tc-blitz", LONG)
            move = await ask("tc-move", UPWORDS_MOVE)
            default = await ask("tc-default", None)
            upwords = games()["upwords"]
            assert TimeControl.from_proto(default.time_control) == upwords.default_time_control
            await asyncio.sleep(0.5)  # ten rounds: three tickets, three clocks, no match
            for t in (blitz, move, default):
                assert await status_of(stub, t.ticket_id) == pb.TICKET_STATUS_WAITING
            other = await ask("tc-blitz-2", TimeControl.fischer(1200, 10))
            matched = await watch_until_done(stub, other.ticket_id)
            assert {s.player_id for s in matched.seats} == {"tc-blitz", "tc-blitz-2"}
            assert await status_of(stub, move.ticket_id) == pb.TICKET_STATUS_WAITING
        formed = await match_formed(database_url, matched.match_id)
        assert TimeControl.from_proto(formed.time_control) == LONG


async def test_a_lobby_names_the_time_control_its_holders_take(
    start_platform, monkeypatch, database_url
):
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    async with (
        start_platform("matchmaking") as platform,
        platform.channel("lobby-host") as host_ch,
        platform.channel("lobby-pal") as pal_ch,
    ):
        host, pal = pb_grpc.MatchmakingServiceStub(host_ch), pb_grpc.MatchmakingServiceStub(pal_ch)
        lobby = await host.CreateLobby(
            pb.CreateLobbyRequest(
                game_type="connect4x4", min_players=2, max_players=2, time_control=MOVE.to_proto()
            )
        )
        assert TimeControl.from_proto(lobby.ticket.time_control) == MOVE
        joined = await pal.JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
        assert TimeControl.from_proto(joined.ticket.time_control) == MOVE
        matched = await watch_until_done(host, lobby.ticket.ticket_id)
    formed = await match_formed(database_url, matched.match_id)
    assert formed.lobby == lobby.code
    assert TimeControl.from_proto(formed.time_control) == MOVE


async def test_any_player_lists_the_game_types_from_the_registry(start_platform, monkeypatch):
    monkeypatch.setenv("PARLOR_MATCHMAKING_GAME_TYPES", "connect4x4,takefour")
    async with start_platform("matchmaking") as platform:
        async with client.channel(platform.target) as anonymous:
            with pytest.raises(grpc.aio.AioRpcError) as missing:
                await pb_grpc.MatchmakingServiceStub(anonymous).ListGameTypes(
                    pb.ListGameTypesRequest()
                )
            assert missing.value.code() == grpc.StatusCode.UNAUTHENTICATED
        async with platform.channel("curious") as ch:
            listed = await pb_grpc.MatchmakingServiceStub(ch).ListGameTypes(
                pb.ListGameTypesRequest()
            )
    registry = games()
    assert [g.name for g in listed.game_types] == ["connect4x4", "takefour"]
    for info in listed.game_types:
        game = registry[info.name]
        assert (info.min_players, info.max_players) == (game.min_seats, game.max_seats)
        assert list(info.bot_levels) == list(dict.fromkeys(game.bots))
        assert TimeControl.from_proto(info.default_time_control) == game.default_time_control
        assert [TimeControl.from_proto(c) for c in info.time_controls] == list(game.time_controls)
    assert list(listed.game_types[1].bot_levels) == ["easy", "medium", "hard"]
