"""Accounts in the event store: the account decider's streams and the claims that keep
handles and external identities unique across accounts and replicas.

Streams (none of them is relayed to the bus: the matchmaking relay's lane is its own
category, so handles, display names and subjects never reach JetStream):

- ``account-<player id>``: the account's events (``parlor.accounts``);
- ``accounthandle-<sha256 of the skeleton>``: who holds a handle (and every look-alike);
- ``accountidentity-<sha256 of issuer and subject>``: which account an OpenID Connect
  identity signs into (hashed: a stream id is no place for a provider's subject);
- ``accountguest-<guest id>``: which account claimed a guest id (``parlor.accounts.guests``).
  The one category here that is relayed (two player ids, nothing personal): scoring
  learns of a claim from the bus.

A change that needs a claim claims first (with the claim stream's expected version: of
two replicas claiming at once one gets ``Conflict``, re-reads and is refused), then
records the change in the account's stream, then releases what the account held before.
A claim whose holder never recorded the change (the process died in between) is stale:
after ``STALE_CLAIM_SECONDS`` another account may take it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TypeVar

from parlor.accounts import (
    ACCOUNT_CATEGORY,
    ACCOUNTS,
    CLAIM_EVENT_TYPES,
    EVENT_TYPES,
    GUEST_EVENT_TYPES,
    PERSONAL,
    PLAYER_PREFIX,
    Account,
    AccountCommand,
    AccountEvent,
    ChangeDisplayName,
    ChangeHandle,
    Claim,
    ClaimEvent,
    ClaimGuest,
    CloseAccount,
    CreateAccount,
    EraseAccount,
    ExternalIdentity,
    Handle,
    LinkIdentity,
    OpenSession,
    UnlinkIdentity,
    check_guest_id,
    claim,
    claim_guest_id,
    decode,
    encode,
    evolve_claim,
    guest_claim_stream,
    parse_handle,
    release,
)
from parlor.core.errors import AlreadyExists, Conflict, InvalidArgument, NotFound
from parlor.eventstore import NO_STREAM, EventStore, Metadata, NewEvent
from parlor.eventstore.vault import AccountKeys, keys_for, seal, unseal

ACCOUNT = ACCOUNT_CATEGORY
HANDLE = "accounthandle"
IDENTITY = "accountidentity"
STALE_CLAIM_SECONDS = 60.0
RETRIES = 5

S = TypeVar("S")
E = TypeVar("E")


def new_player_id() -> str:
    """128 random bits: never derived from a handle, an identity or a time."""
    return PLAYER_PREFIX + secrets.token_hex(16)


def account_stream(player_id: str) -> str:
    if not player_id.startswith(PLAYER_PREFIX) or len(player_id) > 64:
        raise NotFound("no such account", reason="ACCOUNT_NOT_FOUND")
    return f"{ACCOUNT}-{player_id}"


def identity_stream(identity: ExternalIdentity) -> str:
    digest = hashlib.sha256(f"{identity.issuer}\n{identity.subject}".encode()).hexdigest()
    return f"{IDENTITY}-{digest[:48]}"


def _json(fields: dict[str, object]) -> bytes:
    return json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()


def handle_stream(key: str) -> str:
    """A handle's claim, named by a digest of its skeleton (no handle in a stream id)."""
    return f"{HANDLE}-{hashlib.sha256(key.encode()).hexdigest()[:48]}"


async def append(
    store: EventStore, stream: str, events: Sequence[object], version: int, actor: str
) -> None:
    """Append dataclass events (``parlor.accounts.encode``) after ``version``."""
    new = []
    for event in events:
        kind, data = encode(event)
        new.append(NewEvent(kind, data, metadata=Metadata(actor=actor)))
    await store.append(stream, new, version)


