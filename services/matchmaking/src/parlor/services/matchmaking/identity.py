"""The identity service: guest tokens, refreshes of short-lived tokens, and accounts.

The identity service is the only one holding the identity signing key (see
``parlor.kit.auth``): it signs every player token. Accounts (``accounts``, ``signin``;
docs/accounts.md) are signed into through OpenID Connect providers and kept in the
event store.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from parlor.accounts import PLAYER_PREFIX, Account
from parlor.core.errors import FailedPrecondition, InvalidArgument, PermissionDenied
from parlor.identity.v1 import identity_pb2 as pb
from parlor.identity.v1 import identity_pb2_grpc as pb_grpc
from parlor.kit import auth as tokens
from parlor.kit.auth import AuthSettings, issue_token, verify_token
from parlor.services.matchmaking.accounts import Accounts
from parlor.services.matchmaking.passwords import Passwords
from parlor.services.matchmaking.signin import ACCOUNT_CLOSED, SignIns, Tokens

MAX_NAME = 64
ADMIN_ROLE = "admin"
GUEST_PREFIX = "guest-"


def account_message(account: Account) -> pb.Account:
    message = pb.Account(
        player_id=account.player_id,
        handle=account.handle,
        display_name=account.display_name,
        identities=[
            pb.LinkedIdentity(issuer=i.issuer, subject=i.subject) for i in account.identities
        ],
        closed=account.closed,
        guest_ids=account.guests,
        erased=account.erased,
    )
    message.created_at.FromSeconds(account.created_at)
    return message


def _own_or_operators(requested: str, verb: str) -> tuple[str, bool]:
    """The account a call names (empty: the caller's own), if the caller may act on it,
    and whether it is the caller's own."""
    caller = tokens.caller()
    player_id = requested or _account_caller()
    if player_id != caller.player_id and ADMIN_ROLE not in caller.roles:
        raise PermissionDenied(
            f"only an operator (role admin) {verb} another's account", reason="NOT_YOUR_ACCOUNT"
        )
    return player_id, player_id == caller.player_id


def _account_caller() -> str:
    """The caller's player id, if it is an account's (not a guest's or a service's)."""
    player_id = tokens.caller().player_id
    if not player_id.startswith(PLAYER_PREFIX):
        raise FailedPrecondition(
            "this call is for accounts; a guest signs in first (BeginSignIn)",
            reason="NOT_AN_ACCOUNT",
        )
    return player_id


BotHandles = Callable[[Sequence[str]], Awaitable[dict[str, str]]]
"""The handles of the registered bots among some player ids (``bots.Bots.handles``)."""


class IdentityServicer(pb_grpc.IdentityServiceServicer):
    def __init__(
        self,
        auth: AuthSettings,
        accounts: Accounts,
        sign_ins: SignIns,
        passwords: Passwords,
        bot_handles: BotHandles | None = None,
    ) -> None:
        self.auth = auth
        self.accounts = accounts
        self.sign_ins = sign_ins
        self.passwords = passwords
        self.bot_handles = bot_handles

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
        player_id = f"{GUEST_PREFIX}{uuid.uuid4().hex[:16]}"
        now = time.time()
        token = issue_token(self.auth, player_id, name or player_id, (), now=now)
        response = pb.IssueGuestTokenResponse(token=token, player_id=player_id)
        response.expires_at.FromSeconds(int(now) + self.auth.token_ttl_seconds)
        return response

    async def RefreshToken(
        self, request: pb.RefreshTokenRequest, context: Any
    ) -> pb.RefreshTokenResponse:
        now = time.time()
        identity = tokens.caller()
        if identity.player_id.startswith(PLAYER_PREFIX) or "bot" in identity.roles:
            # an account's sessions are its refresh tokens, which closing the account revokes
            raise FailedPrecondition(
                "an account's token is renewed with its refresh token (RenewSession)",
                reason="USE_RENEW_SESSION",
            )
        token = tokens.refresh_token(self.auth, identity, now)
        response = pb.RefreshTokenResponse(token=token)
        response.expires_at.FromSeconds(int(now) + self.auth.token_ttl_seconds)
        return response

    # -- accounts --------------------------------------------------------------------------

    async def BeginSignIn(
        self, request: pb.BeginSignInRequest, context: Any
    ) -> pb.BeginSignInResponse:
        url, state, expires = await self.sign_ins.begin(request.provider, request.redirect_uri)
        response = pb.BeginSignInResponse(authorization_url=url, state=state)
        response.expires_at.FromSeconds(expires)
        return response

    async def CompleteSignIn(
        self, request: pb.CompleteSignInRequest, context: Any
    ) -> pb.CompleteSignInResponse:
        if not request.state:
            raise InvalidArgument("the provider's state is needed", reason="STATE_UNKNOWN")
        if not request.code:
            raise InvalidArgument("the provider's code is needed", reason="CODE_REJECTED")
        signed_in = await self.sign_ins.complete(
            request.state, request.code, request.iss, request.client
        )
        response = pb.CompleteSignInResponse(
            account=account_message(signed_in.account), created=signed_in.created
        )
        _fill_tokens(response, signed_in.tokens)
        return response

    async def RenewSession(
        self, request: pb.RenewSessionRequest, context: Any
    ) -> pb.RenewSessionResponse:
        response = pb.RenewSessionResponse()
        _fill_tokens(response, await self.sign_ins.renew(request.refresh_token))
        return response

    async def SignOut(self, request: pb.SignOutRequest, context: Any) -> pb.SignOutResponse:
        await self.sign_ins.sign_out(request.refresh_token)
        return pb.SignOutResponse()

    async def GetAccount(
        self, request: pb.GetAccountRequest, context: Any
    ) -> pb.GetAccountResponse:
        account = await self.accounts.get(_account_caller())
        return pb.GetAccountResponse(account=account_message(account))

    async def SetHandle(self, request: pb.SetHandleRequest, context: Any) -> pb.SetHandleResponse:
        account = await self.accounts.set_handle(_account_caller(), request.handle)
        return pb.SetHandleResponse(account=account_message(account))

    async def CloseAccount(
        self, request: pb.CloseAccountRequest, context: Any
    ) -> pb.CloseAccountResponse:
        player_id, by_player = _own_or_operators(request.player_id, "closes")
        reason = "closed by its player" if by_player else "closed by an operator"
        await self.accounts.close(player_id, reason)
        # Every session at once (renewing one is refused anyway: its account is closed), so
        # none is listed as open.
        await self.sign_ins.sign_out_everywhere(player_id, ACCOUNT_CLOSED)
        return pb.CloseAccountResponse()

    async def EraseAccount(
        self, request: pb.EraseAccountRequest, context: Any
    ) -> pb.EraseAccountResponse:
        player_id, _ = _own_or_operators(request.player_id, "erases")
        await self.accounts.erase(player_id)
        await self.sign_ins.sign_out_everywhere(player_id, ACCOUNT_CLOSED)
        return pb.EraseAccountResponse()

    async def ClaimGuest(
        self, request: pb.ClaimGuestRequest, context: Any
    ) -> pb.ClaimGuestResponse:
        player_id = _account_caller()
        if not request.guest_token:
            raise InvalidArgument("the guest's token is needed", reason="TOKEN_INVALID")
        # The proof: a guest token this platform signed, still valid. Whoever holds it may
        # act as the guest already; no one else can name a guest id and take its games.
        guest = verify_token(self.auth, request.guest_token)
        if guest.is_service or not guest.player_id.startswith(GUEST_PREFIX):
            raise FailedPrecondition("this token is not a guest's", reason="NOT_A_GUEST")
        account = await self.accounts.claim_guest(player_id, guest.player_id)
        return pb.ClaimGuestResponse(guest_id=guest.player_id, account=account_message(account))

    async def IssueClaimedGuestToken(
        self, request: pb.IssueClaimedGuestTokenRequest, context: Any
    ) -> pb.IssueClaimedGuestTokenResponse:
        account = await self.accounts.get(_account_caller())
        if account.closed:
            raise FailedPrecondition("this account is closed", reason="ACCOUNT_CLOSED")
        if request.guest_id not in account.guests:
            raise PermissionDenied(
                "this account did not claim that guest id", reason="NOT_YOUR_GUEST"
            )
        now = time.time()
        token = issue_token(self.auth, request.guest_id, request.guest_id, (), now=now)
        response = pb.IssueClaimedGuestTokenResponse(token=token)
        response.expires_at.FromSeconds(int(now) + self.auth.token_ttl_seconds)
        return response

    async def ListSessions(
        self, request: pb.ListSessionsRequest, context: Any
    ) -> pb.ListSessionsResponse:
        listed = await self.sign_ins.sessions(_account_caller())
        response = pb.ListSessionsResponse()
        for family, session in listed:
            shown = response.sessions.add(session_id=family, client=session.client)
            shown.created_at.FromSeconds(session.started_at)
            shown.last_used_at.FromSeconds(session.last_used_at)
            shown.expires_at.FromSeconds(session.expires_at)
        return response

    async def SignOutEverywhere(
        self, request: pb.SignOutEverywhereRequest, context: Any
    ) -> pb.SignOutEverywhereResponse:
        revoked = await self.sign_ins.sign_out_everywhere(_account_caller())
        return pb.SignOutEverywhereResponse(revoked=revoked)

    async def SignUpWithPassword(
        self, request: pb.SignUpWithPasswordRequest, context: Any
    ) -> pb.SignUpWithPasswordResponse:
        signed_up = await self.passwords.sign_up(
            request.handle, request.password, request.display_name, request.client
        )
        response = pb.SignUpWithPasswordResponse(
            account=account_message(signed_up.account), created=True
        )
        _fill_tokens(response, signed_up.tokens)
        return response

    async def SignInWithPassword(
        self, request: pb.SignInWithPasswordRequest, context: Any
    ) -> pb.SignInWithPasswordResponse:
        signed_in = await self.passwords.sign_in(request.handle, request.password, request.client)
        response = pb.SignInWithPasswordResponse(account=account_message(signed_in.account))
        _fill_tokens(response, signed_in.tokens)
        return response

    async def GetPlayers(
        self, request: pb.GetPlayersRequest, context: Any
    ) -> pb.GetPlayersResponse:
        tokens.caller()  # any token: a handle is shown to everyone who plays
        wanted = list(request.player_ids)
        handles = await self.accounts.handles(wanted)
        bots = await self.bot_handles(wanted) if self.bot_handles is not None else {}
        return pb.GetPlayersResponse(
            players=[
                pb.Player(player_id=p, handle=bots.get(p, h), bot=p in bots)
                for p, h in handles.items()
            ]
        )


def _fill_tokens(response: Any, issued: Tokens) -> None:
    response.access_token = issued.access_token
    response.access_expires_at.FromSeconds(issued.access_expires_at)
    response.refresh_token = issued.refresh_token
    response.refresh_expires_at.FromSeconds(issued.refresh_expires_at)
