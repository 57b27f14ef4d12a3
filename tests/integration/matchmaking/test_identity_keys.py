"""The identity service's keys on real PostgreSQL and NATS (issue 15, class 8).

Tokens are short-lived and renewed with IdentityService/RefreshToken; a token a game
service's own key signs for anyone but that service (a player, an admin) is refused
with UNAUTHENTICATED TOKEN_INVALID and stores nothing; the service's own token is for the
dictionary, and matchmaking refuses it (TOKEN_WRONG_AUDIENCE).
"""

from __future__ import annotations

import grpc
import psycopg
import pytest

from parlor.identity.v1 import identity_pb2 as id_pb
from parlor.identity.v1 import identity_pb2_grpc as id_grpc
from parlor.kit import client
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token, jwks, verify_token
from parlor.kit.main import available
from parlor.kit.server import ServerSettings, running
from parlor.kit.status import reason_of
from parlor.matchmaking.v1 import matchmaking_pb2 as pb
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("quiet_pool")]


async def tickets_of(database_url: str, player_id: str) -> int:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        row = await (
            await conn.execute("SELECT count(*) FROM mm_tickets WHERE player_id = %s", (player_id,))
        ).fetchone()
        return int(row[0]) if row else 0


async def test_a_guest_token_is_refreshed_and_the_new_one_works(start_platform, monkeypatch):
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    async with start_platform("matchmaking") as platform:
        async with client.channel(platform.target) as anonymous:
            identity = id_grpc.IdentityServiceStub(anonymous)
            guest = await identity.IssueGuestToken(id_pb.IssueGuestTokenRequest(display_name="Zoe"))
            with pytest.raises(grpc.aio.AioRpcError) as missing:
                await identity.RefreshToken(id_pb.RefreshTokenRequest())
            assert missing.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert reason_of(missing.value) == "TOKEN_MISSING"
        async with client.channel(platform.target, guest.token) as ch:
            renewed = await id_grpc.IdentityServiceStub(ch).RefreshToken(
                id_pb.RefreshTokenRequest()
            )
        assert renewed.token != guest.token
        assert renewed.expires_at.seconds >= guest.expires_at.seconds
        again = verify_token(platform.auth, renewed.token)
        assert (again.player_id, again.name) == (guest.player_id, "Zoe")
        async with client.channel(platform.target, renewed.token) as ch:
            made = await pb_grpc.MatchmakingServiceStub(ch).CreateTicket(
                pb.CreateTicketRequest(game_type="connect4x4", min_players=2, max_players=4)
            )
        assert made.ticket.player_id == guest.player_id


async def test_a_game_services_key_cannot_mint_a_player_or_an_admin(
    migrated, monkeypatch, database_url
):
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    identity_key, upwords_key = generate_private_key(), generate_private_key()
    # The identity service verifies with the identity key and the game services' public keys.
    monkeypatch.setenv("PARLOR_JWT_PRIVATE_KEY", identity_key)
    # as parlor-keys writes it: the upwords key signs only for the dictionary, which it calls
    public = jwks({"upwords": upwords_key}, {"upwords": ["dictionary"]})
    auth = AuthSettings(private_key=identity_key, public_keys=public)
    upwords = AuthSettings(private_key=upwords_key, key_id="upwords")
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=2)
    async with running(settings, [available()["matchmaking"]], auth) as server:
        target = f"127.0.0.1:{server.port}"
        for forged in (
            issue_token(upwords, "mallory-player"),
            issue_token(upwords, "mallory-player", roles=("admin", "service")),
            issue_token(upwords, "service:upwords", roles=("service", "admin")),
        ):
            async with client.channel(target, forged) as ch:
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await pb_grpc.MatchmakingServiceStub(ch).CreateTicket(
                        pb.CreateTicketRequest(game_type="connect4x4", player_id="mallory-player")
                    )
                assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
                assert reason_of(refused.value) == "TOKEN_INVALID"
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await id_grpc.IdentityServiceStub(ch).RefreshToken(id_pb.RefreshTokenRequest())
                assert reason_of(refused.value) == "TOKEN_INVALID"
        assert await tickets_of(database_url, "mallory-player") == 0
        # The service's own token is for the dictionary: matchmaking takes it for nothing,
        # neither a ticket for a player nor a refresh (an identity-signed copy).
        own = issue_token(upwords, "service:upwords", roles=("service",), audience=("dictionary",))
        async with client.channel(target, own) as ch:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await pb_grpc.MatchmakingServiceStub(ch).CreateTicket(
                    pb.CreateTicketRequest(game_type="connect4x4", player_id="for-a-player")
                )
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert reason_of(refused.value) == "TOKEN_WRONG_AUDIENCE"
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await id_grpc.IdentityServiceStub(ch).RefreshToken(id_pb.RefreshTokenRequest())
            assert reason_of(refused.value) == "TOKEN_WRONG_AUDIENCE"
        assert await tickets_of(database_url, "for-a-player") == 0