async def fold(
    store: EventStore,
    stream: str,
    types: Mapping[str, type[E]],
    state: S,
    evolve: Callable[[S, E], S],
) -> tuple[S, int, float]:
    """A stream folded from ``state``: the state, the stream's version (``NO_STREAM`` if it
    has none) and when its last event was recorded (seconds since the epoch; 0 if none)."""
    events = await store.read_stream(stream)
    for event in events:
        state = evolve(state, decode(dict(types), event.type, event.data))
    if not events:
        return state, NO_STREAM, 0.0
    return state, events[-1].version, events[-1].recorded_at.timestamp()


def _handle_taken(handle: str) -> AlreadyExists:
    return AlreadyExists(
        f"the handle {handle!r} is taken, or looks like one that is (0 and o, 1 and l, rn and"
        " m count as one); choose another",
        reason="HANDLE_TAKEN",
    )


_IDENTITY_TAKEN = AlreadyExists(
    "this identity is linked to another account", reason="IDENTITY_LINKED_ELSEWHERE"
)


class Accounts:
    """Accounts over any event store (in memory for tests, PostgreSQL in service)."""

    def __init__(
        self,
        store: EventStore,
        clock: Callable[[], float] = time.time,
        keys: AccountKeys | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.keys = keys or keys_for(store)

    # -- reading ---------------------------------------------------------------------------

    async def load(self, player_id: str) -> tuple[Account, int]:
        """The account (``exists`` False if there is none) and its stream's version; its
        personal fields unsealed with its key (empty once it is erased)."""
        events = await self.store.read_stream(account_stream(player_id))
        state = ACCOUNTS.initial_state()
        # read whether or not there are events: a sign-in for a handle nobody holds reads
        # as much as one for a held handle (passwords.py)
        key = await self.keys.get(player_id)
        for event in events:
            fields = json.loads(event.data)
            for name in PERSONAL.get(event.type, ()):
                fields[name] = unseal(key, player_id, event.type, name, fields[name])
            state = ACCOUNTS.evolve(state, decode(EVENT_TYPES, event.type, _json(fields)))
        return state, events[-1].version if events else NO_STREAM

    async def _append_account(
        self, player_id: str, events: Sequence[AccountEvent], version: int
    ) -> None:
        """Append to the account's stream, its personal fields sealed with its key."""
        key = None
        new = []
        for event in events:
            kind, data = encode(event)
            personal = PERSONAL.get(kind, ())
            if personal:
                key = key or await self.keys.get_or_create(player_id)
                fields = json.loads(data)
                for name in personal:
                    fields[name] = seal(key, player_id, kind, name, fields[name])
                data = _json(fields)
            new.append(NewEvent(kind, data, metadata=Metadata(actor=player_id)))
        await self.store.append(account_stream(player_id), new, version)

    async def get(self, player_id: str) -> Account:
        account, _ = await self.load(player_id)
        if not account.exists:
            raise NotFound("no such account", reason="ACCOUNT_NOT_FOUND")
        return account

    async def _claim_state(self, stream: str) -> tuple[Claim, int, float]:
        """A claim, its version and when it was last changed (seconds since the epoch)."""
        return await fold(self.store, stream, CLAIM_EVENT_TYPES, Claim(), evolve_claim)

    async def find_by_identity(self, identity: ExternalIdentity) -> str | None:
        """The player id of the account this identity signs into, if it is linked."""
        state, _, _ = await self._claim_state(identity_stream(identity))
        if not state.holder:
            return None
        account, _ = await self.load(state.holder)
        return state.holder if identity in account.identities else None

    async def handles(self, player_ids: Sequence[str]) -> dict[str, str]:
        """The handle of each distinct id, in the order given: empty for guests, bots,
        unknown ids and accounts without one yet."""
        wanted = list(dict.fromkeys(player_ids))
        accounts = [p for p in wanted if p.startswith(PLAYER_PREFIX) and len(p) <= 64]
        loaded = await asyncio.gather(*(self.load(p) for p in accounts))
        found = {p: account.handle for p, (account, _) in zip(accounts, loaded, strict=True)}
        return {p: found.get(p, "") for p in wanted}

    async def handle_holder(self, handle: str) -> str | None:
        """The player id holding ``handle`` or a look-alike of it."""
        return await self.handle_holder_by_key(parse_handle(handle).key)

    async def handle_holder_by_key(self, key: str) -> str | None:
        """The player id holding the handle whose skeleton is ``key``."""
        state, _, _ = await self._claim_state(handle_stream(key))
        return state.holder or None

    # -- claims ----------------------------------------------------------------------------

    async def _holds(self, holder: str, stream: str) -> bool:
        if not holder.startswith(PLAYER_PREFIX):
            return True  # a bot (bots.py), which records its handle before claiming it
        account, _ = await self.load(holder)
        if stream.startswith(HANDLE + "-"):
            return handle_stream(account.handle_key) == stream
        return any(identity_stream(i) == stream for i in account.identities)

    async def _claim(self, stream: str, player_id: str, taken: AlreadyExists) -> None:
        async def decide(state: Claim, changed: float) -> Sequence[ClaimEvent]:
            if (
                state.holder
                and state.holder != player_id
                and self.clock() - changed > STALE_CLAIM_SECONDS
                and not await self._holds(state.holder, stream)
            ):
                state = Claim()  # stale: its holder never recorded it
            return claim(state, player_id, taken)

        await self._change_claim(stream, player_id, decide)

    async def _release(self, stream: str, player_id: str) -> None:
        async def decide(state: Claim, changed: float) -> Sequence[ClaimEvent]:
            return release(state, player_id)

        await self._change_claim(stream, player_id, decide)

    async def _change_claim(
        self,
        stream: str,
        player_id: str,
        decide: Callable[[Claim, float], Awaitable[Sequence[ClaimEvent]]],
    ) -> None:
        """Decide on the claim's latest state and append with its version; re-read on a
        conflict (another replica changed it in between)."""
        for _ in range(RETRIES):
            state, version, changed = await self._claim_state(stream)
            events = await decide(state, changed)
            if not events:
                return
            try:
                await append(self.store, stream, events, version, player_id)
                return
            except Conflict:
                continue
        raise Conflict("the claim kept changing under this call; retry", reason="CONFLICT")

    # -- commands --------------------------------------------------------------------------

    async def claim_handle(self, player_id: str, handle: Handle) -> None:
        """Claim ``handle`` (its skeleton) for ``player_id``, which may have no account yet
        (a sign-up claims before it creates: a taken handle makes nothing)."""
        await self._claim(handle_stream(handle.key), player_id, _handle_taken(handle.text))

    async def record(self, player_id: str, command: AccountCommand) -> Account:
        """Decide ``command`` on the account's latest state and append what it decides."""
        return await self._execute(player_id, command)

    async def _execute(self, player_id: str, command: AccountCommand) -> Account:
        """Decide against the latest state and append; a concurrent change is re-read."""
        for _ in range(RETRIES):
            state, version = await self.load(player_id)
            events = ACCOUNTS.decide(state, command)
            if not events:
                return state
            try:
                await self._append_account(player_id, events, version)
            except Conflict:
                continue
            for event in events:
                state = ACCOUNTS.evolve(state, event)
            return state
        raise Conflict("the account kept changing under this call; retry", reason="CONFLICT")

    async def create(
        self,
        display_name: str = "",
        identity: ExternalIdentity | None = None,
        handle: str = "",
    ) -> Account:
        """A new account (linked to ``identity`` if given, which must be linked nowhere);
        ``handle``, if given, is taken only if it is valid and free (else the account has
        none yet, for the player to choose)."""
        player_id = new_player_id()
        command = CreateAccount(player_id, int(self.clock()), display_name, identity)
        ACCOUNTS.decide(ACCOUNTS.initial_state(), command)  # refuse bad input before claiming
        if identity is not None:
            await self._claim(identity_stream(identity), player_id, _IDENTITY_TAKEN)
        account = await self._execute(player_id, command)
        if handle:
            with contextlib.suppress(InvalidArgument, AlreadyExists):
                account = await self.set_handle(player_id, handle)
        return account

    async def set_handle(self, player_id: str, raw: str) -> Account:
        handle = parse_handle(raw)
        before = await self.get(player_id)
        ACCOUNTS.decide(before, ChangeHandle(raw))  # a closed account claims nothing
        if before.handle == handle.text:
            return before
        stream = handle_stream(handle.key)
        await self._claim(stream, player_id, _handle_taken(handle.text))
        try:
            after = await self._execute(player_id, ChangeHandle(raw))
        except BaseException:
            if before.handle_key != handle.key:
                await self._release(stream, player_id)
            raise
        if before.handle_key and before.handle_key != handle.key:
            await self._release(handle_stream(before.handle_key), player_id)
        return after

    async def set_display_name(self, player_id: str, name: str) -> Account:
        return await self._execute(player_id, ChangeDisplayName(name))

    async def link(self, player_id: str, identity: ExternalIdentity) -> Account:
        ACCOUNTS.decide(await self.get(player_id), LinkIdentity(identity))
        stream = identity_stream(identity)
        await self._claim(stream, player_id, _IDENTITY_TAKEN)
        try:
            return await self._execute(player_id, LinkIdentity(identity))
        except BaseException:
            await self._release(stream, player_id)
            raise

    async def unlink(self, player_id: str, identity: ExternalIdentity) -> Account:
        account = await self._execute(player_id, UnlinkIdentity(identity))
        await self._release(identity_stream(identity), player_id)
        return account

    async def claim_guest(self, player_id: str, guest_id: str) -> Account:
        """The account takes over ``guest_id`` (the caller proved it holds it): first the
        guest's own stream, once ever (its expected version: of two claims at once one is
        refused), then the account's record of it."""
        check_guest_id(guest_id)
        now = int(self.clock())
        ACCOUNTS.decide(await self.get(player_id), ClaimGuest(guest_id, now))
        stream = guest_claim_stream(guest_id)
        held = await self.store.read_stream(stream)
        claimed = claim_guest_id(
            decode(GUEST_EVENT_TYPES, held[0].type, held[0].data) if held else None,
            guest_id,
            player_id,
            now,
        )
        try:
            await append(self.store, stream, claimed, NO_STREAM, player_id)
        except Conflict:
            raise AlreadyExists(
                "this guest id was claimed already", reason="GUEST_CLAIMED"
            ) from None
        # The claim stream is what counts (scoring reads it); the account's record lists it.
        return await self._execute(player_id, ClaimGuest(guest_id, now))

    async def open_session(self, player_id: str, session_id: str) -> None:
        """Note a new session in the account's stream (the index ``ListSessions`` reads)."""
        await self._execute(player_id, OpenSession(session_id, int(self.clock())))

    async def erase(self, player_id: str) -> Account:
        """Forget the player (crypto-shredding): the account is closed and marked erased,
        its handle and identities released (someone else may take them), and its key
        deleted, so no personal field of its events can be read again. Its player id, in
        its games, ratings and the rest of history, stays as it was."""
        before = await self.get(player_id)
        erased = await self._execute(player_id, EraseAccount(int(self.clock())))
        if before.handle_key:
            await self._release(handle_stream(before.handle_key), player_id)
        for identity in before.identities:
            await self._release(identity_stream(identity), player_id)
        await self.keys.forget(player_id)
        return erased

    async def close(self, player_id: str, reason: str = "") -> Account:
        """Closed for good: its handle and identities stay claimed (no one else may pass for
        it), and no refresh token of it is honoured again."""
        return await self._execute(player_id, CloseAccount(int(self.clock()), reason))


def created_time(account: Account) -> datetime:
    return datetime.fromtimestamp(account.created_at, UTC)
