"""Accounts over gRPC: the matchmaking component (IdentityService) on PostgreSQL, signing in
through a real OpenID Connect provider process, each refusal a gRPC code and a reason."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import nats
import pytest
from oidc_provider import REDIRECT_URI, play_user, refusal, sign_in

from parlor.identity.v1 import identity_pb2 as pb
from parlor.identity.v1 import identity_pb2_grpc as pb_grpc
from parlor.kit import client
from parlor.matchmaking.v1 import matchmaking_pb2 as mpb
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as mpb_grpc

pytestmark = [pytest.mark.integration]


@pytest.fixture
async def platform(accounts_platform: Any) -> Any:
    async with accounts_platform("matchmaking") as running:
        yield running


async def test_sign_in_choose_a_handle_renew_and_sign_out(platform: Any, unique: str) -> None:
    async with client.channel(platform.target, None) as anonymous:
        stub = pb_grpc.IdentityServiceStub(anonymous)
        done, state, code = await sign_in(stub, f"gr-{unique}")
        assert done.created
        assert done.account.handle == ""
        player_id = done.account.player_id

        # the same state and code again: refused, and no second account
        assert await refusal(
            stub.CompleteSignIn, pb.CompleteSignInRequest(state=state, code=code)
        ) == (grpc.StatusCode.UNAUTHENTICATED, "STATE_USED")
        assert await refusal(
            stub.CompleteSignIn, pb.CompleteSignInRequest(state=state + "x", code=code)
        ) == (grpc.StatusCode.UNAUTHENTICATED, "STATE_UNKNOWN")
        again, _, _ = await sign_in(stub, f"gr-{unique}")
        assert (again.created, again.account.player_id) == (False, player_id)

        # the account's own calls, with its access token
        async with client.channel(platform.target, done.access_token) as signed_in:
            mine = pb_grpc.IdentityServiceStub(signed_in)
            handle = f"gr{unique[:10]}"
            named = await mine.SetHandle(pb.SetHandleRequest(handle=handle.upper()))
            assert named.account.handle == handle
            got = await mine.GetAccount(pb.GetAccountRequest())
            assert got.account.player_id == player_id
            assert [i.subject for i in got.account.identities] == [f"gr-{unique}"]
            assert await refusal(mine.SetHandle, pb.SetHandleRequest(handle="adm1n")) == (
                grpc.StatusCode.INVALID_ARGUMENT,
                "HANDLE_RESERVED",
            )
            # a guest-style refresh is not an account's way to renew
            assert await refusal(mine.RefreshToken, pb.RefreshTokenRequest()) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "USE_RENEW_SESSION",
            )

        # another account cannot take the handle, nor a look-alike of it
        other, _, _ = await sign_in(stub, f"gr2-{unique}")
        async with client.channel(platform.target, other.access_token) as signed_in:
            theirs = pb_grpc.IdentityServiceStub(signed_in)
            look_alike = handle.replace("r", "r", 1).replace("g", "q", 1)
            assert await refusal(theirs.SetHandle, pb.SetHandleRequest(handle=look_alike)) == (
                grpc.StatusCode.ALREADY_EXISTS,
                "HANDLE_TAKEN",
            )
            assert await refusal(
                theirs.CloseAccount, pb.CloseAccountRequest(player_id=player_id)
            ) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_YOUR_ACCOUNT")
            # everyone who plays sees the handle, looked up by player id
            shown = await theirs.GetPlayers(
                pb.GetPlayersRequest(player_ids=[player_id, other.account.player_id, "bot:easy"])
            )
            assert [(p.player_id, p.handle) for p in shown.players] == [
                (player_id, handle),
                (other.account.player_id, ""),
                ("bot:easy", ""),
            ]

        # renew rotates; the old token coming back revokes the family
        renewed = await stub.RenewSession(pb.RenewSessionRequest(refresh_token=done.refresh_token))
        assert renewed.refresh_token != done.refresh_token
        assert await refusal(
            stub.RenewSession, pb.RenewSessionRequest(refresh_token=done.refresh_token)
        ) == (grpc.StatusCode.UNAUTHENTICATED, "REFRESH_TOKEN_REUSED")
        assert await refusal(
            stub.RenewSession, pb.RenewSessionRequest(refresh_token=renewed.refresh_token)
        ) == (grpc.StatusCode.UNAUTHENTICATED, "REFRESH_TOKEN_REVOKED")

        # sign out: that session's refresh token is refused from then on
        await stub.SignOut(pb.SignOutRequest(refresh_token=again.refresh_token))
        assert await refusal(
            stub.RenewSession, pb.RenewSessionRequest(refresh_token=again.refresh_token)
        ) == (grpc.StatusCode.UNAUTHENTICATED, "REFRESH_TOKEN_REVOKED")


async def test_closing_an_account_ends_its_sessions(platform: Any, unique: str) -> None:
    async with client.channel(platform.target, None) as anonymous:
        stub = pb_grpc.IdentityServiceStub(anonymous)
        done, _, _ = await sign_in(stub, f"cl-{unique}")
        async with client.channel(platform.target, done.access_token) as signed_in:
            await pb_grpc.IdentityServiceStub(signed_in).CloseAccount(pb.CloseAccountRequest())
        assert await refusal(
            stub.RenewSession, pb.RenewSessionRequest(refresh_token=done.refresh_token)
        ) == (grpc.StatusCode.UNAUTHENTICATED, "ACCOUNT_CLOSED")
        begun = await stub.BeginSignIn(
            pb.BeginSignInRequest(provider="test", redirect_uri=REDIRECT_URI)
        )
        answer = await play_user(begun.authorization_url, f"cl-{unique}")
        assert await refusal(
            stub.CompleteSignIn,
            pb.CompleteSignInRequest(state=begun.state, code=answer["code"], iss=answer["iss"]),
        ) == (grpc.StatusCode.PERMISSION_DENIED, "ACCOUNT_CLOSED")


async def test_an_operator_closes_any_account_and_guests_have_none(
    platform: Any, unique: str
) -> None:
    async with client.channel(platform.target, None) as anonymous:
        stub = pb_grpc.IdentityServiceStub(anonymous)
        done, _, _ = await sign_in(stub, f"op-{unique}")
        assert await refusal(
            stub.BeginSignIn, pb.BeginSignInRequest(provider="nope", redirect_uri=REDIRECT_URI)
        ) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_PROVIDER")
    admin = platform.token("operator", roles=("admin",))
    async with client.channel(platform.target, admin) as operator:
        await pb_grpc.IdentityServiceStub(operator).CloseAccount(
            pb.CloseAccountRequest(player_id=done.account.player_id)
        )
    async with client.channel(platform.target, None) as anonymous:
        assert await refusal(
            pb_grpc.IdentityServiceStub(anonymous).RenewSession,
            pb.RenewSessionRequest(refresh_token=done.refresh_token),
        ) == (grpc.StatusCode.UNAUTHENTICATED, "ACCOUNT_CLOSED")
    async with platform.channel("guest-0123456789abcdef") as guest:
        assert await refusal(
            pb_grpc.IdentityServiceStub(guest).GetAccount, pb.GetAccountRequest()
        ) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "NOT_AN_ACCOUNT",
        )


async def test_no_handle_name_or_subject_reaches_the_bus(
    platform: Any, nats_url: str, subject_prefix: str, unique: str
) -> None:
    """An account plays: its match is published (the bus is watched), naming the player by
    the player id alone; its handle, name and the provider's subject are nowhere on it."""
    seen: list[bytes] = []
    bus = await nats.connect(nats_url)

    async def note(msg: Any) -> None:
        seen.append(msg.subject.encode() + b" " + bytes(msg.data) + repr(msg.headers).encode())

    await bus.subscribe(f"{subject_prefix}.>", cb=note)
    try:
        async with client.channel(platform.target, None) as anonymous:
            subject = f"subject-{unique}"
            handle = f"hd{unique[:10]}"
            done, _, _ = await sign_in(pb_grpc.IdentityServiceStub(anonymous), subject, handle)
        assert done.account.handle == handle
        player_id = done.account.player_id
        async with client.channel(platform.target, done.access_token) as signed_in:
            await mpb_grpc.MatchmakingServiceStub(signed_in).CreateTicket(
                mpb.CreateTicketRequest(game_type="connect4x4", bots_at_once=True)
            )
        for _ in range(100):  # the match is formed and relayed: the bus is watched
            if any(player_id.encode() in m for m in seen):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"no message named {player_id}: {seen}")
        await asyncio.sleep(0.5)
        for personal in (handle, subject):
            assert not [m for m in seen if personal.encode() in m], personal
    finally:
        await bus.close()
