"""Who calls: guest tokens, and accounts signed in through an OpenID Connect provider.

A guest's token comes from :meth:`IdentityClient.issue_guest_token` and is refreshed with
:meth:`IdentityClient.refresh_token`. An account signs in with the authorisation-code flow:
:meth:`IdentityClient.begin_sign_in` gives the provider's URL and the state, the player signs
in there, and :meth:`IdentityClient.complete_sign_in` takes the redirect's ``state``, ``code``
and ``iss``; the answer's refresh token renews the session
(:meth:`IdentityClient.renew_session`, single use: each renewal answers the next one) and ends
it (:meth:`IdentityClient.sign_out`). The client calls with each new access token from then on.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from parlor.identity.v1 import identity_pb2 as pb
from parlor.identity.v1 import identity_pb2_grpc as pb_grpc

if TYPE_CHECKING:
    from parlor.client.client import ParlorClient

MAX_PLAYERS_PER_CALL = 100
"""GetPlayers takes at most this many ids; :meth:`IdentityClient.handles` asks in batches."""


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

    # -- accounts ------------------------------------------------------------------------------

    async def begin_sign_in(self, provider: str, redirect_uri: str) -> pb.BeginSignInResponse:
        """A sign-in with ``provider`` (needs no token): the URL to send the player to, and
        the state the redirect to ``redirect_uri`` must carry back. Keep the state: complete
        only a redirect carrying it (else it is someone else's sign-in). Retried: at worst a
        lost reply leaves a sign-in never completed, which expires."""
        request = pb.BeginSignInRequest(provider=provider, redirect_uri=redirect_uri)
        return await self.client.call(self.stub.BeginSignIn, request, idempotent=True)

    async def complete_sign_in(
        self, state: str, code: str, iss: str = ""
    ) -> pb.CompleteSignInResponse:
        """The redirect's ``state``, ``code`` and ``iss`` (send ``iss`` when the provider
        sent one): the account, its access token (the client calls with it from then on) and
        its refresh token. Never retried: a state is used once."""
        request = pb.CompleteSignInRequest(state=state, code=code, iss=iss)
        response = await self.client.call(self.stub.CompleteSignIn, request, idempotent=False)
        self.client.token = response.access_token
        return response

    async def renew_session(self, refresh_token: str) -> pb.RenewSessionResponse:
        """A new access token (the client calls with it from then on) and a new refresh token,
        which replaces ``refresh_token``: that one is spent. Never retried: a refresh token
        sent twice looks stolen, and the service then ends the whole session."""
        request = pb.RenewSessionRequest(refresh_token=refresh_token)
        response = await self.client.call(self.stub.RenewSession, request, idempotent=False)
        self.client.token = response.access_token
        return response

    async def sign_out(self, refresh_token: str) -> None:
        """End the session ``refresh_token`` belongs to (twice is fine, so it is retried)."""
        request = pb.SignOutRequest(refresh_token=refresh_token)
        await self.client.call(self.stub.SignOut, request, idempotent=True)

    async def get_account(self) -> pb.Account:
        """The caller's account (a guest's token: ``FailedPrecondition NOT_AN_ACCOUNT``)."""
        request = pb.GetAccountRequest()
        return (await self.client.call(self.stub.GetAccount, request, idempotent=True)).account

    async def set_handle(self, handle: str) -> pb.Account:
        """Choose the account's handle; refused with its reason (``HANDLE_TAKEN``...)."""
        request = pb.SetHandleRequest(handle=handle)
        return (await self.client.call(self.stub.SetHandle, request, idempotent=True)).account

    async def close_account(self, player_id: str = "") -> None:
        """Close the caller's account for good (or, with the role admin, ``player_id``'s)."""
        request = pb.CloseAccountRequest(player_id=player_id)
        await self.client.call(self.stub.CloseAccount, request, idempotent=True)

    async def erase_account(self, player_id: str = "") -> None:
        """Erase the caller's account (or, with the role admin, ``player_id``'s): it is
        closed, its sessions revoked and its personal data crypto-shredded. Not retried: a
        second erasure is ``FailedPrecondition ACCOUNT_ERASED``."""
        request = pb.EraseAccountRequest(player_id=player_id)
        await self.client.call(self.stub.EraseAccount, request, idempotent=False)

    async def claim_guest(self, guest_token: str) -> pb.ClaimGuestResponse:
        """The caller's account takes over the guest id of ``guest_token`` (the guest's own,
        still valid access token: holding it is the proof). A guest id is claimed once, ever
        (``AlreadyExists GUEST_CLAIMED``). Not retried: a lost reply would come back as that
        refusal for a claim that succeeded."""
        request = pb.ClaimGuestRequest(guest_token=guest_token)
        return await self.client.call(self.stub.ClaimGuest, request, idempotent=False)

    async def issue_claimed_guest_token(self, guest_id: str) -> pb.IssueClaimedGuestTokenResponse:
        """A short-lived token for a guest id this account claimed, to play on in the
        guest's unfinished games (any other: ``PermissionDenied NOT_YOUR_GUEST``)."""
        request = pb.IssueClaimedGuestTokenRequest(guest_id=guest_id)
        return await self.client.call(self.stub.IssueClaimedGuestToken, request, idempotent=True)

    async def list_sessions(self) -> list[pb.Session]:
        """The account's open sessions, newest first (at most 100); never their tokens."""
        request = pb.ListSessionsRequest()
        answer = await self.client.call(self.stub.ListSessions, request, idempotent=True)
        return list(answer.sessions)

    async def sign_out_everywhere(self) -> int:
        """Revoke every session of the caller's account; how many were open. The access
        token in hand lasts its short lifetime; no refresh token renews any more."""
        request = pb.SignOutEverywhereRequest()
        answer = await self.client.call(self.stub.SignOutEverywhere, request, idempotent=True)
        return answer.revoked

    async def sign_up_with_password(
        self, handle: str, password: str, display_name: str = "", client: str = ""
    ) -> pb.SignUpWithPasswordResponse:
        """A built-in account (when the platform has ``PARLOR_PASSWORD_ACCOUNTS`` on): its
        tokens, as :meth:`complete_sign_in` answers; the client calls with the access token
        from then on. Never retried: a lost reply would come back as ``HANDLE_TAKEN``."""
        request = pb.SignUpWithPasswordRequest(
            handle=handle, password=password, display_name=display_name, client=client
        )
        response = await self.client.call(self.stub.SignUpWithPassword, request, idempotent=False)
        self.client.token = response.access_token
        return response

    async def sign_in_with_password(
        self, handle: str, password: str, client: str = ""
    ) -> pb.SignInWithPasswordResponse:
        """Sign into a built-in account; every wrong answer is ``Unauthenticated
        SIGN_IN_FAILED``. Never retried: each attempt counts towards the handle's lock-out."""
        request = pb.SignInWithPasswordRequest(handle=handle, password=password, client=client)
        response = await self.client.call(self.stub.SignInWithPassword, request, idempotent=False)
        self.client.token = response.access_token
        return response

    async def get_players(self, player_ids: Iterable[str]) -> list[pb.Player]:
        """``GetPlayers`` for at most 100 ids: each with its handle ("" for a guest, a bot,
        an unknown id or an account without one)."""
        request = pb.GetPlayersRequest(player_ids=list(player_ids))
        answer = await self.client.call(self.stub.GetPlayers, request, idempotent=True)
        return list(answer.players)

    async def handles(self, player_ids: Iterable[str]) -> dict[str, str]:
        """The handle of each id that has one, asked in batches of 100 (for showing players:
        games and tokens name an account by its player id)."""
        wanted = list(dict.fromkeys(player_ids))
        found: dict[str, str] = {}
        for start in range(0, len(wanted), MAX_PLAYERS_PER_CALL):
            for player in await self.get_players(wanted[start : start + MAX_PLAYERS_PER_CALL]):
                if player.handle:
                    found[player.player_id] = player.handle
        return found
