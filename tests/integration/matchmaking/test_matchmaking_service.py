"""Matchmaking over gRPC on real PostgreSQL and NATS: tickets, windows, lobbies, bots, errors."""

from __future__ import annotations

import asyncio
import itertools
import time

import grpc
import psycopg
import pytest
from matchmaking_tickets import status_of, watch_until_done

from parlor.eventstore import PostgresEventStore
from parlor.identity.v1 import identity_pb2 as id_pb
from parlor.identity.v1 import identity_pb2_grpc as id_grpc
from parlor.kit import client
from parlor.kit.status import reason_of
from parlor.matchmaking.v1 import events_pb2
from parlor.matchmaking.v1 import matchmaking_pb2 as pb
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("quiet_pool")]

FAST = {
    "PARLOR_MATCHMAKING_ROUND_SECONDS": "0.05",
    "PARLOR_MATCHMAKING_ACCEPT_MINIMUM_SECONDS": "0",
}


def configure(monkeypatch: pytest.MonkeyPatch, **extra: str) -> None:
    for key, value in {**FAST, **extra}.items():
        monkeypatch.setenv(key, value)


def service_stub(platform):  # type: ignore[no-untyped-def]
    token = platform.token("service:tests", roles=("service",))
    return client.channel(platform.target, token)


async def test_guest_token_is_issued_without_a_token_and_works(start_platform, monkeypatch):
    configure(monkeypatch)
    async with start_platform("matchmaking") as platform:
        async with client.channel(platform.target) as anonymous:
            identity = id_grpc.IdentityServiceStub(anonymous)
            guest = await identity.IssueGuestToken(id_pb.IssueGuestTokenRequest(display_name="Zoe"))
            assert guest.player_id.startswith("guest-")
            assert guest.expires_at.seconds > time.time()
            with pytest.raises(grpc.aio.AioRpcError) as missing:
                await pb_grpc.MatchmakingServiceStub(anonymous).CreateTicket(
                    pb.CreateTicketRequest(game_type="connect4x4")
                )
            assert missing.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert reason_of(missing.value) == "TOKEN_MISSING"
        async with client.channel(platform.target, guest.token) as ch:
            made = await pb_grpc.MatchmakingServiceStub(ch).CreateTicket(
                pb.CreateTicketRequest(game_type="connect4x4", min_players=2, max_players=4)
            )
            assert made.ticket.player_id == guest.player_id
            assert made.ticket.status == pb.TICKET_STATUS_WAITING
            assert made.ticket.rating == 1500.0


async def test_guest_tokens_refused_when_switched_off(start_platform, monkeypatch):
    configure(monkeypatch, PARLOR_GUEST_TOKENS="false")
    async with start_platform("matchmaking") as platform:
        async with client.channel(platform.target) as anonymous:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await id_grpc.IdentityServiceStub(anonymous).IssueGuestToken(
                    id_pb.IssueGuestTokenRequest()
                )
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert reason_of(refused.value) == "GUEST_TOKENS_DISABLED"


async def test_invalid_token_is_unauthenticated(start_platform, monkeypatch):
    configure(monkeypatch)
    async with start_platform("matchmaking") as platform:
        async with client.channel(platform.target, "not.a.jwt") as ch:
            with pytest.raises(grpc.aio.AioRpcError) as bad:
                await pb_grpc.MatchmakingServiceStub(ch).CreateTicket(
                    pb.CreateTicketRequest(game_type="connect4x4")
                )
    assert bad.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert reason_of(bad.value) == "TOKEN_INVALID"


@pytest.mark.parametrize(
    ("request_", "code", "reason"),
    [
        (pb.CreateTicketRequest(game_type="chess"), "INVALID_ARGUMENT", "UNKNOWN_GAME_TYPE"),
        (
            pb.CreateTicketRequest(game_type="connect4x4", min_players=2, max_players=5),
            "INVALID_ARGUMENT",
            "BAD_PLAYER_COUNT",
        ),
        (
            pb.CreateTicketRequest(game_type="takefour", min_players=4, max_players=3),
            "INVALID_ARGUMENT",
            "BAD_PLAYER_COUNT",
        ),
        (
            pb.CreateTicketRequest(game_type="connect4x4", rating=2400.0),
            "PERMISSION_DENIED",
            "SERVICE_ONLY",
        ),
    ],
)
async def test_bad_ticket_requests_are_refused_with_a_reason(
    start_platform, monkeypatch, request_, code, reason
):
    configure(monkeypatch)
    async with start_platform("matchmaking") as platform, platform.channel("ivy") as ch:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await pb_grpc.MatchmakingServiceStub(ch).CreateTicket(request_)
    assert refused.value.code().name == code
    assert reason_of(refused.value) == reason


