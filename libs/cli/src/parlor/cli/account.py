"""An account's own affairs from the terminal: its sessions, signing out everywhere, taking
over the guest the CLI played as before signing in, and erasing the account.

Each calls as the account `parlor login` signed in at the target (its access token, renewed
when due); a guest's token has none of these (``NOT_AN_ACCOUNT``).
"""

from __future__ import annotations

import getpass
import sys
import time

from parlor.cli import login as logins
from parlor.cli.session import claims
from parlor.client import ParlorClient, RetryPolicy, Unauthenticated
from parlor.identity.v1 import identity_pb2 as pb

ONCE = RetryPolicy(attempts=1, timeout=30.0)


class NotSignedIn(Exception):
    """No account is signed in at the target (or its session is over)."""


async def _token(target: str) -> str:
    token = await logins.access_token(target)
    if token is None:
        raise NotSignedIn(f"not signed in at {target}: `parlor login` first")
    return token


async def sessions(target: str) -> list[pb.Session]:
    """The account's open sessions, newest first."""
    async with ParlorClient(target, await _token(target)) as parlor:
        return await parlor.identity.list_sessions()


async def sign_out_everywhere(target: str) -> int:
    """Revoke every session of the account (this one too) and forget it here; how many."""
    token = await _token(target)
    async with ParlorClient(target, token) as parlor:
        revoked = await parlor.identity.sign_out_everywhere()
    logins.forget(target)
    return revoked


async def claim_guest(target: str, guest_token: str) -> pb.ClaimGuestResponse:
    """The account takes over the guest of ``guest_token``. A guest's token that expired
    is refreshed first (within the guest's seven days): a refused claim is the only way to
    know, since the service, not this machine, judges the token."""
    claims(guest_token)  # ValueError when it is no token at all, before any call
    token = await _token(target)
    async with ParlorClient(target, token, retry=ONCE) as parlor:
        try:
            return await parlor.identity.claim_guest(guest_token)
        except Unauthenticated as exc:
            if exc.reason != "TOKEN_EXPIRED":
                raise
        async with ParlorClient(target, guest_token, retry=ONCE) as guest:
            fresh = (await guest.identity.refresh_token()).token
        return await parlor.identity.claim_guest(fresh)


async def erase(target: str) -> str:
    """Erase the signed-in account for good and forget its session here; its player id."""
    token = await _token(target)
    async with ParlorClient(target, token, retry=ONCE) as parlor:
        await parlor.identity.erase_account()
    logins.forget(target)
    return claims(token).player_id


async def handle(target: str) -> str:
    """The signed-in account's handle ("" if it has none yet)."""
    async with ParlorClient(target, await _token(target)) as parlor:
        return (await parlor.identity.get_account()).handle


def when(stamp: object) -> str:
    """A protobuf Timestamp as UTC, or "-" when unset."""
    seconds = int(getattr(stamp, "seconds", 0))
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds)) if seconds else "-"


def read_password(confirm: bool = False) -> str:
    """A password from the terminal, not echoed (twice when ``confirm``); when stdin is no
    terminal, its first line (piped in: never on the command line, where `ps` shows it)."""
    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    secret = getpass.getpass("password: ")
    if confirm and getpass.getpass("again: ") != secret:
        raise PasswordsDiffer("the two passwords differ")
    return secret


class PasswordsDiffer(Exception):
    """Sign-up's two typings of the password were not the same."""
