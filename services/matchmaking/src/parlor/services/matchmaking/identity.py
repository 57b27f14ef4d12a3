"""Guest tokens (a fresh player id and a token for it) and refreshes of short-lived tokens.

The identity service is the only one holding the identity signing key (see
``parlor.kit.auth``): it signs every player token.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from parlor.core.errors import InvalidArgument, PermissionDenied
from parlor.identity.v1 import identity_pb2 as pb
from parlor.identity.v1 import identity_pb2_grpc as pb_grpc
from parlor.kit import auth as tokens
from parlor.kit.auth import AuthSettings, issue_token

MAX_NAME = 64


class IdentityServicer(pb_grpc.IdentityServiceServicer):
    def __init__(self, auth: AuthSettings) -> None:
        self.auth = auth

    async def IssueGuestToken(
        self, request: pb.IssueGuestTokenRequest, context: Any
    ) -> pb.IssueGuestTokenResponse:
        if not self.auth.guest_tokens:
            raise PermissionDenied(
                "guest tokens are switched off on this platform", reason="GUEST_TOKENS_DISABLED"
            )
        name = request.display_name.strip()
        if len(name) > MAX_NAME:
            raise InvalidArgument(
                f"a display name has at most {MAX_NAME} characters", reason="BAD_NAME"
            )
        player_id = f"guest-{uuid.uuid4().hex[:16]}"
        now = time.time()
        token = issue_token(self.auth, player_id, name or player_id, (), now=now)
        response = pb.IssueGuestTokenResponse(token=token, player_id=player_id)
        response.expires_at.FromSeconds(int(now) + self.auth.token_ttl_seconds)
        return response

    async def RefreshToken(
        self, request: pb.RefreshTokenRequest, context: Any
    ) -> pb.RefreshTokenResponse:
        now = time.time()
        token = tokens.refresh_token(self.auth, tokens.caller(), now)
        response = pb.RefreshTokenResponse(token=token)
        response.expires_at.FromSeconds(int(now) + self.auth.token_ttl_seconds)
        return response
