"""Signing in to an account: begun and completed sign-ins, and the sessions they start.

Both live in the event store beside the accounts (never relayed to the bus):

- ``accountsignin-<sha256 of the state>``: a begun sign-in (provider, redirect URI, nonce,
  PKCE verifier, expiry), completed once: completing appends ``SignInUsed`` with the
  stream's expected version, so a state replayed, even at once on two replicas, is
  refused (``STATE_USED``);
- ``accountsession-<family id>``: a refresh token family bound to one account, holding
  only hashes of its tokens. A refresh token is ``<family id>.<secret>``; renewing it
  appends ``SessionRotated`` with the expected version, so of two renewals racing with one
  token one wins and the other finds it rotated away: a replay, which revokes the family.

Parlor's own access tokens (``parlor.kit.auth.issue_token``, short-lived) name the account's
player id, and only that (no handle, no display name: a token's name flows into tickets and
game seats); every service checks them as before, knowing nothing of accounts.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from parlor.accounts import (
    SESSION_EVENT_TYPES,
    SIGN_IN_EVENT_TYPES,
    Account,
    ExternalIdentity,
    Session,
    SessionRevoked,
    SessionRotated,
    SessionStarted,
    SignIn,
    SignInBegun,
    SignInUsed,
    display_name,
    evolve_session,
    evolve_sign_in,
    session_verdict,
    sign_in_verdict,
)
from parlor.core.errors import (
    AlreadyExists,
    Conflict,
    InvalidArgument,
    PermissionDenied,
    Unauthenticated,
)
from parlor.eventstore import ANY_VERSION, NO_STREAM, EventStore
from parlor.eventstore.vault import seal, unseal
from parlor.kit.auth import AuthSettings, issue_token
from parlor.services.matchmaking.accounts import Accounts, append, fold
from parlor.services.matchmaking.oidc import OidcSettings, Providers

SIGN_IN = "accountsignin"
SESSION = "accountsession"
RETRIES = 5
MAX_LISTED = 100
ACCOUNT_CLOSED = "account_closed"
"""A session revoked because its account was closed: renewing it says so."""
MAX_CLIENT = 100


def client_description(raw: str) -> str:
    """What a client calls itself, as shown: printable, spaces collapsed, at most 100."""
    text = "".join(c for c in raw[: 4 * MAX_CLIENT] if c.isprintable())
    return " ".join(text.split())[:MAX_CLIENT]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def sign_in_stream(state: str) -> str:
    return f"{SIGN_IN}-{_digest(state)[:48]}"


def _unguessable() -> str:
    """256 random bits, URL-safe."""
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()


@dataclass(frozen=True)
class Tokens:
    access_token: str
    access_expires_at: int
    refresh_token: str
    refresh_expires_at: int


@dataclass(frozen=True)
class SignedIn:
    tokens: Tokens
    account: Account
    created: bool


def _account_closed() -> Unauthenticated:
    return Unauthenticated(
        "this account is closed: its sessions are revoked", reason="ACCOUNT_CLOSED"
    )


def _refresh_refused(why: str, reason: str) -> Unauthenticated:
    return Unauthenticated(f"this refresh token {why}; sign in again", reason=reason)


_STATE_REFUSALS = {
    "unknown": ("no sign-in has this state (tampered with, or begun elsewhere)", "STATE_UNKNOWN"),
    "used": ("this sign-in was completed already (a state is used once)", "STATE_USED"),
    "expired": ("this sign-in took too long", "STATE_EXPIRED"),
}
_SESSION_REFUSALS = {
    "unknown": ("is not one this platform issued", "REFRESH_TOKEN_INVALID"),
    "expired": ("has expired", "REFRESH_TOKEN_EXPIRED"),
    "revoked": ("was revoked (signed out, here or everywhere)", "REFRESH_TOKEN_REVOKED"),
    "reused": (
        "was used already: it was rotated, and a rotated token coming back means it was copied,"
        " so every token of its session is revoked",
        "REFRESH_TOKEN_REUSED",
    ),
}


class SignIns:
    """BeginSignIn, CompleteSignIn, RenewSession and SignOut over the event store."""

    def __init__(
        self,
        store: EventStore,
        accounts: Accounts,
        providers: Providers,
        auth: AuthSettings,
        settings: OidcSettings,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.accounts = accounts
        self.providers = providers
        self.auth = auth
        self.settings = settings
        self.clock = clock

    # -- sign-in ---------------------------------------------------------------------------

    async def begin(self, provider_name: str, redirect_uri: str) -> tuple[str, str, int]:
        """The authorisation URL, the state, and when the sign-in expires."""
        provider = self.providers.get(provider_name)
        provider.check_redirect_uri(redirect_uri)
        state, nonce, verifier = _unguessable(), _unguessable(), _unguessable()
        url = await provider.authorization_url(state, nonce, verifier, redirect_uri)
        expires = int(self.clock()) + self.settings.sign_in_seconds
        begun = SignInBegun(provider_name, redirect_uri, nonce, verifier, expires)
        await append(self.store, sign_in_stream(state), [begun], NO_STREAM, "")
        return url, state, expires

    async def _use(self, state: str) -> SignInBegun:
        """The begun sign-in of ``state``, marked used (once: its stream's expected version)."""
        stream = sign_in_stream(state)
        sign_in, version, _ = await fold(
            self.store, stream, SIGN_IN_EVENT_TYPES, SignIn(), evolve_sign_in
        )
        now = int(self.clock())
        verdict = sign_in_verdict(sign_in, now)
        if verdict != "ok":
            why, reason = _STATE_REFUSALS[verdict]
            raise Unauthenticated(f"the sign-in was refused: {why}; sign in again", reason=reason)
        try:
            await append(self.store, stream, [SignInUsed(now)], version, "")
        except Conflict:
            why, reason = _STATE_REFUSALS["used"]
            raise Unauthenticated(f"the sign-in was refused: {why}", reason=reason) from None
        assert sign_in.begun is not None
        return sign_in.begun

    async def complete(self, state: str, code: str, iss: str = "", client: str = "") -> SignedIn:
        """Finish a sign-in with the provider's answer (``iss``: RFC 9207's, if sent)."""
        begun = await self._use(state)
        provider = self.providers.get(begun.provider)
        await provider.check_response_issuer(iss)
        id_token = await provider.exchange(code, begun.code_verifier, begun.redirect_uri)
        claims = await provider.verify_id_token(id_token, begun.nonce)
        identity = ExternalIdentity(str(claims["iss"]), str(claims["sub"]))
        account, created = await self._account_of(identity, claims)
        if account.closed:
            raise PermissionDenied("this account is closed", reason="ACCOUNT_CLOSED")
        return SignedIn(await self.start_session(account, client), account, created)

    async def _account_of(
        self, identity: ExternalIdentity, claims: dict[str, Any]
    ) -> tuple[Account, bool]:
        """The account ``identity`` signs into, made now if it has none."""
        for _ in range(RETRIES):
            player_id = await self.accounts.find_by_identity(identity)
            if player_id is not None:
                return await self.accounts.get(player_id), False
            try:
                name = display_name(str(claims.get("name") or "")[:64])
            except InvalidArgument:
                name = ""
            handle = claims.get("preferred_username")
            try:
                account = await self.accounts.create(
                    name, identity, handle if isinstance(handle, str) else ""
                )
            except AlreadyExists:
                continue  # signed in at once elsewhere: that sign-in made it
            return account, True
        raise Conflict("the account kept changing under this call; retry", reason="CONFLICT")

    # -- sessions --------------------------------------------------------------------------

    def _access_token(self, account: Account, now: int) -> tuple[str, int]:
        """A short-lived token naming the player by the player id alone: a token's name is
        what tickets and games take as the seat's name when the client names none, and
        handles and display names must stay out of game events (erasure leaves those)."""
        token = issue_token(self.auth, account.player_id, account.player_id, (), now=now)
        return token, now + self.auth.token_ttl_seconds

    async def start_session(self, account: Account, client: str = "") -> Tokens:
        """A new refresh token family for ``account`` (noted in its stream), and tokens."""
        now = int(self.clock())
        family, secret = secrets.token_hex(16), _unguessable()
        expires = now + self.settings.refresh_ttl_seconds
        described = client_description(client)
        if described:  # what a client calls itself may be personal ("Ann's phone"): sealed
            key = await self.accounts.keys.get_or_create(account.player_id)
            described = seal(key, account.player_id, "SessionStarted", "client", described)
        started = SessionStarted(account.player_id, _digest(secret), now, expires, described)
        await append(self.store, f"{SESSION}-{family}", [started], NO_STREAM, account.player_id)
        await self.accounts.open_session(account.player_id, family)
        access, access_expires = self._access_token(account, now)
        return Tokens(access, access_expires, f"{family}.{secret}", expires)

    async def _session(self, refresh_token: str) -> tuple[str, str, Session, int]:
        family, _, secret = refresh_token.partition(".")
        if len(family) != 32 or not secret or not all(c in "0123456789abcdef" for c in family):
            raise _refresh_refused(*_SESSION_REFUSALS["unknown"])
        stream = f"{SESSION}-{family}"
        session, version, _ = await fold(
            self.store, stream, SESSION_EVENT_TYPES, Session(), evolve_session
        )
        return stream, _digest(secret), session, version

    async def renew(self, refresh_token: str) -> Tokens:
        """New tokens for a refresh token, which is used up; a replay revokes the family."""
        for _ in range(RETRIES):
            stream, presented, session, version = await self._session(refresh_token)
            now = int(self.clock())
            verdict = session_verdict(session, presented, now)
            if verdict == "reused":
                await self._revoke(stream, session, now, "token_reused")
            if verdict == "revoked" and session.revoked == ACCOUNT_CLOSED:
                raise _account_closed()
            if verdict != "ok":
                raise _refresh_refused(*_SESSION_REFUSALS[verdict])
            account = await self.accounts.get(session.player_id)
            if account.closed:
                await self._revoke(stream, session, now, ACCOUNT_CLOSED)
                raise _account_closed()
            secret = _unguessable()
            expires = now + self.settings.refresh_ttl_seconds
            rotated = SessionRotated(_digest(secret), now, expires)
            try:
                await append(self.store, stream, [rotated], version, session.player_id)
            except Conflict:
                continue  # renewed at once elsewhere: re-read, and find this one reused
            access, access_expires = self._access_token(account, now)
            family = stream.removeprefix(f"{SESSION}-")
            return Tokens(access, access_expires, f"{family}.{secret}", expires)
        raise Conflict("the session kept changing under this call; retry", reason="CONFLICT")

    async def _revoke(self, stream: str, session: Session, now: int, reason: str) -> None:
        """Revoked, whatever came meanwhile (a revocation needs no expected version)."""
        revoked = [SessionRevoked(now, reason)]
        await append(self.store, stream, revoked, ANY_VERSION, session.player_id)

    async def sessions(self, player_id: str) -> list[tuple[str, Session]]:
        """The account's open sessions (not revoked, not expired), newest first; at most
        ``MAX_LISTED`` of the newest ``MAX_LISTED * 2`` it opened are read."""
        account = await self.accounts.get(player_id)
        key = await self.accounts.keys.get(player_id)
        now = int(self.clock())
        listed = []
        for family, _ in reversed(account.sessions[-2 * MAX_LISTED :]):
            session, _, _ = await fold(
                self.store, f"{SESSION}-{family}", SESSION_EVENT_TYPES, Session(), evolve_session
            )
            if session.player_id == player_id and not session.revoked and now < session.expires_at:
                client = unseal(key, player_id, "SessionStarted", "client", session.client)
                listed.append((family, replace(session, client=client)))
            if len(listed) == MAX_LISTED:
                break
        return listed

    async def sign_out_everywhere(
        self, player_id: str, reason: str = "signed_out_everywhere"
    ) -> int:
        """Revoke every session the account ever opened; how many were still open."""
        account = await self.accounts.get(player_id)
        now = int(self.clock())
        revoked = 0
        for family, _ in account.sessions:
            stream = f"{SESSION}-{family}"
            session, _, _ = await fold(
                self.store, stream, SESSION_EVENT_TYPES, Session(), evolve_session
            )
            if session.player_id != player_id or session.revoked:
                continue
            await self._revoke(stream, session, now, reason)
            revoked += now < session.expires_at
        return revoked

    async def sign_out(self, refresh_token: str) -> None:
        """Revoke the session of a refresh token (OK if it was revoked already)."""
        stream, presented, session, _ = await self._session(refresh_token)
        verdict = session_verdict(session, presented, int(self.clock()))
        if verdict == "unknown":
            raise _refresh_refused(*_SESSION_REFUSALS["unknown"])
        if verdict != "revoked":
            reason = "token_reused" if verdict == "reused" else "signed_out"
            await self._revoke(stream, session, int(self.clock()), reason)
