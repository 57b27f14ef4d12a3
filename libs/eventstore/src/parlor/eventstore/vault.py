"""Each player's own key, and the personal fields of events sealed with it
(crypto-shredding: docs/accounts.md, "Erasure"). Kept beside the event store because
every service that stores a player's own words seals them here: the identity service
(accounts and bots) and chat (each message's text, with its author's key).

An account's personal fields (``parlor.accounts.PERSONAL``: display names, handles and
their skeletons, providers' issuers and subjects, a closing's reason) are stored as
``sealed:<base64 of nonce and AES-256-GCM ciphertext>``, bound to the account, the event
type and the field (the associated data), under a key of the account's own kept outside
the event store (``account_keys``). Erasing the account deletes its key: the events stay
as they were, immutable, and their personal fields can no longer be read by anyone, while
the ids and times every game, rating and replay needs are untouched (they were never
sealed). Fields stored before sealing (plain text) are read as they are.

The keys: ``InMemoryAccountKeys`` (tests, the in-memory store) and ``PostgresAccountKeys``
(the table ``account_keys`` beside the event store), one contract, tested together.
"""

from __future__ import annotations

import base64
import os
import weakref
from typing import Any, Protocol

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from parlor.eventstore.postgres import PostgresEventStore
from parlor.eventstore.store import EventStore

SEALED = "sealed:"
_LOCK = 0x70617263_6B  # "parck": one creation of the keys table at a time


class AccountKeys(Protocol):
    async def get(self, player_id: str) -> bytes | None:
        """The account's key, None if it has none (never had one, or erased)."""

    async def get_or_create(self, player_id: str) -> bytes:
        """The account's key, made now if it has none (an erased one is never remade)."""

    async def forget(self, player_id: str) -> None:
        """Delete the key for good."""


class InMemoryAccountKeys:
    def __init__(self) -> None:
        self.keys: dict[str, bytes] = {}
        self.forgotten: set[str] = set()

    async def get(self, player_id: str) -> bytes | None:
        return self.keys.get(player_id)

    async def get_or_create(self, player_id: str) -> bytes:
        if player_id in self.forgotten:
            raise KeyError(player_id)
        return self.keys.setdefault(player_id, AESGCM.generate_key(256))

    async def forget(self, player_id: str) -> None:
        self.keys.pop(player_id, None)
        self.forgotten.add(player_id)


class PostgresAccountKeys:
    """``account_keys``: made if missing (under an advisory lock); a forgotten key's row
    is kept with its key column emptied, so it is never made again for that account."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._ready = False

    async def _ensure(self) -> None:
        if self._ready:
            return
        async with self.engine.begin() as conn:
            await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK})
            await conn.execute(
                text(
                    "CREATE TABLE IF NOT EXISTS account_keys (player_id text PRIMARY KEY,"
                    " key bytea, created_at timestamptz NOT NULL DEFAULT now())"
                )
            )
        self._ready = True

    async def get(self, player_id: str) -> bytes | None:
        await self._ensure()
        async with self.engine.connect() as conn:
            found = await conn.execute(
                text("SELECT key FROM account_keys WHERE player_id = :p"), {"p": player_id}
            )
            row = found.first()
        return None if row is None or row[0] is None else bytes(row[0])

    async def get_or_create(self, player_id: str) -> bytes:
        await self._ensure()
        async with self.engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO account_keys (player_id, key) VALUES (:p, :k)"
                    " ON CONFLICT (player_id) DO NOTHING"
                ),
                {"p": player_id, "k": AESGCM.generate_key(256)},
            )
            row = (
                await conn.execute(
                    text("SELECT key FROM account_keys WHERE player_id = :p"), {"p": player_id}
                )
            ).first()
        if row is None or row[0] is None:
            raise KeyError(player_id)
        return bytes(row[0])

    async def forget(self, player_id: str) -> None:
        await self._ensure()
        async with self.engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO account_keys (player_id, key) VALUES (:p, NULL)"
                    " ON CONFLICT (player_id) DO UPDATE SET key = NULL"
                ),
                {"p": player_id},
            )


_IN_MEMORY: weakref.WeakKeyDictionary[Any, InMemoryAccountKeys] = weakref.WeakKeyDictionary()


def keys_for(store: EventStore) -> AccountKeys:
    """The keys beside ``store``: its database's table, or one in-memory set per store."""
    if isinstance(store, PostgresEventStore):
        return PostgresAccountKeys(store.engine)
    return _IN_MEMORY.setdefault(store, InMemoryAccountKeys())


def _associated(player_id: str, event_type: str, field: str) -> bytes:
    return f"{player_id}\n{event_type}\n{field}".encode()


def seal(key: bytes, player_id: str, event_type: str, field: str, value: str) -> str:
    nonce = os.urandom(12)
    sealed = AESGCM(key).encrypt(nonce, value.encode(), _associated(player_id, event_type, field))
    return SEALED + base64.b64encode(nonce + sealed).decode()


def unseal(key: bytes | None, player_id: str, event_type: str, field: str, value: str) -> str:
    """The field as written; "" if it is sealed and the key is gone (erased)."""
    if not value.startswith(SEALED):
        return value
    if key is None:
        return ""
    raw = base64.b64decode(value[len(SEALED) :])
    try:
        opened = AESGCM(key).decrypt(raw[:12], raw[12:], _associated(player_id, event_type, field))
    except InvalidTag:
        return ""
    return opened.decode()
