"""Where the CLI calls and as whom: target and token from flags, the environment, or minted."""

from __future__ import annotations

import asyncio
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

import jwt

from parlor.cli import login as logins
from parlor.client import DEFAULT_TARGET, ParlorClient, ParlorError, RetryPolicy
from parlor.kit.auth import AuthSettings, data_dir_key, issue_token
from parlor.kit.settings import SettingsError

ASK_ONCE = RetryPolicy(attempts=1, timeout=3.0)
"""Asking for a guest token: no platform answering soon means the token is made here."""


@dataclass(frozen=True)
class Session:
    """Where the platform is and the bearer token sent with every call."""

    target: str
    token: str

    @property
    def player_id(self) -> str:
        """The token's subject (read without verifying: the server verifies it)."""
        return claims(self.token).player_id

    @property
    def name(self) -> str:
        """The token's display name (``parlor token --name``), or empty."""
        return claims(self.token).name

    def client(self) -> ParlorClient:
        """A ``parlor-client`` connection (grpc.aio: make it inside the event loop using it)."""
        return ParlorClient(self.target, self.token)


def guest_id() -> str:
    return f"guest-{secrets.token_hex(4)}"


def remote_guest_token(target: str, name: str) -> str | None:
    """Ask the platform for a guest token (``parlor.identity.v1.IdentityService``).

    None when no platform answers at ``target`` or guest tokens are switched off there:
    the token is then minted locally. A token from the platform is signed with the
    platform's own key.
    """

    async def ask() -> str | None:
        async with ParlorClient(target, retry=ASK_ONCE) as parlor:
            try:
                return str((await parlor.identity.issue_guest_token(name)).token) or None
            except ParlorError:
                return None

    return asyncio.run(ask())


def signing_key() -> tuple[str, str]:
    """The key a token is signed with here, and what it is (for saying so).

    PARLOR_JWT_PRIVATE_KEY, or else the key ``make run`` keeps in its data directory
    (PARLOR_DATA_DIR, default .parlor); SettingsError when there is neither.
    """
    key = os.environ.get("PARLOR_JWT_PRIVATE_KEY") or ""
    if key:
        return key, "PARLOR_JWT_PRIVATE_KEY"
    found = data_dir_key(Path(os.environ.get("PARLOR_DATA_DIR") or ".parlor"))
    if not found.exists():
        raise SettingsError(
            "no platform answered and there is no key to sign a token with: set"
            " PARLOR_JWT_PRIVATE_KEY, or run where `make run` keeps its data (PARLOR_DATA_DIR)"
        )
    return str(found), f"the key `make run` keeps in {found}"


def mint_token(name: str = "", player_id: str | None = None) -> str:
    """A guest token signed locally, with :func:`signing_key`."""
    subject = player_id or guest_id()
    key = signing_key()[0]
    return issue_token(AuthSettings(private_key=key), subject, name or subject, ("guest",))


def guest_token(target: str, name: str = "") -> str:
    return issued_guest_token(target, name)[0]


def issued_guest_token(target: str, name: str = "") -> tuple[str, bool]:
    """A guest token and whether the platform at ``target`` issued it (else minted here)."""
    remote = remote_guest_token(target, name)
    return (remote, True) if remote else (mint_token(name), False)


@dataclass(frozen=True)
class Claims:
    """What a token says about its holder, read without verifying (the server verifies)."""

    player_id: str
    name: str
    roles: tuple[str, ...]
    expires_at: int | None


def claims(token: str) -> Claims:
    """The token's claims; ValueError when it is not a JWT at all."""
    try:
        raw = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        raise ValueError(
            "not a token (not a well-formed JWT): get one with `parlor token`"
        ) from None
    if not raw.get("sub"):
        raise ValueError("not a Parlor token: it has no subject (sub)")
    expires = raw.get("exp")
    return Claims(
        player_id=str(raw["sub"]),
        name=str(raw.get("name") or ""),
        roles=tuple(str(r) for r in raw.get("roles") or ()),
        expires_at=int(expires) if isinstance(expires, int | float) else None,
    )


def session(target: str | None, token: str | None, name: str = "") -> Session:
    """Flags first, then PARLOR_TARGET / PARLOR_TOKEN, then the account `parlor login`
    signed in at the target (renewed when due), then a new guest."""
    where = target or os.environ.get("PARLOR_TARGET") or DEFAULT_TARGET
    who = token or os.environ.get("PARLOR_TOKEN") or account_token(where)
    return Session(where, who or guest_token(where, name))


def account_token(target: str) -> str | None:
    """The signed-in account's access token at ``target``, or None (a guest then)."""
    try:
        return asyncio.run(logins.access_token(target))
    except logins.LoginError as exc:
        raise SettingsError(str(exc)) from None
    except ParlorError:  # the platform is not answering: a guest, or the call says so
        return None


def describe(error: Exception) -> str:
    """A refusal as one line: status code and the server's message (which says why)."""
    if isinstance(error, ParlorError):
        return f"{error.code.name}: {error.message}"
    return str(error)