async def test_a_service_cannot_queue_a_bot_as_a_player(start_platform, monkeypatch):
    configure(monkeypatch)
    async with start_platform("matchmaking") as platform, service_stub(platform) as ch:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await pb_grpc.MatchmakingServiceStub(ch).CreateTicket(
                pb.CreateTicketRequest(game_type="connect4x4", player_id="bot:strong")
            )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(refused.value) == "BAD_PLAYER"


async def test_foreign_ticket_is_not_yours_and_second_ticket_already_exists(
    start_platform, monkeypatch
):
    configure(monkeypatch)
    async with (
        start_platform("matchmaking") as platform,
        platform.channel("jo") as jo_ch,
        platform.channel("kim") as kim_ch,
    ):
        jo, kim = pb_grpc.MatchmakingServiceStub(jo_ch), pb_grpc.MatchmakingServiceStub(kim_ch)
        ticket = (
            await jo.CreateTicket(pb.CreateTicketRequest(game_type="upwords", max_players=4))
        ).ticket
        for call in (kim.GetTicket, kim.CancelTicket):
            with pytest.raises(grpc.aio.AioRpcError) as foreign:
                await call(pb.GetTicketRequest(ticket_id=ticket.ticket_id))  # type: ignore[arg-type]
            assert foreign.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert reason_of(foreign.value) == "NOT_YOUR_TICKET"
        with pytest.raises(grpc.aio.AioRpcError) as twice:
            await jo.CreateTicket(pb.CreateTicketRequest(game_type="connect4x4"))
        assert twice.value.code() == grpc.StatusCode.ALREADY_EXISTS
        assert reason_of(twice.value) == "TICKET_EXISTS"
        with pytest.raises(grpc.aio.AioRpcError) as unknown:
            await jo.GetTicket(pb.GetTicketRequest(ticket_id="nope"))
        assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
        assert reason_of(unknown.value) == "TICKET_NOT_FOUND"


async def test_ticket_expires_and_cannot_be_cancelled_after(start_platform, monkeypatch):
    configure(monkeypatch, PARLOR_MATCHMAKING_EXPIRE_SECONDS="0.5")
    async with start_platform("matchmaking") as platform, platform.channel("lee") as ch:
        stub = pb_grpc.MatchmakingServiceStub(ch)
        made = await stub.CreateTicket(pb.CreateTicketRequest(game_type="takefour"))
        final = await watch_until_done(stub, made.ticket.ticket_id)
        assert final.status == pb.TICKET_STATUS_EXPIRED
        with pytest.raises(grpc.aio.AioRpcError) as late:
            await stub.CancelTicket(pb.CancelTicketRequest(ticket_id=made.ticket.ticket_id))
        assert late.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert reason_of(late.value) == "TICKET_EXPIRED"


async def test_rating_windows_widen_with_time(start_platform, monkeypatch):
    # 1500 and 1800: 300 apart. Windows start at 100 and grow 200/s, so they meet
    # after a second of waiting, not before.
    configure(
        monkeypatch,
        PARLOR_MATCHMAKING_WINDOW_BASE="100",
        PARLOR_MATCHMAKING_WINDOW_GROWTH="200",
    )
    async with start_platform("matchmaking") as platform, service_stub(platform) as ch:
        stub = pb_grpc.MatchmakingServiceStub(ch)
        low = await stub.CreateTicket(
            pb.CreateTicketRequest(
                game_type="connect4x4", min_players=2, max_players=2, player_id="w1", rating=1500
            )
        )
        high = await stub.CreateTicket(
            pb.CreateTicketRequest(
                game_type="connect4x4", min_players=2, max_players=2, player_id="w2", rating=1800
            )
        )
        started = time.monotonic()
        await asyncio.sleep(0.4)  # several rounds, windows still < 300 apart
        assert await status_of(stub, low.ticket.ticket_id) == pb.TICKET_STATUS_WAITING
        matched = await watch_until_done(stub, low.ticket.ticket_id)
        waited = time.monotonic() - started
        assert matched.status == pb.TICKET_STATUS_MATCHED
        assert waited >= 0.5
        assert {s.player_id for s in matched.seats} == {"w1", "w2"}
        other = (await stub.GetTicket(pb.GetTicketRequest(ticket_id=high.ticket.ticket_id))).ticket
        assert other.match_id == matched.match_id
        assert {matched.seat, other.seat} == {0, 1}


