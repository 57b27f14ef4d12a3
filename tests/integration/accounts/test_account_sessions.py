"""An account's sessions over gRPC (issue 40): listed for their owner alone, and revoked by
signing out, signing out everywhere and closing the account. After each, the refresh
token is refused and no access token comes of it."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from oidc_provider import refusal, sign_in

from parlor.identity.v1 import identity_pb2 as pb
from parlor.identity.v1 import identity_pb2_grpc as pb_grpc
from parlor.kit import client

pytestmark = [pytest.mark.integration]

REVOKED = (grpc.StatusCode.UNAUTHENTICATED, "REFRESH_TOKEN_REVOKED")


@pytest.fixture
async def platform(accounts_platform: Any) -> Any:
    async with accounts_platform("matchmaking") as running:
        yield running


async def listed(target: str, access_token: str) -> list[pb.Session]:
    async with client.channel(target, access_token) as channel:
        got = await pb_grpc.IdentityServiceStub(channel).ListSessions(pb.ListSessionsRequest())
    return list(got.sessions)


async def renewal_refused(stub: pb_grpc.IdentityServiceStub, refresh_token: str) -> Any:
    """How renewing ``refresh_token`` is refused (never an access token)."""
    return await refusal(stub.RenewSession, pb.RenewSessionRequest(refresh_token=refresh_token))


async def test_sessions_are_listed_and_each_way_of_ending_them_holds(
    platform: Any, unique: str
) -> None:
    target = platform.target
    async with client.channel(target, None) as anonymous:
        stub = pb_grpc.IdentityServiceStub(anonymous)
        login = f"se-{unique}"
        laptop, _, _ = await sign_in(stub, login, client="Firefox on Linux")
        phone, _, _ = await sign_in(stub, login, client="parlor CLI\x07\n  v1")
        tablet, _, _ = await sign_in(stub, login)
        someone, _, _ = await sign_in(stub, f"se2-{unique}", client="theirs")

        sessions = await listed(target, laptop.access_token)
        assert [s.client for s in sessions] == ["", "parlor CLI v1", "Firefox on Linux"]
        assert all(s.created_at.seconds == s.last_used_at.seconds for s in sessions)
        assert all(s.expires_at.seconds > s.created_at.seconds for s in sessions)
        families = {s.session_id for s in sessions}
        assert len(families) == 3
        # a session's id names it, and is no credential: no refresh token holds only it
        assert all(
            s.session_id == t.refresh_token.split(".")[0]
            for s, t in zip(sessions, (tablet, phone, laptop), strict=True)
        )
        assert await renewal_refused(stub, sessions[0].session_id + ".") == (
            grpc.StatusCode.UNAUTHENTICATED,
            "REFRESH_TOKEN_INVALID",
        )
        # one's own alone
        assert [s.client for s in await listed(target, someone.access_token)] == ["theirs"]

        # renewing keeps the session, and says when it was last used
        renewed = await stub.RenewSession(
            pb.RenewSessionRequest(refresh_token=laptop.refresh_token)
        )
        again = {s.session_id: s for s in await listed(target, renewed.access_token)}
        assert set(again) == families

        # sign out: that session ends, the others go on
        await stub.SignOut(pb.SignOutRequest(refresh_token=phone.refresh_token))
        assert await renewal_refused(stub, phone.refresh_token) == REVOKED
        assert [s.client for s in await listed(target, laptop.access_token)] == [
            "",
            "Firefox on Linux",
        ]

        # sign out everywhere: every session of the account ends, nobody else's
        async with client.channel(target, renewed.access_token) as channel:
            ended = await pb_grpc.IdentityServiceStub(channel).SignOutEverywhere(
                pb.SignOutEverywhereRequest()
            )
        assert ended.revoked == 2
        for token in (renewed.refresh_token, tablet.refresh_token, phone.refresh_token):
            assert await renewal_refused(stub, token) == REVOKED
        assert await listed(target, laptop.access_token) == []
        theirs = await stub.RenewSession(
            pb.RenewSessionRequest(refresh_token=someone.refresh_token)
        )
        assert theirs.access_token

        # closing the account ends the sessions begun since, at once
        back, _, _ = await sign_in(stub, login, client="back again")
        assert [s.client for s in await listed(target, back.access_token)] == ["back again"]
        async with client.channel(target, back.access_token) as channel:
            await pb_grpc.IdentityServiceStub(channel).CloseAccount(pb.CloseAccountRequest())
        assert await renewal_refused(stub, back.refresh_token) == (
            grpc.StatusCode.UNAUTHENTICATED,
            "ACCOUNT_CLOSED",
        )
        assert await listed(target, back.access_token) == []

        # a guest has no sessions to list or end
        async with platform.channel("guest-0123456789abcdef") as guest:
            me = pb_grpc.IdentityServiceStub(guest)
            for call, request in (
                (me.ListSessions, pb.ListSessionsRequest()),
                (me.SignOutEverywhere, pb.SignOutEverywhereRequest()),
            ):
                assert await refusal(call, request) == (
                    grpc.StatusCode.FAILED_PRECONDITION,
                    "NOT_AN_ACCOUNT",
                )
