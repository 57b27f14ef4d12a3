"""The game directory lists a game type's games by player, time and end (finished, in
progress) from SeatsTaken and GameFinished alone, ignores other types, and moves its
checkpoint to the head."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import text

from parlor.common.v1 import common_pb2
from parlor.directory.listed import GAME_FINISHED, SEATS_TAKEN
from parlor.directory.projection import Directory
from parlor.eventstore import NO_STREAM, NewEvent, PostgresEventStore
from parlor.eventstore.cursors import partition_key

pytestmark = pytest.mark.integration


def seated(*players: str) -> NewEvent:
    seats = [common_pb2.Seat(index=i, player_id=p) for i, p in enumerate(players)]
    return NewEvent(SEATS_TAKEN, common_pb2.SeatsTaken(seats=seats).SerializeToString())


def finished(reason: str) -> NewEvent:
    return NewEvent(GAME_FINISHED, common_pb2.GameFinished(reason=reason).SerializeToString())


@pytest.mark.parametrize("partitions", [1, 4], ids=["P1", "P4"])
async def test_games_are_listed_by_player_and_end_and_other_types_are_ignored(
    migrated: None, database_url: str, unique: str, partitions: int
) -> None:
    """With the store's order in one partition, and split into four: the directory keeps a
    checkpoint per partition and reaches each partition's head."""
    category, other = f"dir{unique}", f"other{unique}"
    store = PostgresEventStore(database_url, partitions=partitions)
    try:
        await store.append(f"{category}-g1", [seated("a", "b")], NO_STREAM)
        await store.append(f"{other}-g2", [seated("a")], NO_STREAM)
        await store.append(f"{category}-g3", [seated("b", "c")], NO_STREAM)
        await store.append(f"{category}-g3", [NewEvent("Moved", b""), finished("TIE")], 1)
        directory = Directory(store.engine, category)
        assert [g.game_id for g in await directory.list(player_id="a")] == ["g1"]
        b_games = await directory.list(player_id="b")
        assert [g.game_id for g in b_games] == ["g3", "g1"]
        assert b_games[0].finish_reason == "TIE"
        assert b_games[0].last_version == 3
        assert b_games[0].players == ("b", "c")
        assert not b_games[1].finished
        assert [g.game_id for g in await directory.list(finished=True)] == ["g3"]
        assert [g.game_id for g in await directory.list(finished=False)] == ["g1"]
        assert await directory.all_ids() == ["g1", "g3"]

        # A later event of another type only: the checkpoint still reaches the head (each
        # partition's, under the type's name for partition 0 and type@p<p> for the others).
        await store.append(f"{other}-g4", [seated("z")], NO_STREAM)
        assert await directory.catch_up() == 0
        async with store.engine.connect() as conn:
            heads = dict(
                (
                    await conn.execute(
                        text("SELECT partition, max(position) FROM events GROUP BY partition")
                    )
                ).all()
            )
            checkpoints = dict(
                (
                    await conn.execute(
                        text(
                            "SELECT category, position FROM game_directory_checkpoints"
                            " WHERE category = :c OR category LIKE :p"
                        ),
                        {"c": category, "p": f"{category}@p%"},
                    )
                ).all()
            )
        assert checkpoints == {partition_key(category, p): head for p, head in heads.items()}
        if partitions == 1:
            assert checkpoints == {category: await store.head_position()}
    finally:
        await store.close()


async def test_a_players_games_in_progress_are_listed_newest_first_and_paged(
    migrated: None, database_url: str, unique: str
) -> None:
    """What the lobby's "Your games in progress" asks (``finished=False``): the player's
    unfinished games of the type, a game that ends leaving the list at once; the directory
    keeps a partial index of unfinished rows for it, which the query is planned on."""
    category, other = f"prog{unique}", f"else{unique}"
    store = PostgresEventStore(database_url)
    try:
        directory = Directory(store.engine, category)
        for n in range(1, 5):
            await store.append(f"{category}-g{n}", [seated("a", "bot:random")], NO_STREAM)
        await store.append(f"{category}-g5", [seated("b")], NO_STREAM)
        await store.append(f"{other}-g6", [seated("a")], NO_STREAM)
        await store.append(f"{category}-g2", [finished("RESIGNED")], 1)
        mine = await directory.list(player_id="a", finished=False)
        assert [g.game_id for g in mine] == ["g4", "g3", "g1"]
        assert not any(g.finished for g in mine)
        first = await directory.list(player_id="a", finished=False, limit=2)
        last = first[-1]
        rest = await directory.list(
            player_id="a", finished=False, limit=2, before=(last.created_at, last.game_id)
        )
        assert [g.game_id for g in [*first, *rest]] == ["g4", "g3", "g1"]
        assert [g.game_id for g in await directory.list(finished=False)] == ["g5", "g4", "g3", "g1"]
        await store.append(f"{category}-g4", [finished("RESIGNED")], 1)
        assert [g.game_id for g in await directory.list(player_id="a", finished=False)] == [
            "g3",
            "g1",
        ]
        async with store.engine.connect() as conn:
            indexes = set(
                (
                    await conn.execute(
                        text(
                            "SELECT indexname FROM pg_indexes WHERE tablename = 'game_directory'"
                            " AND indexdef LIKE '%WHERE (finished_at IS NULL)%'"
                        )
                    )
                ).scalars()
            )
        assert indexes == {"game_directory_unfinished", "game_directory_unfinished_by_player"}
    finally:
        await store.close()