async def test_cancelled_ticket_is_never_matched(start_platform, monkeypatch):
    configure(monkeypatch)
    async with start_platform("matchmaking") as platform, service_stub(platform) as ch:
        stub = pb_grpc.MatchmakingServiceStub(ch)

        def ask(player: str) -> pb.CreateTicketRequest:
            return pb.CreateTicketRequest(
                game_type="upwords", min_players=2, max_players=2, player_id=player, rating=1500
            )

        gone = await stub.CreateTicket(ask("c1"))
        cancelled = await stub.CancelTicket(pb.CancelTicketRequest(ticket_id=gone.ticket.ticket_id))
        assert cancelled.ticket.status == pb.TICKET_STATUS_CANCELLED
        a = await stub.CreateTicket(ask("c2"))
        b = await stub.CreateTicket(ask("c3"))
        matched = await watch_until_done(stub, a.ticket.ticket_id)
        assert {s.player_id for s in matched.seats} == {"c2", "c3"}
        assert await status_of(stub, b.ticket.ticket_id) == pb.TICKET_STATUS_MATCHED
        await asyncio.sleep(0.3)
        assert await status_of(stub, gone.ticket.ticket_id) == pb.TICKET_STATUS_CANCELLED
        with pytest.raises(grpc.aio.AioRpcError) as again:
            await stub.CancelTicket(pb.CancelTicketRequest(ticket_id=a.ticket.ticket_id))
        assert reason_of(again.value) == "TICKET_MATCHED"


async def test_private_lobby_starts_only_with_its_code_holders(start_platform, monkeypatch):
    configure(monkeypatch)
    async with start_platform("matchmaking") as platform:
        chans = {p: platform.channel(p) for p in ("host", "pal", "mate", "out1", "out2")}
        try:
            stubs = {p: pb_grpc.MatchmakingServiceStub(c) for p, c in chans.items()}
            # Two strangers wait for the same game type, same rating: a public table of 3.
            strangers = [
                await stubs[p].CreateTicket(
                    pb.CreateTicketRequest(game_type="connect4x4", min_players=3, max_players=3)
                )
                for p in ("out1", "out2")
            ]
            lobby = await stubs["host"].CreateLobby(
                pb.CreateLobbyRequest(game_type="connect4x4", min_players=3, max_players=3)
            )
            assert len(lobby.code) == 12
            pal = await stubs["pal"].JoinLobby(pb.JoinLobbyRequest(code=lobby.code.lower()))
            assert pal.ticket.lobby == lobby.code
            await asyncio.sleep(0.4)  # two holders of three: nothing starts, strangers stay out
            assert (
                await status_of(stubs["host"], lobby.ticket.ticket_id) == pb.TICKET_STATUS_WAITING
            )
            for s, p in zip(strangers, ("out1", "out2"), strict=True):
                assert await status_of(stubs[p], s.ticket.ticket_id) == pb.TICKET_STATUS_WAITING
            await stubs["mate"].JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
            matched = await watch_until_done(stubs["host"], lobby.ticket.ticket_id)
            assert matched.status == pb.TICKET_STATUS_MATCHED
            assert {s.player_id for s in matched.seats} == {"host", "pal", "mate"}
            with pytest.raises(grpc.aio.AioRpcError) as late:
                await stubs["out1"].JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
            assert reason_of(late.value) == "LOBBY_CLOSED"
            with pytest.raises(grpc.aio.AioRpcError) as wrong:
                await stubs["out2"].JoinLobby(pb.JoinLobbyRequest(code="ZZZZZZZZ"))
            assert wrong.value.code() == grpc.StatusCode.NOT_FOUND
            assert reason_of(wrong.value) == "LOBBY_NOT_FOUND"
        finally:
            for c in chans.values():
                await c.close()


