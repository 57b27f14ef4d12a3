"""Accounts over the event store: one class, run on the in-memory store and on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import time
import uuid

import pytest

from parlor.accounts import ExternalIdentity, parse_handle
from parlor.core.errors import AlreadyExists, FailedPrecondition, NotFound
from parlor.eventstore import EventStore
from parlor.services.matchmaking.accounts import (
    STALE_CLAIM_SECONDS,
    Accounts,
    account_stream,
    handle_stream,
    identity_stream,
)


def identity(unique: str, n: int = 0) -> ExternalIdentity:
    return ExternalIdentity("https://idp.example", f"{unique}-{n}")


def handle(unique: str, prefix: str = "h") -> str:
    return f"{prefix}{unique.lower().replace('-', '')}"[:20]


class TestAccounts:
    async def test_creating_links_the_identity_and_finds_it_again(
        self, store: EventStore, unique: str
    ) -> None:
        accounts = Accounts(store)
        who = identity(unique)
        account = await accounts.create("Ann", who)
        assert account.player_id.startswith("acct-")
        assert len(account.player_id) == len("acct-") + 32
        assert await accounts.find_by_identity(who) == account.player_id
        assert await accounts.find_by_identity(identity(unique, 1)) is None
        assert (await accounts.get(account.player_id)).identities == (who,)

    async def test_player_ids_are_random(self, store: EventStore, unique: str) -> None:
        accounts = Accounts(store)
        ids = {(await accounts.create(identity=identity(unique, n))).player_id for n in range(5)}
        assert len(ids) == 5

    async def test_an_identity_signs_into_one_account(self, store: EventStore, unique: str) -> None:
        accounts = Accounts(store)
        await accounts.create(identity=identity(unique))
        with pytest.raises(AlreadyExists) as taken:
            await accounts.create(identity=identity(unique))
        assert taken.value.reason == "IDENTITY_LINKED_ELSEWHERE"
        other = await accounts.create(identity=identity(unique, 1))
        with pytest.raises(AlreadyExists):
            await accounts.link(other.player_id, identity(unique))

    async def test_a_handle_and_its_look_alikes_are_one_players(
        self, store: EventStore, unique: str
    ) -> None:
        accounts = Accounts(store)
        ann = await accounts.create(identity=identity(unique))
        bob = await accounts.create(identity=identity(unique, 1))
        name = handle(unique, "bo")
        await accounts.set_handle(ann.player_id, name)
        assert (await accounts.get(ann.player_id)).handle == name
        assert await accounts.handle_holder(name.upper()) == ann.player_id
        for look_alike in (name.upper(), name.replace("o", "0", 1)):
            with pytest.raises(AlreadyExists) as taken:
                await accounts.set_handle(bob.player_id, look_alike)
            assert taken.value.reason == "HANDLE_TAKEN"
        # ann moves on: her old handle is free for bob
        await accounts.set_handle(ann.player_id, handle(unique, "an"))
        after = await accounts.set_handle(bob.player_id, name)
        assert after.handle == name
        assert await accounts.handle_holder(name) == bob.player_id

    async def test_racing_replicas_cannot_both_take_a_handle(
        self, store: EventStore, unique: str
    ) -> None:
        accounts = Accounts(store)
        players = [
            (await accounts.create(identity=identity(unique, n))).player_id for n in range(6)
        ]
        name = handle(unique, "race")
        results = await asyncio.gather(
            *(Accounts(store).set_handle(p, name) for p in players), return_exceptions=True
        )
        winners = [r for r in results if not isinstance(r, BaseException)]
        assert len(winners) == 1, results
        assert all(isinstance(r, AlreadyExists) for r in results if r not in winners)
        holders = [p for p in players if (await accounts.get(p)).handle == name]
        assert holders == [winners[0].player_id]  # type: ignore[union-attr]

    async def test_a_proposed_handle_is_taken_only_if_free_and_valid(
        self, store: EventStore, unique: str
    ) -> None:
        accounts = Accounts(store)
        name = handle(unique, "pr")
        first = await accounts.create(identity=identity(unique), handle=name)
        assert first.handle == name
        second = await accounts.create(identity=identity(unique, 1), handle=name)
        assert second.handle == ""
        third = await accounts.create(identity=identity(unique, 2), handle="admin")
        assert third.handle == ""

    async def test_a_stale_claim_is_taken_over_after_a_while(
        self, store: EventStore, unique: str
    ) -> None:
        now = [1e9]
        accounts = Accounts(store, clock=lambda: now[0])
        ann = await accounts.create(identity=identity(unique))
        bob = await accounts.create(identity=identity(unique, 1))
        name = handle(unique, "st")
        # ann's process claims and dies before recording the change
        await accounts._claim(
            handle_stream(parse_handle(name).key), ann.player_id, AlreadyExists("x")
        )
        with pytest.raises(AlreadyExists):
            await accounts.set_handle(bob.player_id, name)
        now[0] = time.time() + STALE_CLAIM_SECONDS + 1
        assert (await accounts.set_handle(bob.player_id, name)).handle == name

    async def test_closed_accounts_take_no_change_and_keep_their_claims(
        self, store: EventStore, unique: str
    ) -> None:
        accounts = Accounts(store)
        ann = await accounts.create(identity=identity(unique), handle=handle(unique, "cl"))
        closed = await accounts.close(ann.player_id, "asked")
        assert closed.closed
        with pytest.raises(FailedPrecondition) as refused:
            await accounts.set_handle(ann.player_id, handle(unique, "cx"))
        assert refused.value.reason == "ACCOUNT_CLOSED"
        assert await accounts.handle_holder(handle(unique, "cl")) == ann.player_id
        assert await accounts.find_by_identity(identity(unique)) == ann.player_id

    async def test_unlinking_frees_the_identity(self, store: EventStore, unique: str) -> None:
        accounts = Accounts(store)
        ann = await accounts.create(identity=identity(unique))
        await accounts.link(ann.player_id, identity(unique, 1))
        await accounts.unlink(ann.player_id, identity(unique))
        assert await accounts.find_by_identity(identity(unique)) is None
        bob = await accounts.create(identity=identity(unique))
        assert await accounts.find_by_identity(identity(unique)) == bob.player_id

    async def test_handles_are_looked_up_by_player_id(self, store: EventStore, unique: str) -> None:
        accounts = Accounts(store)
        ann = await accounts.create(identity=identity(unique), handle=handle(unique, "lk"))
        bare = await accounts.create(identity=identity(unique, 1))
        asked = [
            "bot:easy",
            ann.player_id,
            "guest-0123456789abcdef",
            bare.player_id,
            ann.player_id,
            "acct-" + "0" * 32,
        ]
        assert await accounts.handles(asked) == {
            "bot:easy": "",
            ann.player_id: handle(unique, "lk"),
            "guest-0123456789abcdef": "",
            bare.player_id: "",
            "acct-" + "0" * 32: "",
        }

    async def test_no_personal_data_in_stream_ids(self, store: EventStore, unique: str) -> None:
        who = identity(unique)
        assert who.subject not in identity_stream(who)
        with pytest.raises(NotFound):
            account_stream("guest-123")
        with pytest.raises(NotFound):
            await Accounts(store).get("acct-" + "0" * 32)

    async def test_a_guest_id_is_claimed_once_ever_even_by_racing_accounts(
        self, store: EventStore, unique: str
    ) -> None:
        accounts = Accounts(store)
        guest = f"guest-{uuid.uuid4().hex[:16]}"
        racers = [await accounts.create(identity=identity(unique, n)) for n in range(4)]
        outcomes = await asyncio.gather(
            *(accounts.claim_guest(a.player_id, guest) for a in racers), return_exceptions=True
        )
        won = [o for o in outcomes if not isinstance(o, BaseException)]
        lost = [o for o in outcomes if isinstance(o, AlreadyExists)]
        assert len(won) == 1, outcomes
        assert len(lost) == 3, outcomes
        assert {o.reason for o in lost} == {"GUEST_CLAIMED"}
        assert won[0].guests == (guest,)
        claim = await store.read_stream(f"accountguest-{guest}")
        assert [(e.type, json.loads(e.data)["player_id"]) for e in claim] == [
            ("GuestIdClaimed", won[0].player_id)
        ]
        # not again, by the winner either; a closed account claims nothing
        with pytest.raises(AlreadyExists):
            await accounts.claim_guest(won[0].player_id, guest)
        closed = racers[0] if racers[0].player_id != won[0].player_id else racers[1]
        await accounts.close(closed.player_id)
        with pytest.raises(FailedPrecondition) as refused:
            await accounts.claim_guest(closed.player_id, f"guest-{uuid.uuid4().hex[:16]}")
        assert refused.value.reason == "ACCOUNT_CLOSED"
