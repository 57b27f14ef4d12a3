"""Tokens: a guest token from the platform, and a fresh one before the old one expires."""

from __future__ import annotations

from typing import TYPE_CHECKING

from parlor.identity.v1 import identity_pb2 as pb
from parlor.identity.v1 import identity_pb2_grpc as pb_grpc

if TYPE_CHECKING:
    from parlor.client.client import ParlorClient


class IdentityClient:
    """``parlor.identity.v1.IdentityService``."""

    def __init__(self, client: ParlorClient) -> None:
        self.client = client
        self.stub = pb_grpc.IdentityServiceStub(client.channel)

    async def issue_guest_token(self, display_name: str = "") -> pb.IssueGuestTokenResponse:
        """A new guest (needs no token): its token, player id and expiry.

        Retried when the platform is unreachable: at worst a lost reply leaves an unused guest.
        """
        request = pb.IssueGuestTokenRequest(display_name=display_name)
        return await self.client.call(self.stub.IssueGuestToken, request, idempotent=True)

    async def refresh_token(self) -> pb.RefreshTokenResponse:
        """A new token for the same player; the client calls with it from then on."""
        response = await self.client.call(
            self.stub.RefreshToken, pb.RefreshTokenRequest(), idempotent=True
        )
        self.client.token = response.token
        return response
