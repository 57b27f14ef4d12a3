"""Issue 15, classes 4, 7 and 9, attacked on a running platform (real PostgreSQL and NATS).

4. Unbounded input: huge names, ids, moves, tile sets, jokers and tile values, handles,
   sign-in states, codes and refresh tokens are refused at the edge (INVALID_ARGUMENT
   with a reason, the input not echoed), and no event larger than the bus carries can be
   appended.
7. Rate limits: guest tokens are limited per client address (not per connection), all
   guests together have a cap, and each player holds a bounded number of streams, which
   end when idle.
9. Names and enums: unprintable and bot-like display names and unknown enum values are
   refused.

Each attack shows its status code and reason, and that nothing was stored or published.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import nats
import psycopg
import pytest

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as cpb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as cpb_grpc
from parlor.eventstore import JetStreamBus, NewEvent, PostgresEventStore
from parlor.identity.v1 import identity_pb2 as ipb
from parlor.identity.v1 import identity_pb2_grpc as ipb_grpc
from parlor.kit import client
from parlor.kit.auth import AuthSettings, issue_token
from parlor.kit.main import available
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import Server, ServerSettings, running
from parlor.kit.status import reason_of
from parlor.matchmaking.v1 import matchmaking_pb2 as mpb
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as mpb_grpc
from parlor.takefour.v1 import takefour_pb2 as tpb
from parlor.takefour.v1 import takefour_pb2_grpc as tpb_grpc
from parlor.upwords.v1 import upwords_pb2 as upb
from parlor.upwords.v1 import upwords_pb2_grpc as upb_grpc

pytestmark = pytest.mark.integration


def auth() -> AuthSettings:
    """The session's key (backend_env sets it): the services sign their own calls with it."""
    return AuthSettings(private_key=os.environ["PARLOR_JWT_PRIVATE_KEY"])


@contextlib.asynccontextmanager
async def platform(limits: RateLimitSettings) -> AsyncIterator[Server]:
    """Every component on one server; the word games ask a dictionary server started first."""
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=1)
    factories = available()
    saved = os.environ.get("PARLOR_DICTIONARY_TARGET")
    async with running(settings, [factories["dictionary"]], auth(), limits) as dictionary:
        os.environ["PARLOR_DICTIONARY_TARGET"] = f"127.0.0.1:{dictionary.port}"
        try:
            async with running(settings, list(factories.values()), auth(), limits) as server:
                yield server
        finally:
            if saved is None:
                os.environ.pop("PARLOR_DICTIONARY_TARGET", None)
            else:
                os.environ["PARLOR_DICTIONARY_TARGET"] = saved


def events_stored(database_url: str, actor: str) -> int:
    """Events caused by ``actor`` (each test's player is its own, so others do not count)."""
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT count(*) FROM events WHERE actor = %s", (actor,)).fetchone()
    return int(row[0]) if row else 0


def someone() -> str:
    return f"ada-{uuid.uuid4().hex[:8]}"


@contextlib.asynccontextmanager
async def published(nats_url: str, prefix: str) -> AsyncIterator[list[Any]]:
    """Every message published under the session's subjects while the block runs."""
    seen: list[Any] = []
    nc = await nats.connect(nats_url)

    async def note(msg: Any) -> None:
        seen.append(msg)

    await nc.subscribe(f"{prefix}.>", cb=note)
    try:
        yield seen
        await asyncio.sleep(1.5)  # the relays poll: give them the time to publish anything
    finally:
        await nc.close()