async def test_open_games_counts_a_players_unfinished_games_of_the_type_as_of_the_head(
    migrated: None, database_url: str, unique: str
) -> None:
    """The count the open-games cap reads (``parlor.admission.opengames``): caught up first
    (here at every call, ``fresh_seconds=0``), so a game created or finished just before
    counts at once, whichever replica wrote it."""
    category, other = f"open{unique}", f"elsewhere{unique}"
    store = PostgresEventStore(database_url)
    try:
        directory = Directory(store.engine, category, fresh_seconds=0)
        assert await directory.open_games("a", 20) == 0
        await store.append(f"{category}-g1", [seated("a", "bot:random")], NO_STREAM)
        await store.append(f"{category}-g2", [seated("a", "a")], NO_STREAM)
        await store.append(f"{category}-g3", [seated("b")], NO_STREAM)
        await store.append(f"{other}-g4", [seated("a")], NO_STREAM)
        assert await directory.open_games("a", 20) == 2
        assert await directory.open_games("a", 1) == 1  # counting stops at the cap
        await store.append(f"{category}-g1", [finished("RESIGNED")], 1)
        assert await directory.open_games("a", 20) == 1
        assert await directory.open_games("b", 20) == 1
        assert await directory.open_games("bot:random", 20) == 0
    finally:
        await store.close()


async def test_open_games_catches_up_at_most_once_per_fresh_seconds(
    migrated: None, database_url: str, unique: str
) -> None:
    """A burst of creations does not queue for the type's catch-up lock one by one: within
    ``fresh_seconds`` of a catch-up the count is as of it, and the next call after that
    catches up again."""
    category = f"fresh{unique}"
    store = PostgresEventStore(database_url)
    clock = [1000.0]
    try:
        directory = Directory(store.engine, category, fresh_seconds=1.0, clock=lambda: clock[0])
        assert await directory.open_games("a", 20) == 0
        await store.append(f"{category}-g1", [seated("a")], NO_STREAM)
        clock[0] += 0.5
        assert await directory.open_games("a", 20) == 0  # as of the catch-up 0.5 s ago
        clock[0] += 0.5
        assert await directory.open_games("a", 20) == 1  # a second on: caught up again
    finally:
        await store.close()


