"""Built-in accounts: a handle and a password, for installations without a provider.

Off unless ``PARLOR_PASSWORD_ACCOUNTS`` is set (``FAILED_PRECONDITION
PASSWORD_ACCOUNTS_DISABLED``). Streams (none relayed):

- ``accountpassword-<player id>``: ``PasswordSet``, the password's Argon2id hash, sealed
  with the account's key (``vault``: erasure shreds it too); argon2-cffi's defaults, RFC
  9106's second recommended option (64 MiB, 3 passes, 4 lanes); a hash made under older
  parameters is made again at the next sign-in;
- ``accountguard-<sha256 of the handle's skeleton>``: the attempts on a handle
  (``parlor.accounts.passwords``), kept for every handle tried, held or not.

Nothing a sign-in answers tells whether a handle exists: a handle nobody holds (or held
by an account without a password, or not even a valid handle) is checked against a dummy
hash of the same parameters, after the same reads of the store, with the same guard,
and every failure is the same ``UNAUTHENTICATED SIGN_IN_FAILED``, answered after the same
delay. Hashing runs in a thread (argon2 releases the GIL), at most ``HASHING`` at once
per process, so guesses cannot take the event loop or every core.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from parlor.accounts import (
    ACCOUNTS,
    GUARD_EVENT_TYPES,
    PASSWORD_EVENT_TYPES,
    Account,
    ChangeHandle,
    CreateAccount,
    Guard,
    GuardPolicy,
    GuessCounted,
    GuessesCleared,
    PasswordSet,
    check_password,
    evolve_guard,
    guard_verdict,
    parse_handle,
)
from parlor.core.errors import (
    Conflict,
    FailedPrecondition,
    InvalidArgument,
    PermissionDenied,
    ResourceExhausted,
    Unauthenticated,
)
from parlor.eventstore import ANY_VERSION, NO_STREAM, EventStore
from parlor.eventstore.vault import seal, unseal
from parlor.kit.settings import setting
from parlor.services.matchmaking.accounts import Accounts, append, fold, new_player_id
from parlor.services.matchmaking.signin import SignIns, Tokens

PASSWORD = "accountpassword"
GUARD = "accountguard"
HASHING = 2
RETRIES = 5
NOBODY = "acct-" + "0" * 32
"""A player id no account has: what a sign-in for a handle nobody holds reads."""


@dataclass(frozen=True)
class PasswordSettings:
    enabled: bool = setting(
        "PARLOR_PASSWORD_ACCOUNTS",
        "built-in accounts: sign-up and sign-in with a handle and a password (Argon2id), for"
        " installations without an OpenID Connect provider",
        False,
    )
    max_attempts: int = setting(
        "PARLOR_PASSWORD_MAX_ATTEMPTS",
        "password attempts on one handle within PARLOR_PASSWORD_WINDOW_SECONDS before it is locked",
        5,
    )
    window_seconds: int = setting(
        "PARLOR_PASSWORD_WINDOW_SECONDS", "the window attempts on a handle are counted in", 900
    )
    lockout_seconds: int = setting(
        "PARLOR_PASSWORD_LOCKOUT_SECONDS",
        "how long a handle stays locked after its last counted attempt",
        900,
    )

    def policy(self) -> GuardPolicy:
        return GuardPolicy(self.max_attempts, self.window_seconds, self.lockout_seconds)


def password_stream(player_id: str) -> str:
    return f"{PASSWORD}-{player_id}"


def guard_stream(key: str) -> str:
    """A handle's guard, named by a digest of its skeleton (no handle in a stream id)."""
    return f"{GUARD}-{hashlib.sha256(key.encode()).hexdigest()[:48]}"


def _latest(state: PasswordSet | None, event: PasswordSet) -> PasswordSet | None:
    return event


def _failed() -> Unauthenticated:
    return Unauthenticated(
        "the handle or the password is wrong (or the handle has no password)",
        reason="SIGN_IN_FAILED",
    )


@dataclass(frozen=True)
class PasswordSignedIn:
    tokens: Tokens
    account: Account