async def refused(call: Any, request: Any) -> tuple[grpc.StatusCode, str | None, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        result = call(request)
        if hasattr(result, "__aiter__"):
            async for _ in result:
                pass
        else:
            await result
    error = caught.value
    return error.code(), reason_of(error), error.details() or ""


async def guest_codes(stub: ipb_grpc.IdentityServiceStub, addresses: list[str]) -> list[str]:
    """IssueGuestToken once from each address (behind the trusted proxy): "OK" or the refusal."""
    codes = []
    for address in addresses:
        try:
            await stub.IssueGuestToken(
                ipb.IssueGuestTokenRequest(), metadata=(("x-forwarded-for", address),)
            )
            codes.append("OK")
        except grpc.aio.AioRpcError as error:
            codes.append(f"{error.code().name} {reason_of(error)}")
    return codes


def seat(player: str, name: str = "") -> common_pb2.Seat:
    return common_pb2.Seat(player_id=player, display_name=name or player.title())


def take_four(game: str, me: str, tiles: tpb.TileSet | None = None, **config: Any) -> Any:
    """A Take Four CreateGame for ``me`` against a bot, with the tiles and config given."""
    return tpb.CreateGameRequest(
        game_id=game, seats=[seat(me), seat("bot:easy")], config=tpb.Config(tiles=tiles, **config)
    )


async def test_class_4_unbounded_input_is_refused_at_the_edge_and_nothing_is_stored(
    migrated: None, database_url: str, nats_url: str, subject_prefix: str
) -> None:
    me = someone()
    limits = RateLimitSettings(per_second=0)
    async with (
        platform(limits) as server,
        client.channel(f"127.0.0.1:{server.port}", issue_token(auth(), me, "Ada")) as channel,
    ):
        takefour = tpb_grpc.TakeFourServiceStub(channel)
        connect = cpb_grpc.Connect4x4ServiceStub(channel)
        identity = ipb_grpc.IdentityServiceStub(channel)
        game = uuid.uuid4().hex
        big_tiles = tpb.TileSet(
            letters=[tpb.LetterTiles(letter=c, count=1000, value=1) for c in "ABCDE"]
        )
        attacks = [
            # (what, call, request, reason)
            (
                "2 MB display name",
                takefour.CreateGame,
                tpb.CreateGameRequest(seats=[seat(me, "A" * 2_000_000), seat("bot:easy")]),
                "FIELD_TOO_LONG",
            ),
            (
                "5,000 tiles",
                takefour.CreateGame,
                take_four(game, me, big_tiles),
                "TOO_MANY_TILES",
            ),
            (
                "4,000,000 tiles of one letter",
                takefour.CreateGame,
                take_four(
                    game, me, tpb.TileSet(letters=[tpb.LetterTiles(letter="A", count=4_000_000)])
                ),
                "NUMBER_OUT_OF_RANGE",
            ),
            (
                "100,000 jokers",
                takefour.CreateGame,
                take_four(game, me, tpb.TileSet(jokers=100_000)),
                "NUMBER_OUT_OF_RANGE",
            ),
            (
                "a tile worth 2^32-1",
                takefour.CreateGame,
                take_four(
                    game, me, tpb.TileSet(letters=[tpb.LetterTiles(letter="A", value=2**32 - 1)])
                ),
                "NUMBER_OUT_OF_RANGE",
            ),
            (
                "1 MB game id",
                connect.PlayMove,
                cpb.PlayMoveRequest(game_id="g" * 1_000_000, move="a1"),
                "INVALID_GAME_ID",
            ),
            (
                "1 MB move",
                connect.PlayMove,
                cpb.PlayMoveRequest(game_id=game, move="m" * 1_000_000),
                "FIELD_TOO_LONG",
            ),
            (
                "1 MB spectator invite",
                connect.GetGame,
                cpb.GetGameRequest(game_id=game, invite="i" * 1_000_000),
                "INVALID_INVITE",
            ),
            (
                "a spectator invite one past its bound",
                takefour.GetHistory,
                tpb.GetHistoryRequest(game_id=game, invite="i" * 65),
                "INVALID_INVITE",
            ),
            # accounts: each field refused with the reason the service's own check gives
            (
                "1 MB handle",
                identity.SetHandle,
                ipb.SetHandleRequest(handle="h" * 1_000_000),
                "HANDLE_TOO_LONG",
            ),
            (
                "1 MB redirect URI",
                identity.BeginSignIn,
                ipb.BeginSignInRequest(provider="p", redirect_uri="u" * 1_000_000),
                "REDIRECT_URI_NOT_ALLOWED",
            ),
            (
                "1 MB sign-in state",
                identity.CompleteSignIn,
                ipb.CompleteSignInRequest(state="s" * 1_000_000, code="c"),
                "STATE_UNKNOWN",
            ),
            (
                "1 MB authorisation code",
                identity.CompleteSignIn,
                ipb.CompleteSignInRequest(state="s", code="c" * 1_000_000),
                "CODE_REJECTED",
            ),
            (
                "1 MB refresh token",
                identity.RenewSession,
                ipb.RenewSessionRequest(refresh_token="r" * 1_000_000),
                "REFRESH_TOKEN_INVALID",
            ),
            (
                "101 players looked up",
                identity.GetPlayers,
                ipb.GetPlayersRequest(player_ids=[f"acct-{n}" for n in range(101)]),
                "TOO_MANY_ITEMS",
            ),
        ]
        before = events_stored(database_url, me)
        async with published(nats_url, subject_prefix) as messages:
            for what, call, request, reason in attacks:
                code, got, details = await refused(call, request)
                assert (code, got) == (grpc.StatusCode.INVALID_ARGUMENT, reason), (what, details)
                assert len(details) < 300, f"{what}: the error echoes the input"
        assert events_stored(database_url, me) == before
        assert not [m.subject for m in messages if game in m.subject]

    # No event the bus would refuse can be appended: the store learns the limit from NATS.
    bus = await JetStreamBus.connect(nats_url)
    store = PostgresEventStore(database_url, pool_size=1)
    try:
        assert bus.max_payload == 1024 * 1024  # the server's default max_payload
        store.limit_events_to(bus.max_payload)
        stream = f"connect4x4-{uuid.uuid4().hex}"
        with pytest.raises(Exception) as caught:
            await store.append(stream, [NewEvent("Huge", b"x" * bus.max_payload)], 0)
        assert getattr(caught.value, "reason", None) == "EVENT_TOO_LARGE"
        assert await store.stream_version(stream) == 0
        await store.append(stream, [NewEvent("Fine", b"x" * 1000)], 0)
        assert await store.stream_version(stream) == 1
    finally:
        await store.close()
        await bus.close()


async def test_class_7_guests_streams_and_idle_watches_are_limited(
    migrated: None, database_url: str
) -> None:
    limits = RateLimitSettings(
        per_second=0.01,
        burst=6,
        anonymous_per_second=0.01,
        anonymous_burst=9,
        client_address_header="x-forwarded-for",
        trusted_proxies=("127.0.0.1/32",),
        guest_per_address_per_second=0.01,
        guest_per_address_burst=6,
        max_streams=2,
        stream_idle_seconds=1.0,
    )
    me = someone()
    async with platform(limits) as server:
        target = f"127.0.0.1:{server.port}"
        before = events_stored(database_url, me)
        # A new connection (a new source port) each time: still the same caller.
        codes = []
        for _ in range(7):
            async with grpc.aio.insecure_channel(target) as fresh:
                stub = ipb_grpc.IdentityServiceStub(fresh)
                try:
                    await stub.IssueGuestToken(ipb.IssueGuestTokenRequest(display_name="Eve"))
                    codes.append("OK")
                except grpc.aio.AioRpcError as error:
                    codes.append(f"{error.code().name} {reason_of(error)}")
        assert codes == ["OK"] * 6 + ["RESOURCE_EXHAUSTED RATE_LIMITED"]
        # Behind the trusted proxy each client has its own bucket, but all share one cap.
        async with grpc.aio.insecure_channel(target) as proxy:
            stub = ipb_grpc.IdentityServiceStub(proxy)
            codes = await guest_codes(stub, [f"203.0.113.{n}" for n in range(4)])
        assert codes == ["OK"] * 3 + ["RESOURCE_EXHAUSTED ANONYMOUS_LIMITED"]

        # Streams: two open watches per player; a third is refused; idle ones end.
        async with client.channel(target, issue_token(auth(), me, "Ada")) as channel:
            connect = cpb_grpc.Connect4x4ServiceStub(channel)
            game = uuid.uuid4().hex
            await connect.CreateGame(
                cpb.CreateGameRequest(game_id=game, seats=[seat(me), seat("bot:random")])
            )
            created = events_stored(database_url, me)
            watches = [connect.WatchGame(cpb.WatchGameRequest(game_id=game)) for _ in range(2)]
            for watch in watches:
                await watch.read()  # open, and past the game's first event
            code, reason, _ = await refused(connect.WatchGame, cpb.WatchGameRequest(game_id=game))
            assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS")
            for watch in watches:
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    while True:
                        item = await asyncio.wait_for(watch.read(), 5)
                        assert item is not grpc.aio.EOF
                assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                assert reason_of(caught.value) == "STREAM_IDLE"
            again = connect.WatchGame(cpb.WatchGameRequest(game_id=game))
            assert await again.read() is not grpc.aio.EOF  # the closed ones were given back
            again.cancel()
        assert events_stored(database_url, me) == created  # watching and refusals stored nothing
        assert created > before


async def test_class_7_many_guest_tokens_from_one_address_buy_no_more_streams(
    migrated: None, database_url: str
) -> None:
    limits = RateLimitSettings(
        per_second=0,
        anonymous_per_second=0.01,
        anonymous_burst=50,
        guest_per_address_per_second=0.01,
        guest_per_address_burst=2,
        client_address_header="x-forwarded-for",
        trusted_proxies=("127.0.0.1/32",),
        max_streams=2,
        max_streams_per_address=3,
    )
    me = someone()
    attacker, neighbour = "203.0.113.7", "198.51.100.7"

    def calling(token: str, address: str) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {token}"), ("x-forwarded-for", address))

    async with platform(limits) as server:
        target = f"127.0.0.1:{server.port}"
        async with client.channel(target, issue_token(auth(), me, "Ada")) as channel:
            connect = cpb_grpc.Connect4x4ServiceStub(channel)
            game = uuid.uuid4().hex
            await connect.CreateGame(
                cpb.CreateGameRequest(game_id=game, seats=[seat(me), seat("bot:random")])
            )
        created = events_stored(database_url, me)
        async with grpc.aio.insecure_channel(target) as raw:
            connect = cpb_grpc.Connect4x4ServiceStub(raw)
            watch = cpb.WatchGameRequest(game_id=game)
            # A fresh guest token for every stream, all from one address: the address's cap holds.
            guests = [issue_token(auth(), f"guest-{uuid.uuid4().hex}", "G") for _ in range(5)]
            open_ = [connect.WatchGame(watch, metadata=calling(t, attacker)) for t in guests[:3]]
            for stream in open_:
                assert await stream.read() is not grpc.aio.EOF
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await connect.WatchGame(watch, metadata=calling(guests[3], attacker)).read()
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert reason_of(caught.value) == "TOO_MANY_STREAMS"
            other = connect.WatchGame(watch, metadata=calling(guests[4], neighbour))
            assert await other.read() is not grpc.aio.EOF  # another address is not affected
            for stream in [*open_, other]:
                stream.cancel()

            # One address looping on guest tokens is refused before it drains the shared bucket.
            identity = ipb_grpc.IdentityServiceStub(raw)
            codes = await guest_codes(identity, [attacker] * 10)
            assert codes == ["OK"] * 2 + ["RESOURCE_EXHAUSTED RATE_LIMITED"] * 8
            assert await guest_codes(identity, [neighbour] * 2) == ["OK"] * 2
        assert events_stored(database_url, me) == created  # watching and refusals stored nothing


async def test_class_9_unprintable_or_bot_names_and_unknown_enums_are_refused(
    migrated: None, database_url: str, nats_url: str, subject_prefix: str
) -> None:
    me = someone()
    async with platform(RateLimitSettings(per_second=0)) as server:
        target = f"127.0.0.1:{server.port}"
        before = events_stored(database_url, me)
        async with grpc.aio.insecure_channel(target) as anonymous:
            identity = ipb_grpc.IdentityServiceStub(anonymous)
            for name, reason in (
                ("Ada\u202eenil", "NAME_NOT_PRINTABLE"),
                ("\x1b[2J\x1b[31mAdmin", "NAME_NOT_PRINTABLE"),
                ("Ada\nSystem: you won", "NAME_NOT_PRINTABLE"),
                ("bot:best", "NAME_RESERVED"),
            ):
                code, got, _ = await refused(
                    identity.IssueGuestToken, ipb.IssueGuestTokenRequest(display_name=name)
                )
                assert (code, got) == (grpc.StatusCode.INVALID_ARGUMENT, reason), name
        async with client.channel(target, issue_token(auth(), me, "Ada")) as channel:
            takefour = tpb_grpc.TakeFourServiceStub(channel)
            upwords = upb_grpc.UpwordsServiceStub(channel)
            game = uuid.uuid4().hex
            async with published(nats_url, subject_prefix) as messages:
                attacks = [
                    (
                        takefour.CreateGame,
                        tpb.CreateGameRequest(
                            game_id=game, seats=[seat(me, "Ada\u202e"), seat("bot:easy")]
                        ),
                        "NAME_NOT_PRINTABLE",
                    ),
                    (
                        takefour.CreateGame,
                        tpb.CreateGameRequest(
                            game_id=game, seats=[seat(me, "bot:strong"), seat("bob")]
                        ),
                        "NAME_RESERVED",
                    ),
                    (
                        takefour.CreateGame,
                        take_four(game, me, checking=7),
                        "UNKNOWN_ENUM_VALUE",
                    ),
                    (
                        upwords.CreateGame,
                        upb.CreateGameRequest(
                            game_id=game,
                            seats=[seat(me), seat("bob")],
                            config=upb.Config(word_checking=99),  # type: ignore[arg-type]
                        ),
                        "UNKNOWN_ENUM_VALUE",
                    ),
                ]
                for call, request, reason in attacks:
                    code, got, details = await refused(call, request)
                    assert (code, got) == (grpc.StatusCode.INVALID_ARGUMENT, reason), details
            assert not [m.subject for m in messages if game in m.subject]
        assert events_stored(database_url, me) == before
        # A name that comes in a token's claim is held to the same rule: never shown.
        async with client.channel(target, issue_token(auth(), me, "bot:best\u202e")) as channel:
            lobby = mpb_grpc.MatchmakingServiceStub(channel)
            opened = await lobby.CreateLobby(
                mpb.CreateLobbyRequest(game_type="connect4x4", min_players=2, max_players=2)
            )
            with psycopg.connect(database_url) as conn:
                row = conn.execute(
                    "SELECT display_name FROM mm_tickets WHERE ticket_id = %s",
                    (opened.ticket.ticket_id,),
                ).fetchone()
            assert row == (me,)
            await lobby.CancelTicket(mpb.CancelTicketRequest(ticket_id=opened.ticket.ticket_id))
