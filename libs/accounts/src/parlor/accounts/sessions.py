"""Sign-in sessions and the sign-ins that start them, as small deciders.

**A sign-in** (``signin-<digest of its state>``) is begun by ``BeginSignIn`` and finished,
once, by ``CompleteSignIn``: it holds what the provider's answer is checked against (the
provider, the redirect URI, the nonce, the PKCE verifier) until it expires.

**A session** (``session-<family id>``) is a refresh token family: the account it is bound
to and the hash of the one refresh token that may renew it now. Each renewal rotates the
token; a token that was rotated away and comes back is a replay (someone kept a copy), and
per OAuth 2.0 Security Best Current Practice (RFC 9700, 4.14.2) the whole family is revoked,
so the thief and the player both have to sign in again. Signing out revokes it too. Only
hashes of tokens are kept.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

# -- sign-ins --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignInBegun:
    provider: str
    redirect_uri: str
    nonce: str
    code_verifier: str
    expires_at: int


@dataclass(frozen=True)
class SignInUsed:
    used_at: int


SignInEvent = SignInBegun | SignInUsed
SIGN_IN_EVENT_TYPES: dict[str, type[SignInEvent]] = {
    "SignInBegun": SignInBegun,
    "SignInUsed": SignInUsed,
}


@dataclass(frozen=True)
class SignIn:
    begun: SignInBegun | None = None
    used: bool = False


def evolve_sign_in(state: SignIn, event: SignInEvent) -> SignIn:
    if isinstance(event, SignInBegun):
        return SignIn(event)
    return replace(state, used=True)


SignInVerdict = Literal["ok", "unknown", "used", "expired"]


def sign_in_verdict(state: SignIn, now: int) -> SignInVerdict:
    """Whether a sign-in may be completed now (once, before it expires)."""
    if state.begun is None:
        return "unknown"
    if state.used:
        return "used"
    if now >= state.begun.expires_at:
        return "expired"
    return "ok"


# -- sessions --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionStarted:
    player_id: str
    token_hash: str
    started_at: int
    expires_at: int
    client: str = ""
    """What the client called itself when it began the session (shown in ListSessions)."""


@dataclass(frozen=True)
class SessionRotated:
    token_hash: str
    rotated_at: int
    expires_at: int


@dataclass(frozen=True)
class SessionRevoked:
    revoked_at: int
    reason: str
    """``signed_out``, ``signed_out_everywhere``, ``token_reused`` or ``account_closed``."""


SessionEvent = SessionStarted | SessionRotated | SessionRevoked
SESSION_EVENT_TYPES: dict[str, type[SessionEvent]] = {
    "SessionStarted": SessionStarted,
    "SessionRotated": SessionRotated,
    "SessionRevoked": SessionRevoked,
}


@dataclass(frozen=True)
class Session:
    player_id: str = ""
    token_hash: str = ""
    rotated: tuple[str, ...] = ()
    """Hashes of the family's earlier tokens: each may be used no more."""
    expires_at: int = 0
    revoked: str = ""
    started_at: int = 0
    last_used_at: int = 0
    """When its refresh token was last renewed (``started_at`` if never)."""
    client: str = ""


def evolve_session(state: Session, event: SessionEvent) -> Session:
    if isinstance(event, SessionStarted):
        return Session(
            event.player_id,
            event.token_hash,
            (),
            event.expires_at,
            started_at=event.started_at,
            last_used_at=event.started_at,
            client=event.client,
        )
    if isinstance(event, SessionRotated):
        return replace(
            state,
            token_hash=event.token_hash,
            rotated=(*state.rotated, state.token_hash),
            expires_at=event.expires_at,
            last_used_at=event.rotated_at,
        )
    return replace(state, revoked=event.reason)


SessionVerdict = Literal["ok", "unknown", "reused", "revoked", "expired"]


def session_verdict(state: Session, token_hash: str, now: int) -> SessionVerdict:
    """What presenting the refresh token of ``token_hash`` to this family means now."""
    if not state.player_id:
        return "unknown"
    if state.revoked:
        return "revoked"
    if token_hash in state.rotated:
        return "reused"
    if token_hash != state.token_hash:
        return "unknown"
    if now >= state.expires_at:
        return "expired"
    return "ok"