class CountedDirectory(Directory):
    """Counts its catch-ups; the first one, once done, waits for ``gate`` before returning."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.runs = 0
        self.gate = asyncio.Event()
        self.first_done = asyncio.Event()

    async def catch_up(self) -> int:
        self.runs += 1
        folded = await super().catch_up()
        if self.runs == 1:
            self.first_done.set()
            await self.gate.wait()
        return folded


async def test_concurrent_listings_share_a_catch_up_begun_after_each_was_asked(
    migrated: None, database_url: str, unique: str
) -> None:
    """A burst of listings in one process runs one catch-up (a transaction under the type's
    lock, holding a pooled connection) at a time with at most one more waiting, not one each;
    and a listing still sees every game that ended before it was asked, even while a
    catch-up that began before that end is under way."""
    category = f"burst{unique}"
    store = PostgresEventStore(database_url)
    try:
        directory = CountedDirectory(store.engine, category)
        await store.append(f"{category}-g1", [seated("a", "b")], NO_STREAM)
        await store.append(f"{category}-g1", [finished("TIE")], 1)
        first = asyncio.create_task(directory.list(finished=True))
        await directory.first_done.wait()  # a catch-up has read the head and is still running
        await store.append(f"{category}-g2", [seated("a", "c")], NO_STREAM)
        await store.append(f"{category}-g2", [finished("RESIGNED")], 1)
        burst = [asyncio.create_task(directory.list(finished=True)) for _ in range(50)]
        await asyncio.sleep(0.05)
        directory.gate.set()
        assert "g1" in [g.game_id for g in await first]  # g2 too if the next ran first
        for listing in await asyncio.gather(*burst):
            assert [g.game_id for g in listing] == ["g2", "g1"]
        assert directory.runs == 2
    finally:
        await store.close()


async def test_a_player_who_left_a_game_the_others_play_on_no_longer_holds_it_open(
    migrated: None, database_url: str, unique: str
) -> None:
    """The game's departures (here Connect 4x4's resignation and timeout) mark the seat's
    player as gone: the game stops counting among their open games and their games in
    progress, not among the others', and is otherwise listed as before (still in progress,
    with them seated). A directory of the type made by ``game_directory`` folds them."""
    from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
    from parlor.directory.projection import game_directory
    from parlor.services.connect4x4.game import GAME as C4

    category = C4.category
    store = PostgresEventStore(database_url)
    try:
        directory = game_directory(store.engine, C4)
        directory.fresh_seconds = 0
        game = f"left{unique}"
        resigned = NewEvent(
            c4pb.PlayerResigned.DESCRIPTOR.full_name,
            c4pb.PlayerResigned(seat=0).SerializeToString(),
        )
        timed_out = NewEvent(
            c4pb.PlayerTimedOut.DESCRIPTOR.full_name,
            c4pb.PlayerTimedOut(seat=1).SerializeToString(),
        )
        await store.append(
            f"{category}-{game}", [seated(f"a{unique}", f"b{unique}", f"c{unique}")], NO_STREAM
        )
        assert await directory.open_games(f"a{unique}", 20) == 1
        await store.append(f"{category}-{game}", [resigned, resigned], 1)  # a repeat is no news
        assert await directory.open_games(f"a{unique}", 20) == 0
        assert await directory.open_games(f"b{unique}", 20) == 1
        await store.append(f"{category}-{game}", [timed_out], 3)
        assert await directory.open_games(f"b{unique}", 20) == 0
        assert await directory.open_games(f"c{unique}", 20) == 1
        assert await directory.list(player_id=f"a{unique}", finished=False) == []
        (listed,) = await directory.list(player_id=f"c{unique}", finished=False)
        assert listed.game_id == game
        assert listed.departed == (f"a{unique}", f"b{unique}")
        assert [g.game_id for g in await directory.list(player_id=f"a{unique}")] == [game]
    finally:
        await store.close()


async def test_a_directory_made_before_departures_gains_their_column(
    migrated: None, database_url: str, unique: str
) -> None:
    store = PostgresEventStore(database_url)
    try:
        await Directory(store.engine, f"old{unique}").ensure()
        async with store.engine.begin() as conn:
            await conn.execute(text("ALTER TABLE game_directory DROP COLUMN departed"))
        await store.append(f"old{unique}-g1", [seated("a")], NO_STREAM)
        directory = Directory(store.engine, f"old{unique}", fresh_seconds=0)
        assert await directory.open_games("a", 20) == 1
        assert (await directory.list())[0].departed == ()
    finally:
        await store.close()


async def test_a_game_left_to_bots_still_counts_for_the_player_who_left(
    migrated: None, database_url: str, unique: str
) -> None:
    """Only bots (or people who left too) play on: the game still costs the platform, so it
    still counts among the open games of those who left it, in the directory as in a scan of
    the events (``EventScan``), until it ends."""
    from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
    from parlor.directory.eventscan import EventScan
    from parlor.directory.projection import game_directory
    from parlor.services.connect4x4.game import GAME as C4

    def resigned(seat: int) -> NewEvent:
        return NewEvent(
            c4pb.PlayerResigned.DESCRIPTOR.full_name,
            c4pb.PlayerResigned(seat=seat).SerializeToString(),
        )

    store = PostgresEventStore(database_url)
    try:
        directory = game_directory(store.engine, C4)
        directory.fresh_seconds = 0
        scan = EventScan(store, C4.category, C4.departures)
        a, b = f"a{unique}", f"b{unique}"
        stream = f"{C4.category}-bots{unique}"
        await store.append(stream, [seated(a, b, "bot:random")], NO_STREAM)
        await store.append(stream, [resigned(0)], 1)
        for games in (directory, scan):
            assert await games.open_games(a, 20) == 0  # b, a person, plays on
        await store.append(stream, [resigned(1)], 2)
        for games in (directory, scan):
            assert await games.open_games(a, 20) == 1  # only the bot plays on now
            assert await games.open_games(b, 20) == 1
            listed = await games.list(player_id=a, finished=False)
            assert [g.game_id for g in listed] == [f"bots{unique}"]
    finally:
        await store.close()