class Passwords:
    """SignUpWithPassword and SignInWithPassword over the event store."""

    def __init__(
        self,
        store: EventStore,
        accounts: Accounts,
        sign_ins: SignIns,
        settings: PasswordSettings,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Any] = asyncio.sleep,
        hasher: PasswordHasher | None = None,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.accounts = accounts
        self.sign_ins = sign_ins
        self.settings = settings
        self.policy = settings.policy()
        self.clock = clock
        self.sleep = sleep
        self.hasher = hasher or PasswordHasher()
        self.timer = timer
        self._hashing = asyncio.Semaphore(HASHING)
        # Made now, not at the first sign-in for a handle nobody holds: that one would take
        # a hash longer than every other answer.
        self._dummy = self.hasher.hash(new_player_id()) if settings.enabled else ""

    def _enabled(self) -> None:
        if not self.settings.enabled:
            raise FailedPrecondition(
                "built-in accounts are switched off on this platform; sign in through a provider",
                reason="PASSWORD_ACCOUNTS_DISABLED",
            )

    async def _hash(self, password: str) -> str:
        async with self._hashing:
            return await asyncio.to_thread(self.hasher.hash, password)

    async def _verify(self, hashed: str, password: str) -> bool:
        async with self._hashing:
            try:
                return await asyncio.to_thread(self.hasher.verify, hashed, password)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

    async def _sealed(self, player_id: str, hashed: str) -> str:
        """The hash sealed with the account's key: erasing the account shreds it too."""
        key = await self.accounts.keys.get_or_create(player_id)
        return seal(key, player_id, "PasswordSet", "hash", hashed)

    # -- sign-up ---------------------------------------------------------------------------

    async def sign_up(
        self, raw_handle: str, raw_password: str, name: str = "", client: str = ""
    ) -> PasswordSignedIn:
        """A new account holding ``raw_handle``, with the password's hash."""
        self._enabled()
        handle = parse_handle(raw_handle)
        password = check_password(raw_password)
        player_id = new_player_id()
        now = int(self.clock())
        ACCOUNTS.decide(ACCOUNTS.initial_state(), CreateAccount(player_id, now, name))
        hashed = await self._hash(password)
        # The handle first (taken: nothing is made), then the account, then its password.
        await self.accounts.claim_handle(player_id, handle)
        account = await self.accounts.record(player_id, CreateAccount(player_id, now, name))
        account = await self.accounts.record(player_id, ChangeHandle(handle.text))
        sealed = [PasswordSet(await self._sealed(player_id, hashed), now)]
        await append(self.store, password_stream(player_id), sealed, NO_STREAM, player_id)
        return PasswordSignedIn(await self.sign_ins.start_session(account, client), account)

    # -- sign-in ---------------------------------------------------------------------------

    async def sign_in(
        self, raw_handle: str, raw_password: str, client: str = ""
    ) -> PasswordSignedIn:
        """Tokens for the right handle and password; the same refusal for anything else."""
        self._enabled()
        arrived = self.timer()
        password = unicodedata.normalize("NFC", raw_password)  # as sign-up hashed it
        try:
            key = parse_handle(raw_handle).key
        except InvalidArgument:
            key = ""
        delay = await self._count_attempt(key)
        holder = None
        if key:
            holder = await self.accounts.handle_holder_by_key(key)
        account, _ = await self.accounts.load(holder or NOBODY)
        stored, _, _ = await fold(
            self.store, password_stream(holder or NOBODY), PASSWORD_EVENT_TYPES, None, _latest
        )
        opened = unseal(
            await self.accounts.keys.get(holder or NOBODY),
            holder or NOBODY,
            "PasswordSet",
            "hash",
            "" if stored is None else stored.hash,
        )
        real = bool(opened) and account.exists and account.handle_key == key
        # A handle nobody holds is checked against a hash of nothing anyone knows, with the
        # parameters real ones have: the same work, the same answer.
        hashed = opened if real else self._dummy
        right = await self._verify(hashed, password) and real
        if not right:
            await self.sleep(max(0.0, arrived + delay - self.timer()))
            raise _failed()
        cleared = [GuessesCleared(int(self.clock()))]
        await append(self.store, guard_stream(key), cleared, ANY_VERSION, account.player_id)
        if account.closed:
            raise PermissionDenied("this account is closed", reason="ACCOUNT_CLOSED")
        if self.hasher.check_needs_rehash(hashed):
            again = await self._sealed(account.player_id, await self._hash(password))
            rehashed = [PasswordSet(again, int(self.clock()))]
            stream = password_stream(account.player_id)
            await append(self.store, stream, rehashed, ANY_VERSION, account.player_id)
        return PasswordSignedIn(await self.sign_ins.start_session(account, client), account)

    async def _count_attempt(self, key: str) -> float:
        """Count an attempt on the handle of ``key`` (locked: refused), and the delay its
        answer waits for. An invalid handle (``key`` empty) is counted nowhere: it can
        match no account, and guessing it costs the guesser the hash all the same."""
        if not key:
            return 0.0
        stream = guard_stream(key)
        for _ in range(RETRIES):
            guard, version, _ = await fold(
                self.store, stream, GUARD_EVENT_TYPES, Guard(), evolve_guard
            )
            now = int(self.clock())
            verdict = guard_verdict(guard, now, self.policy)
            if verdict.locked_until:
                wait = verdict.locked_until - now
                raise ResourceExhausted(
                    f"too many attempts on this handle: try again in {wait} s",
                    reason="SIGN_IN_LOCKED",
                    metadata={"retry_after_seconds": str(wait)},
                )
            try:
                await append(self.store, stream, [GuessCounted(now)], version, "")
            except Conflict:
                continue  # another attempt at once: count again with it
            return verdict.delay
        raise ResourceExhausted("too many attempts on this handle at once", reason="SIGN_IN_LOCKED")
