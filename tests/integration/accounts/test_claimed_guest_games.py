"""An account's game list holds the games of the guest ids it claimed (docs/accounts.md):
the game directory reads them through the account's claims, as scoring does, with the
game events untouched. The tables (``Directory``) and the scan of the events
(``EventScan``) list alike; privacy and findability hold for every id of the account."""

from __future__ import annotations

import uuid

import pytest

from parlor.admission.privacy import Privacy
from parlor.common.v1 import common_pb2
from parlor.directory.eventscan import EventScan
from parlor.directory.listed import GAME_FINISHED, SEATS_TAKEN
from parlor.directory.projection import Directory
from parlor.eventstore import NO_STREAM, Metadata, NewEvent, PostgresEventStore
from parlor.services.matchmaking.accounts import Accounts

pytestmark = pytest.mark.integration


def seated(*players: str, private: bool = False, findable: tuple[str, ...] = ()) -> NewEvent:
    seats = [common_pb2.Seat(index=i, player_id=p) for i, p in enumerate(players)]
    extra = Privacy(private, "an-invite" if private else "", findable).extra()
    return NewEvent(
        SEATS_TAKEN,
        common_pb2.SeatsTaken(seats=seats).SerializeToString(),
        metadata=Metadata(extra=extra),
    )


async def test_an_accounts_list_holds_its_claimed_guests_games(
    migrated: None, database_url: str, unique: str
) -> None:
    category = f"cg{unique}"
    store = PostgresEventStore(database_url)
    try:
        guest, other = f"guest-{uuid.uuid4().hex[:16]}", f"o{unique}"
        account = (await Accounts(store).create("Ann")).player_id
        stranger = (await Accounts(store).create("Sam")).player_id
        games = {
            "public": seated(guest, other, findable=(guest,)),
            "private": seated(guest, other, private=True),
            "own": seated(account, other),
            "others": seated(other, "bot:random"),
        }
        for name, event in games.items():
            await store.append(f"{category}-{name}", [event], NO_STREAM)
        await store.append(
            f"{category}-public",
            [NewEvent(GAME_FINISHED, common_pb2.GameFinished(reason="X").SerializeToString())],
            1,
        )
        directory = Directory(store.engine, category)
        scan = EventScan(store, category)

        async def ids(lister: Directory | EventScan, **kwargs: object) -> set[str]:
            return {g.game_id for g in await lister.list(**kwargs)}  # type: ignore[arg-type]

        for lister in (directory, scan):
            # before the claim: the guest's games are the guest's
            assert await ids(lister, player_id=account, viewer=account) == {"own"}
            assert await ids(lister, player_id=guest, viewer=guest) == {"public", "private"}
        await Accounts(store).claim_guest(account, guest)
        for lister in (directory, scan):
            mine = await ids(lister, player_id=account, viewer=account)
            assert mine == {"public", "private", "own"}
            assert await ids(lister, player_id=account, viewer=account, finished=False) == {
                "private",
                "own",
            }
            assert await ids(lister, player_id=account, viewer=account, finished=True) == {"public"}
            # someone else: the guest's private game never, and only where it is findable
            assert await ids(lister, player_id=account, viewer=stranger) == {"public"}
            assert await ids(lister, viewer=stranger) == {"public", "own", "others"}
            # a service sees all; the guest id itself still lists its games
            assert await ids(lister, player_id=account) == {"public", "private", "own"}
            assert await ids(lister, player_id=guest, viewer=guest) == {"public", "private"}
    finally:
        await store.close()