async def test_bot_fill_happens_after_the_wait_and_not_before(
    start_platform, monkeypatch, database_url
):
    configure(monkeypatch, PARLOR_MATCHMAKING_BOT_FILL_SECONDS="1.0")
    async with start_platform("matchmaking") as platform, platform.channel("solo") as ch:
        stub = pb_grpc.MatchmakingServiceStub(ch)
        made = await stub.CreateTicket(
            pb.CreateTicketRequest(game_type="connect4x4", min_players=3, max_players=4)
        )
        started = time.monotonic()
        await asyncio.sleep(0.6)
        assert await status_of(stub, made.ticket.ticket_id) == pb.TICKET_STATUS_WAITING
        matched = await watch_until_done(stub, made.ticket.ticket_id)
        assert time.monotonic() - started >= 0.9
        assert matched.status == pb.TICKET_STATUS_MATCHED
        players = [s.player_id for s in matched.seats]
        assert len(players) == 3  # the ticket's minimum: itself and two bots
        assert sorted(players) == sorted(["solo", "bot:greedy", "bot:greedy"])
        assert players[matched.seat] == "solo"
    # The match is in the event store, as the game service will read it.
    store = PostgresEventStore(database_url)
    try:
        (event,) = await store.read_stream(f"matchmaking-{matched.match_id}")
    finally:
        await store.close()
    formed = events_pb2.MatchFormed.FromString(event.data)
    assert [s.player_id for s in formed.seats] == players
    assert list(formed.ticket_ids) == [made.ticket.ticket_id]
    assert formed.game_type == "connect4x4"


async def test_no_player_is_ever_in_two_matches_with_three_replicas(
    start_platform, monkeypatch, database_url
):
    # Rounds every 10 ms on three replicas while every player asks all three at once.
    configure(
        monkeypatch,
        PARLOR_MATCHMAKING_ROUND_SECONDS="0.01",
        PARLOR_MATCHMAKING_BOT_FILL_SECONDS="0.5",
    )
    players = [f"r{i:03d}" for i in range(90)]
    async with (
        start_platform("matchmaking") as one,
        start_platform("matchmaking") as two,
        start_platform("matchmaking") as three,
    ):
        chans = [service_stub(p) for p in (one, two, three)]
        try:
            stubs = [pb_grpc.MatchmakingServiceStub(c) for c in chans]

            async def ask(stub: pb_grpc.MatchmakingServiceStub, i: int) -> str | None:
                try:
                    made = await stub.CreateTicket(
                        pb.CreateTicketRequest(
                            game_type=("upwords", "takefour")[i % 2],
                            min_players=2,
                            max_players=3,
                            player_id=players[i],
                            rating=1500 + (i % 7) * 20,
                        )
                    )
                except grpc.aio.AioRpcError as exc:
                    # The player's ticket is still waiting (asked another replica first).
                    if reason_of(exc) != "TICKET_EXISTS":
                        raise
                    return None
                return made.ticket.ticket_id

            made = await asyncio.gather(
                *(ask(stub, i) for _ in range(3) for i in range(len(players)) for stub in stubs)
            )
            tickets = [t for t in made if t is not None]
            assert len(tickets) >= len(players)
            finals = await asyncio.gather(
                *(watch_until_done(stubs[i % 3], t) for i, t in enumerate(tickets))
            )
        finally:
            for c in chans:
                await c.close()
    assert all(t.status == pb.TICKET_STATUS_MATCHED for t in finals)
    matches = {t.match_id: t for t in finals}
    for match in matches.values():
        humans = [s.player_id for s in match.seats if not s.player_id.startswith("bot:")]
        assert len(humans) == len(set(humans))  # nobody twice at one table
    with psycopg.connect(database_url) as conn:
        # Every ticket is in exactly one match, and each player's matches were formed one
        # after another, in the order of their tickets: never two in one round, never two
        # from tickets waiting side by side (a player holds one waiting ticket at a time).
        seated = conn.execute(
            "SELECT ticket_id, count(*) FROM mm_match_players WHERE ticket_id = ANY(%s)"
            " GROUP BY ticket_id",
            (tickets,),
        ).fetchall()
        served = conn.execute(
            "SELECT t.player_id, array_agg(m.formed_at ORDER BY t.created_at, t.ticket_id)"
            " FROM mm_tickets t JOIN mm_matches m ON m.match_id = t.match_id"
            " WHERE t.ticket_id = ANY(%s) GROUP BY t.player_id",
            (tickets,),
        ).fetchall()
        streams = conn.execute(
            "SELECT count(*) FROM events WHERE stream_id = ANY(%s)",
            ([f"matchmaking-{m}" for m in matches],),
        ).fetchone()
    assert len(seated) == len(tickets)
    assert all(n == 1 for _, n in seated)
    assert sorted(p for p, _ in served) == sorted(players)
    for _, formed in served:
        assert all(a < b for a, b in itertools.pairwise(formed))
    assert streams == (len(matches),)


