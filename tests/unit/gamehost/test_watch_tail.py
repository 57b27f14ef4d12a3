"""A watcher gets what its own process just appended from the bells' tail, without a read,
and reads the store whenever anything else may have appended (a bus hint, a wait that ran
out, a gap): every event, in order, once, whichever way it came."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from kits.stores import CountingStore

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
from parlor.core.errors import NotFound
from parlor.eventstore import NewEvent
from parlor.gamehost import GameHost
from parlor.gamehost.table.seating import OpenTable, Table
from parlor.gamehost.wire.service import GameService
from parlor.gametypes.seats import Seat
from parlor.kit import auth
from parlor.rules import connect4x4 as c4
from parlor.runtime.bells import GameBells
from parlor.services.connect4x4.game import GAME, Codec, rules
from parlor.services.connect4x4.game import SERVING as C4_SERVING

Host = GameHost[Table[c4.State], object, object]


def _versions(records: list[Any] | None) -> list[int] | None:
    return None if records is None else [r.version for r in records]


class _Rec:
    def __init__(self, version: int) -> None:
        self.version = version


class Watching:
    """A watcher of game "g" on ``host``: the versions it has seen, and a wait for one."""

    def __init__(self, host: Host) -> None:
        self.seen: list[int] = []
        self.more = asyncio.Event()
        self.task = asyncio.create_task(self.watch(host))

    async def watch(self, host: Host) -> None:
        async for recorded in host.watch("g", poll_seconds=30):
            self.seen.append(recorded.version)
            self.more.set()

    async def until(self, version: int) -> None:
        while not self.seen or self.seen[-1] < version:
            self.more.clear()
            await asyncio.wait_for(self.more.wait(), 5)


def test_the_tail_follows_on_from_what_a_watcher_has_seen_or_says_read_the_store() -> None:
    bells = GameBells()
    bells.ring("g", 3, [_Rec(2), _Rec(3)])
    assert _versions(bells.tail_after("g", 1)) == [2, 3]
    assert _versions(bells.tail_after("g", 2)) == [3]
    assert bells.tail_after("g", 3) is None  # nothing newer here: look at the store
    assert bells.tail_after("g", 0) is None  # a gap before the tail
    bells.ring("g", 4, [_Rec(4)])
    assert _versions(bells.tail_after("g", 1)) == [2, 3, 4]
    bells.ring("g", 7, [_Rec(6), _Rec(7)])  # 5 came from elsewhere: the tail starts again
    assert bells.tail_after("g", 4) is None
    assert _versions(bells.tail_after("g", 5)) == [6, 7]
    bells.ring("g", 8)  # an append that left no records (a timeout): no tail
    assert bells.tail_after("g", 7) is None


def test_a_bus_hint_moves_the_mark_but_the_echo_of_a_local_append_does_not() -> None:
    bells = GameBells()
    bells.ring("g", 3, [_Rec(3)])
    mark = bells.hinted("g")
    bells.hint("g", 3)  # the bus brings our own append back
    assert bells.hinted("g") == mark
    bells.hint("g", 4)  # another replica's
    assert bells.hinted("g") != mark
    moved = bells.hinted("g")
    bells.hint("g")  # a hint without a version (or a forged one)
    assert bells.hinted("g") not in (mark, moved)


def test_a_watcher_takes_local_appends_from_the_tail_and_others_from_the_store() -> None:
    async def run() -> None:
        store = CountingStore()
        host: Host = GameHost("connect4x4", rules(), Codec(), store)
        await host.create("g", OpenTable((Seat("ada"), Seat("bob")), c4.CreateGame(c4.Config())))
        watching = Watching(host)
        seen, until = watching.seen, watching.until
        created = await host.history("g")
        await until(created[-1].version)
        columns = iter(range(7))

        async def drop(actor: str) -> int:
            moved = await host.execute(
                "g",
                c4.DropChecker(0 if actor == "ada" else 1, next(columns), c4.Side.FRONT),
                actor=actor,
            )
            return moved.version

        reads = store.reads
        version = await drop("ada")
        await until(version)
        version = await drop("bob")
        await until(version)
        assert store.reads == reads, "local appends came from the tail"

        # Another replica's append, told by the bus: read from the store.
        state, now = await host.load("g")
        decided = host.decider.decide(state, c4.DropChecker(0, 6, c4.Side.FRONT))
        await store.append(
            host.stream_id("g"),
            [NewEvent(*host.codec.encode(e)) for e in decided],
            now,
        )
        host.bells.hint("g", now + len(decided))
        await until(now + len(decided))
        assert store.reads > reads
        assert seen == list(range(1, now + len(decided) + 1)), "every event once, in order"
        watching.task.cancel()

    asyncio.run(run())


def test_a_watchers_read_of_another_replicas_move_brings_the_cached_state_up_to_date() -> None:
    # Two replicas of one game: a player's move reaches one, the other player's watcher
    # and next move the other. The second replica decides on the state its watcher read,
    # not on its stale cache (a refused append, a read of the game, decided again).
    async def run() -> None:
        store = CountingStore()
        one: Host = GameHost("connect4x4", rules(), Codec(), store)
        two: Host = GameHost("connect4x4", rules(), Codec(), store)
        await one.create("g", OpenTable((Seat("ada"), Seat("bob")), c4.CreateGame(c4.Config())))
        watching = Watching(two)
        until = watching.until
        _, now = await two.load("g")  # the second replica has the game cached
        await until(now)
        ada = await one.execute("g", c4.DropChecker(0, 3, c4.Side.FRONT), actor="ada")
        two.bells.hint("g", ada.version)  # the bus tells the second replica
        await until(ada.version)
        reads = store.reads
        bob = await two.execute("g", c4.DropChecker(1, 4, c4.Side.FRONT), actor="bob")
        assert (store.reads, store.conflicts) == (reads, 0), "decided once, on the news"
        assert bob.version > ada.version
        # a replica whose cache is stale all the same (no news yet) catches up from it: the
        # move, refused on the cached state (not its turn there), is decided again after one
        # read of what is newer
        ada = await one.execute("g", c4.DropChecker(0, 5, c4.Side.FRONT), actor="ada")
        reads = store.reads
        bob = await two.execute("g", c4.DropChecker(1, 2, c4.Side.FRONT), actor="bob")
        assert (store.reads, store.conflicts) == (reads + 1, 0)
        state, version = await one.load("g")
        assert version == bob.version
        assert state == bob.state
        watching.task.cancel()

    asyncio.run(run())


async def _served_game() -> tuple[CountingStore, Any, GameService[Any, Any]]:
    """Game "g" of ada and bob on a servicer over a counting store; ada is the caller."""
    store = CountingStore()
    host: Any = GameHost("connect4x4", GAME.decider, Codec(), store)
    servicer = C4_SERVING.servicer(host)
    auth.bind(auth.Identity("service:tests", roles=("service",)))
    await servicer.CreateGame(
        c4pb.CreateGameRequest(
            game_id="g",
            seats=[common_pb2.Seat(player_id="ada"), common_pb2.Seat(player_id="bob")],
        ),
        None,
    )
    auth.bind(auth.Identity("ada"))
    return store, host, servicer


def test_watch_game_reads_the_game_once_to_start_and_sends_only_what_is_asked() -> None:
    # WatchGame needs the game as it stands (the caller's seat) before it sends anything: it
    # was a read for that, one to check the game exists and one for its events, each folded.
    async def run() -> None:
        store, _, servicer = await _served_game()
        played = await servicer.PlayMove(c4pb.PlayMoveRequest(game_id="g", move="df"), None)
        version = played.game.version
        reads = store.reads
        stream = servicer.WatchGame(
            c4pb.WatchGameRequest(game_id="g", after_version=version - 1), None
        )
        first = await anext(stream)
        assert store.reads == reads + 1
        assert first.game.version == version
        assert first.game == played.game
        auth.bind(auth.Identity("bob"))
        answered = await servicer.PlayMove(c4pb.PlayMoveRequest(game_id="g", move="ef"), None)
        auth.bind(auth.Identity("ada"))
        following = await anext(stream)
        assert following.game.version == answered.game.version
        assert (first.game.turn, following.game.turn) == (1, 0)
        await stream.aclose()
        with pytest.raises(NotFound):
            await anext(servicer.WatchGame(c4pb.WatchGameRequest(game_id="nope"), None))

    asyncio.run(run())


def test_a_watcher_takes_the_state_after_a_local_append_from_the_command_not_a_fold() -> None:
    # The command that appended an event has the state after it at hand; a watcher of the
    # same replica, which has the state before it, takes that instead of folding again.
    async def run() -> None:
        store, host, servicer = await _served_game()
        servicer.pictures.view_cache = False  # each picture drawn from the state its watcher holds
        stream = servicer.WatchGame(c4pb.WatchGameRequest(game_id="g"), None)
        opened = [await anext(stream)]
        while opened[-1].game.status != c4pb.STATUS_IN_PROGRESS:
            opened.append(await anext(stream))
        evolved: list[int] = []
        evolve = host._evolve

        def counted(state: Any, recorded: Any) -> Any:
            evolved.append(recorded.version)
            return evolve(state, recorded)

        host._evolve = counted
        played = await servicer.PlayMove(c4pb.PlayMoveRequest(game_id="g", move="df"), None)
        following = await anext(stream)
        assert evolved == [], "no fold of what the command had folded"
        assert following.game == played.game
        auth.bind(auth.Identity("bob"))
        answered = await servicer.PlayMove(c4pb.PlayMoveRequest(game_id="g", move="ef"), None)
        auth.bind(auth.Identity("ada"))
        following = await anext(stream)
        assert evolved == []
        assert following.game.version == answered.game.version
        host._evolve = evolve
        # the same picture as a watcher that folded the game from the store
        request = c4pb.WatchGameRequest(game_id="g", after_version=following.game.version - 1)
        async with contextlib.aclosing(servicer.WatchGame(request, None)) as fresh:
            assert following.game == (await anext(fresh)).game
        # an event that came without the state after it (another replica's, read from the
        # store) is folded as before
        store_state, now = await host.load("g")
        decided = host.decider.decide(store_state, c4.DropChecker(0, 6, c4.Side.FRONT))
        host._evolve = counted
        await store.append(
            host.stream_id("g"), [NewEvent(*host.codec.encode(e)) for e in decided], now
        )
        host.bells.hint("g", now + len(decided))
        following = await anext(stream)
        assert now + 1 in evolved
        host._evolve = evolve
        await stream.aclose()

    asyncio.run(run())
