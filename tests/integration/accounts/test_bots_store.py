"""Bot accounts over the event store: one class, run on the in-memory store and on
PostgreSQL (handles shared with people's, secrets kept hashed, revoke, rotate, disable)."""

from __future__ import annotations

import asyncio

import pytest

from parlor.accounts import ExternalIdentity, parse_handle
from parlor.core.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
)
from parlor.eventstore import EventStore
from parlor.services.matchmaking.accounts import STALE_CLAIM_SECONDS, Accounts, handle_stream
from parlor.services.matchmaking.bots import Bots, bot_stream, digest


def handle(unique: str, prefix: str) -> str:
    return f"{prefix}{unique.lower().replace('-', '')}"[:20]


async def person(accounts: Accounts, unique: str, n: int = 0) -> str:
    who = ExternalIdentity("https://idp.example", f"{unique}-{n}")
    return (await accounts.create("Ann", who)).player_id


class TestBots:
    async def test_register_exchange_and_the_secret_is_kept_hashed(
        self, store: EventStore, unique: str
    ) -> None:
        accounts = Accounts(store)
        bots = Bots(store, accounts)
        owner = await person(accounts, unique)
        bot, secret = await bots.register(owner, handle(unique, "b").upper(), " plays c4 ")
        assert bot.bot_id.startswith("botacct-")
        assert len(bot.bot_id) == len("botacct-") + 32
        assert (bot.owner_id, bot.handle, bot.description) == (
            owner,
            handle(unique, "b"),
            "plays c4",
        )
        assert secret.startswith(bot.bot_id + ".")
        assert len(secret) > len(bot.bot_id) + 40
        assert (await bots.sign_in(secret)).bot_id == bot.bot_id
        # the stream holds the digest, never the secret
        stored = b"".join(e.data for e in await store.read_stream(bot_stream(bot.bot_id)))
        assert secret.encode() not in stored
        assert digest(secret).encode() in stored
        # the handle is the bot's, as the accounts see it
        assert await accounts.handle_holder(bot.handle) == bot.bot_id

    async def test_handles_are_unique_across_people_and_bots(
        self, store: EventStore, unique: str
    ) -> None:
        accounts = Accounts(store)
        bots = Bots(store, accounts)
        owner = await person(accounts, unique)
        taken = handle(unique, "p")
        await accounts.set_handle(owner, taken)
        before = await store.head_position()
        with pytest.raises(AlreadyExists) as refused:
            await bots.register(owner, taken.upper(), "")
        assert refused.value.reason == "HANDLE_TAKEN"
        assert await store.head_position() == before  # a refusal writes nothing
        bot, _ = await bots.register(owner, handle(unique, "q"), "")
        other = await person(accounts, unique, 1)
        with pytest.raises(AlreadyExists):
            await accounts.set_handle(other, bot.handle)
        with pytest.raises(AlreadyExists):  # a look-alike (o for 0) of the bot's
            await bots.register(other, bot.handle.replace("q", "g", 1), "")
        assert await accounts.handle_holder(taken) == owner

    async def test_a_bots_handle_is_never_stale_to_an_account(
        self, store: EventStore, unique: str
    ) -> None:
        now = [1_000_000.0]
        accounts = Accounts(store, clock=lambda: now[0])
        bots = Bots(store, accounts, clock=lambda: now[0])
        bot, _ = await bots.register(await person(accounts, unique), handle(unique, "s"), "")
        now[0] += STALE_CLAIM_SECONDS * 10
        with pytest.raises(AlreadyExists):
            await accounts.set_handle(await person(accounts, unique, 1), bot.handle)

    async def test_racing_registrations_of_one_handle_make_one_bot(
        self, store: EventStore, unique: str
    ) -> None:
        accounts = Accounts(store)
        bots = Bots(store, accounts)
        owners = [await person(accounts, unique, n) for n in range(4)]
        wanted = handle(unique, "r")
        results = await asyncio.gather(
            *(bots.register(o, wanted, "") for o in owners), return_exceptions=True
        )
        made = [r for r in results if not isinstance(r, BaseException)]
        assert len(made) == 1
        assert all(isinstance(r, AlreadyExists) for r in results if r not in made)
        state = await accounts._claim_state(handle_stream(parse_handle(wanted).key))
        assert state[0].holder == made[0][0].bot_id

    async def test_only_an_open_account_registers(self, store: EventStore, unique: str) -> None:
        accounts = Accounts(store)
        bots = Bots(store, accounts)
        with pytest.raises(FailedPrecondition) as guest:
            await bots.register("guest-0123456789abcdef", handle(unique, "g"), "")
        assert guest.value.reason == "NOT_AN_ACCOUNT"
        bot, _ = await bots.register(await person(accounts, unique), handle(unique, "t"), "")
        with pytest.raises(FailedPrecondition):  # a bot registers no bot
            await bots.register(bot.bot_id, handle(unique, "u"), "")
        closed = await person(accounts, unique, 1)
        await accounts.close(closed)
        with pytest.raises(PermissionDenied) as refused:
            await bots.register(closed, handle(unique, "v"), "")
        assert refused.value.reason == "ACCOUNT_CLOSED"
        with pytest.raises(InvalidArgument) as bad:
            await bots.register(await person(accounts, unique, 2), handle(unique, "w"), "a\x00b")
        assert bad.value.reason == "BAD_DESCRIPTION"

    async def test_rotate_and_revoke_by_the_owner_only(
        self, store: EventStore, unique: str
    ) -> None:
        accounts = Accounts(store)
        bots = Bots(store, accounts)
        owner = await person(accounts, unique)
        bot, first = await bots.register(owner, handle(unique, "x"), "")
        stranger = await person(accounts, unique, 1)
        for act in (bots.rotate(stranger, bot.bot_id), bots.revoke(stranger, bot.bot_id)):
            with pytest.raises(PermissionDenied) as refused:
                await act
            assert refused.value.reason == "NOT_YOUR_BOT"
        second = await bots.rotate(owner, bot.bot_id)
        assert second != first
        with pytest.raises(Unauthenticated) as old:
            await bots.sign_in(first)
        assert old.value.reason == "BOT_SECRET_INVALID"
        assert (await bots.sign_in(second)).bot_id == bot.bot_id
        await bots.revoke(owner, bot.bot_id)
        with pytest.raises(Unauthenticated):
            await bots.sign_in(second)
        third = await bots.rotate(owner, bot.bot_id)
        assert (await bots.sign_in(third)).bot_id == bot.bot_id

    async def test_made_up_secrets_are_refused(self, store: EventStore, unique: str) -> None:
        accounts = Accounts(store)
        bots = Bots(store, accounts)
        bot, secret = await bots.register(await person(accounts, unique), handle(unique, "y"), "")
        for guess in (
            "",
            ".",
            bot.bot_id,
            bot.bot_id + ".",
            secret[:-1],
            secret + "x",
            "botacct-" + "0" * 32 + "." + secret.split(".")[1],
            "acct-1.x",
        ):
            with pytest.raises(Unauthenticated):
                await bots.sign_in(guess)

    async def test_an_operator_disables_for_good(self, store: EventStore, unique: str) -> None:
        accounts = Accounts(store)
        bots = Bots(store, accounts)
        owner = await person(accounts, unique)
        bot, secret = await bots.register(owner, handle(unique, "z"), "")
        disabled = await bots.disable("operator", bot.bot_id, "abusive")
        assert (disabled.disabled, disabled.disabled_reason) == (True, "abusive")
        with pytest.raises(PermissionDenied) as refused:
            await bots.sign_in(secret)
        assert refused.value.reason == "BOT_DISABLED"
        with pytest.raises(PermissionDenied):  # its owner cannot issue itself a way back
            await bots.rotate(owner, bot.bot_id)
        with pytest.raises(NotFound):
            await bots.disable("operator", "botacct-" + "0" * 32, "")
        assert [b.bot_id for b in await bots.many([bot.bot_id, owner, bot.bot_id, "x"])] == [
            bot.bot_id
        ]

    async def test_erasing_the_owner_shreds_its_bots_handles_and_stops_them(
        self, store: EventStore, unique: str
    ) -> None:
        """A bot's handle, its skeleton and its description are sealed with its owner's
        key: erasure leaves none of them readable, in the stream or through the API, and
        no secret of the owner's bots is exchanged after the owner closes or erases."""
        accounts = Accounts(store)
        bots = Bots(store, accounts)
        owner = await person(accounts, unique)
        name = handle(unique, "e")
        bot, secret = await bots.register(owner, name, "Ann's own bot")
        stored = b"".join(e.data for e in await store.read_stream(bot_stream(bot.bot_id)))
        assert name.encode() not in stored
        assert b"Ann's own bot" not in stored
        assert (await bots.get(bot.bot_id)).handle == name  # read back with the key
        assert await bots.handles([bot.bot_id]) == {bot.bot_id: name}
        assert (await bots.sign_in(secret)).bot_id == bot.bot_id

        await accounts.erase(owner)
        after = await bots.get(bot.bot_id)
        assert (after.owner_id, after.handle, after.handle_key, after.description) == (
            owner,
            "",
            "",
            "",
        )
        assert await bots.handles([bot.bot_id]) == {bot.bot_id: ""}
        with pytest.raises(PermissionDenied) as refused:
            await bots.sign_in(secret)
        assert refused.value.reason == "OWNER_CLOSED"
        with pytest.raises(Unauthenticated):  # a wrong secret still says only that
            await bots.sign_in(bot.bot_id + ".wrong")

    async def test_a_closed_owners_bots_exchange_no_secret(
        self, store: EventStore, unique: str
    ) -> None:
        accounts = Accounts(store)
        bots = Bots(store, accounts)
        owner = await person(accounts, unique)
        bot, secret = await bots.register(owner, handle(unique, "c"), "")
        await accounts.close(owner)
        with pytest.raises(PermissionDenied) as refused:
            await bots.sign_in(secret)
        assert refused.value.reason == "OWNER_CLOSED"
        assert (await bots.get(bot.bot_id)).handle == handle(unique, "c")  # closed, not erased