async def test_restart_loses_no_ticket(start_platform, monkeypatch):
    configure(monkeypatch)
    ask = pb.CreateTicketRequest(game_type="takefour", min_players=2, max_players=2)
    async with start_platform("matchmaking") as first, first.channel("rae") as ch:
        made = await pb_grpc.MatchmakingServiceStub(ch).CreateTicket(ask)
    async with (
        start_platform("matchmaking") as second,
        second.channel("rae") as rae_ch,
        second.channel("sam") as sam_ch,
    ):
        rae = pb_grpc.MatchmakingServiceStub(rae_ch)
        assert await status_of(rae, made.ticket.ticket_id) == pb.TICKET_STATUS_WAITING
        await pb_grpc.MatchmakingServiceStub(sam_ch).CreateTicket(ask)
        matched = await watch_until_done(rae, made.ticket.ticket_id)
    assert matched.status == pb.TICKET_STATUS_MATCHED
    assert {s.player_id for s in matched.seats} == {"rae", "sam"}


async def test_a_refused_create_lobby_leaves_no_lobby_behind(
    start_platform, monkeypatch, database_url
):
    """CreateLobby by a player who already waits with a ticket is TICKET_EXISTS, and opens no
    lobby: the lobby and its host's ticket are written together or not at all (a lobby row
    was left for every refused call, without bound, its code never shown to anyone)."""
    configure(monkeypatch)
    host = f"lobbyist-{time.monotonic_ns()}"
    async with start_platform("matchmaking") as platform, platform.channel(host) as ch:
        stub = pb_grpc.MatchmakingServiceStub(ch)
        await stub.CreateTicket(pb.CreateTicketRequest(game_type="connect4x4"))
        for _ in range(3):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.CreateLobby(pb.CreateLobbyRequest(game_type="connect4x4"))
            assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS
            assert reason_of(refused.value) == "TICKET_EXISTS"
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        row = await (
            await conn.execute("SELECT count(*) FROM mm_lobbies WHERE host_player_id = %s", (host,))
        ).fetchone()
    assert row == (0,)


async def test_a_lobby_its_host_has_left_takes_no_one_in(start_platform, monkeypatch):
    """Once the host's ticket in a lobby is cancelled, JoinLobby is FAILED_PRECONDITION
    LOBBY_CLOSED: a lobby waits for its host, so a ticket let in there waited for a game that
    could never start, and every abandoned code stayed open for good. The host may come
    back to it."""
    configure(monkeypatch)
    async with (
        start_platform("matchmaking") as platform,
        platform.channel("lhost") as host_ch,
        platform.channel("lpal") as pal_ch,
    ):
        host, pal = pb_grpc.MatchmakingServiceStub(host_ch), pb_grpc.MatchmakingServiceStub(pal_ch)
        lobby = await host.CreateLobby(pb.CreateLobbyRequest(game_type="connect4x4"))
        await host.CancelTicket(pb.CancelTicketRequest(ticket_id=lobby.ticket.ticket_id))
        with pytest.raises(grpc.aio.AioRpcError) as left:
            await pal.JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
        assert left.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert reason_of(left.value) == "LOBBY_CLOSED"
        back = await host.JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
        assert back.ticket.lobby == lobby.code
        joined = await pal.JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
        assert joined.ticket.lobby == lobby.code
