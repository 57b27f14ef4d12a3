"""Accounts' keys and sealed fields (crypto-shredding), one class on the in-memory store and
on PostgreSQL: a key is made once, read back, and once forgotten never made again; what it
sealed reads back until then and never after."""

from __future__ import annotations

import json
import uuid

import pytest

from parlor.eventstore import EventStore
from parlor.eventstore.vault import SEALED, keys_for, seal, unseal
from parlor.services.matchmaking.accounts import Accounts, account_stream


class TestAccountKeys:
    async def test_a_key_is_made_once_and_forgotten_for_good(self, store: EventStore) -> None:
        keys = keys_for(store)
        player = f"acct-{uuid.uuid4().hex}"
        assert await keys.get(player) is None
        key = await keys.get_or_create(player)
        assert len(key) == 32
        assert await keys.get_or_create(player) == key
        assert await keys_for(store).get(player) == key  # the same keys for the same store
        sealed = seal(key, player, "HandleChanged", "handle", "ann")
        assert sealed.startswith(SEALED)
        assert "ann" not in sealed
        assert unseal(key, player, "HandleChanged", "handle", sealed) == "ann"
        # bound to the account, the event type and the field
        assert unseal(key, "acct-other", "HandleChanged", "handle", sealed) == ""
        assert unseal(key, player, "HandleChanged", "key", sealed) == ""
        await keys.forget(player)
        assert await keys.get(player) is None
        assert unseal(await keys.get(player), player, "HandleChanged", "handle", sealed) == ""
        with pytest.raises(KeyError):
            await keys.get_or_create(player)

    async def test_an_accounts_personal_fields_are_stored_sealed_and_erased_for_good(
        self, store: EventStore, unique: str
    ) -> None:
        accounts = Accounts(store)
        made = await accounts.create("Erin Example", handle=f"e{unique[:10]}")
        player = made.player_id
        raw = b"".join(e.data for e in await store.read_stream(account_stream(player)))
        assert b"Erin" not in raw
        assert f"e{unique[:10]}".encode() not in raw
        assert (await accounts.get(player)).display_name == "Erin Example"
        await accounts.erase(player)
        erased = await Accounts(store).get(player)
        assert (erased.erased, erased.closed, erased.display_name, erased.handle) == (
            True,
            True,
            "",
            "",
        )
        # the handle is free for someone else; the events are all still there
        other = await accounts.create("Other", handle=f"e{unique[:10]}")
        assert other.handle == f"e{unique[:10]}"
        kinds = [e.type for e in await store.read_stream(account_stream(player))]
        assert kinds[-2:] == ["AccountClosed", "AccountErased"]
        assert all(
            json.loads(e.data).get("display_name", SEALED).startswith(SEALED)
            for e in await store.read_stream(account_stream(player))
        )
