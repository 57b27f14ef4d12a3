"""Reads of a long game fold from kept states, not from event 1, and a game's length is capped.

A Take Four game made long the way a player can (one tile placed and taken back, again and
again), on an in-memory store: every read at a version folds fewer events than the interval
of kept states, a game not read yet is folded once however many read it at once, the states
read so are those a fold from the start gives, and the cap refuses a move but not leaving.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from kits.takefour import tile_set

from parlor.core.errors import ResourceExhausted
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.record.checkpoints import EVERY
from parlor.gamehost.table.seating import OpenTable
from parlor.gametypes.seats import Seat
from parlor.rules import takefour as tf
from parlor.services.takefour.game import Codec, engine_seats, rules

TILES = tile_set("C1 A1 T1 S1 D1 O1 G1 E1")


async def long_game(store: InMemoryEventStore, moves: int, max_events: int = 0) -> Any:
    """A host of a game where ada (tiles 0 to 3) places tile 0 and takes it back ``moves``
    times."""
    host: Any = GameHost("takefour", rules(), Codec(), store, max_events=max_events)
    seats = (Seat("ada"), Seat("bob"))
    config = tf.TakeFourConfig(tiles=TILES, max_rounds=1, lexicon="enable1-test")
    await host.create("g", OpenTable(seats, tf.CreateGame(config, engine_seats(seats))))
    await host.execute("g", tf.StartRound(tuple(range(8))))
    for _ in range(moves):
        await host.execute("g", tf.PlaceTile(0, 0, 0, 0), actor="ada")
        await host.execute("g", tf.TakeBackTile(0, 0, 0), actor="ada")
    return host


def counting(host: Any) -> list[int]:
    """Count the host's folds of one event."""
    folds = [0]
    evolve = host._evolve

    def counted(state: Any, recorded: Any) -> Any:
        folds[0] += 1
        return evolve(state, recorded)

    host._evolve = counted
    return folds


async def test_reads_at_versions_fold_from_kept_states_once_a_game_is_read() -> None:
    store = InMemoryEventStore()
    writer = await long_game(store, 600)
    last = (await writer.load("g"))[1]
    assert last > 4 * EVERY
    reader: Any = GameHost("takefour", rules(), Codec(), store)  # another replica: cold
    folds = counting(reader)
    # 16 readers of a game this process has not read: one fold of it, not 16.
    await asyncio.gather(*(reader.load("g", last - 7 * i) for i in range(16)))
    assert folds[0] <= last + 16 * EVERY, folds[0]
    folds[0] = 0
    for version in range(3, last, 97):
        state, _ = await reader.load("g", version)
        assert state == writer.fold(await writer.history("g", 1, version))
    assert folds[0] < len(range(3, last, 97)) * EVERY


async def test_history_watch_and_a_repeated_command_read_only_what_they_return() -> None:
    store = InMemoryEventStore()
    host = await long_game(store, 400)
    last = (await host.load("g"))[1]
    await host.load("g", last - 1)  # the game's states kept
    folds = counting(host)
    records = await host.recorded("g", last - 9, last)
    assert [r.version for r in records] == list(range(last - 9, last + 1))
    assert records[-1].after == (await host.load("g"))[0]
    assert folds[0] < EVERY + 10
    folds[0] = 0
    watched = []
    async for recorded in host.watch("g", after_version=last - 3, poll_seconds=30):
        watched.append(recorded.version)
        if recorded.version == last:
            break
    assert watched == [last - 2, last - 1, last]
    assert folds[0] < EVERY + 3


async def test_the_length_cap_refuses_a_move_and_lets_a_seat_leave() -> None:
    store = InMemoryEventStore()
    host = await long_game(store, 5, max_events=0)
    last = (await host.load("g"))[1]
    host.store.max_events = last + 1
    await host.execute("g", tf.PlaceTile(0, 0, 0, 0), actor="ada")
    with pytest.raises(ResourceExhausted) as refused:
        await host.execute("g", tf.TakeBackTile(0, 0, 0), actor="ada")
    assert refused.value.reason == "GAME_TOO_LONG"
    assert refused.value.metadata == {"max_events": str(last + 1)}
    assert (await host.load("g"))[1] == last + 1
    left = await host.execute("g", tf.Forfeit(0, "LEFT"), actor="ada")
    assert left.version > last + 1


@pytest.mark.parametrize(
    ("event_type", "leaves"),
    [
        ("parlor.connect4x4.v1.PlayerTimedOut", True),
        ("parlor.upwords.v1.PlayerTimedOut", True),
        ("parlor.takefour.v1.SeatIdle", True),
        ("parlor.takefour.v1.SeatForfeited", True),
        ("parlor.upwords.v1.PlayerResigned", True),
        ("parlor.common.v1.GameFinished", True),
        ("parlor.takefour.v1.TilePlaced", False),
        ("parlor.connect4x4.v1.PiecePlaced", False),
    ],
)
def test_a_timeout_may_go_past_the_cap_as_leaving_does(event_type: str, leaves: bool) -> None:
    """A timed game at its cap still ends: its timeouts (and Take Four's idle steps towards
    a forfeit) are appended past the cap, within the reserve; a move is not."""
    from parlor.eventstore import NewEvent
    from parlor.gamehost.record.length import LEAVING_RESERVE, LengthCapped

    capped = LengthCapped(InMemoryEventStore(), max_events=10)
    events = [NewEvent(type=event_type, data=b"")]
    if leaves:
        capped.check("g", 10, events)
        capped.check("g", 10 + LEAVING_RESERVE - 1, events)
    else:
        with pytest.raises(ResourceExhausted):
            capped.check("g", 10, events)
    with pytest.raises(ResourceExhausted):
        capped.check("g", 10 + LEAVING_RESERVE, events)


async def test_a_game_played_here_keeps_its_states_as_it_is_played() -> None:
    host = await long_game(InMemoryEventStore(), 300)
    last = (await host.load("g"))[1]
    at, kept = host.checkpoints.nearest("g", last)
    assert at == last - last % EVERY
    assert kept == host.fold(await host.history("g", 1, at))
    folds = counting(host)
    await host.load("g", at + 5)
    assert folds[0] == 5
