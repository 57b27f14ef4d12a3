"""Bearer tokens (JWT, HS256 with a shared secret) and who is calling.

Every Parlor RPC needs ``authorization: Bearer <token>`` except the standard
health and reflection services and methods a component declares public (such
as asking for a guest token). The interceptor verifies the token and puts the
caller's ``Identity`` in a context variable; servicers ask ``caller()``.
"""

from __future__ import annotations

import contextvars
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jwt

from parlor.core.errors import PermissionDenied, Unauthenticated
from parlor.kit.settings import setting

DEV_SECRET = "parlor-dev-secret-change-me-in-production"
ALGORITHM = "HS256"
ISSUER = "parlor"


@dataclass(frozen=True)
class AuthSettings:
    secret: str = setting(
        "PARLOR_JWT_SECRET", "shared secret that signs and verifies tokens (HS256)", DEV_SECRET
    )
    guest_tokens: bool = setting(
        "PARLOR_GUEST_TOKENS", "whether anyone may ask for a guest token", True
    )
    token_ttl_seconds: int = setting(
        "PARLOR_TOKEN_TTL_SECONDS", "lifetime of tokens this platform issues", 24 * 3600
    )


@dataclass(frozen=True)
class Identity:
    """Who is calling: a player (``player_id`` is the token's subject) or a service."""

    player_id: str
    name: str = ""
    roles: tuple[str, ...] = ()

    @property
    def is_service(self) -> bool:
        return "service" in self.roles


_caller: contextvars.ContextVar[Identity | None] = contextvars.ContextVar(
    "parlor_caller", default=None
)


def issue_token(
    settings: AuthSettings,
    subject: str,
    name: str = "",
    roles: Sequence[str] = (),
    ttl_seconds: int | None = None,
    now: float | None = None,
) -> str:
    issued = int(now if now is not None else time.time())
    claims = {
        "iss": ISSUER,
        "sub": subject,
        "name": name or subject,
        "roles": list(roles),
        "iat": issued,
        "exp": issued + (ttl_seconds or settings.token_ttl_seconds),
        "jti": uuid.uuid4().hex,
    }
    return jwt.encode(claims, settings.secret, algorithm=ALGORITHM)


def verify_token(settings: AuthSettings, token: str) -> Identity:
    """The identity in a token, or Unauthenticated saying what is wrong with it."""
    try:
        claims = jwt.decode(
            token,
            settings.secret,
            algorithms=[ALGORITHM],
            issuer=ISSUER,
            options={"require": ["sub", "exp", "iss"]},
        )
    except jwt.ExpiredSignatureError:
        raise Unauthenticated("the token has expired", reason="TOKEN_EXPIRED") from None
    except jwt.InvalidTokenError as exc:
        raise Unauthenticated(f"the token is invalid: {exc}", reason="TOKEN_INVALID") from None
    roles = claims.get("roles") or []
    return Identity(
        player_id=str(claims["sub"]),
        name=str(claims.get("name") or claims["sub"]),
        roles=tuple(str(r) for r in roles) if isinstance(roles, list) else (),
    )


def token_from_metadata(metadata: Any) -> str | None:
    for key, value in metadata or ():
        if key.lower() == "authorization":
            text = value.decode() if isinstance(value, bytes) else value
            scheme, _, token = text.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise Unauthenticated(
                    "authorization metadata must be 'Bearer <token>'", reason="TOKEN_MISSING"
                )
            return token.strip()
    return None


def caller() -> Identity:
    """The verified caller of the current RPC."""
    identity = _caller.get()
    if identity is None:
        raise Unauthenticated(
            "this call needs 'authorization: Bearer <token>' metadata", reason="TOKEN_MISSING"
        )
    return identity


def optional_caller() -> Identity | None:
    return _caller.get()


def require_player(player_id: str) -> Identity:
    """The caller, if they are ``player_id`` (or a trusted service acting for them)."""
    identity = caller()
    if identity.player_id != player_id and not identity.is_service:
        raise PermissionDenied("you may only act for yourself", reason="NOT_YOUR_SEAT")
    return identity


def bind(identity: Identity | None) -> contextvars.Token[Identity | None]:
    return _caller.set(identity)


def unbind(token: contextvars.Token[Identity | None]) -> None:
    _caller.reset(token)


def bearer(token: str) -> tuple[tuple[str, str]]:
    """Call metadata carrying a token, for clients."""
    return (("authorization", f"Bearer {token}"),)
