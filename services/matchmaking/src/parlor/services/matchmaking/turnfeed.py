"""'Your turn' in each player's inbox: the games that come to wait for a player's move.

A loop follows the store's global order (each partition of it on its own when the store
splits it, ``parlor.eventstore.cursors``): for each game type, the game streams an interval
of positions touched (``EventStore.streams_touched``, read in the store), each game's state
folded by the game's own rules (``CataloguedGame.states``: the game's stream read and
folded, its cache kept between steps), and for each person whose seat the game waits for
(the engine's ``to_move``), a ``TurnNotice`` (game, version, seat, that seat's deadline)
appended to their inbox under the command id
``turn-<game type>-<game id>-<version>-<seat>``: the store keeps one append per command id
and stream, so replicas running this loop side by side, or one that restarts before its
checkpoint, append each notice once. The position covered is kept in
``turnfeed-<game type>`` (``Covered``: ``position``, and with P > 1 ``positions``, one a
partition), so a restart goes on from it.

A game aborted before it started (``AbortGame``, or the clock's abort of a matched game)
gives each of its people a ``GameAbortedNotice`` (the same fields, no deadline) under the
command id ``aborted-<game type>-<game id>-<seat>``: once each, however often it is seen.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from parlor.eventstore import ANY_VERSION, EventStore, Metadata, NewEvent, RecordedEvent
from parlor.eventstore.cursors import Cursor, heads, partition_key, widen
from parlor.eventstore.cursors import touched as touched_streams
from parlor.gametypes.catalogue import CataloguedGame
from parlor.gametypes.seats import Seat
from parlor.services.matchmaking.challenges import inbox_stream

log = logging.getLogger("parlor.services.matchmaking.turnfeed")

TURN = "TurnNotice"
ABORTED = "GameAbortedNotice"
GAME_NOTICES = (TURN, ABORTED)
"""The inbox's notices of a game (not of a challenge): a ``TurnNotice`` each."""
FEED = "turnfeed"
COVERED = "Covered"


@dataclass(frozen=True)
class TurnNotice:
    game_type: str
    game_id: str
    version: int
    seat: int
    deadline: float
    """Seconds since the epoch; 0: no clock runs."""
    at: float


TimedOut = Callable[[str, str, float], Awaitable[None]]
"""(bot id, game stream, when the game finished)."""


def turn_of(recorded: RecordedEvent) -> TurnNotice:
    return TurnNotice(**json.loads(recorded.data))


class TurnFeed:
    def __init__(
        self,
        store: EventStore,
        games: Sequence[CataloguedGame],
        changed: Callable[[Sequence[str]], None] = lambda players: None,
        clock: Callable[[], float] = time.time,
        poll_seconds: float = 0.5,
        timed_out: TimedOut | None = None,
    ) -> None:
        self.timed_out = timed_out
        """Told of each bot account's seat that ran out of time, or never started a matched
        game it had to start (``Bots.mark_unavailable``), as its game ends."""
        self.store = store
        self.games = {g.category: g for g in games}
        self.states = {g.category: g.states(store) for g in games}
        self.changed = changed
        self.clock = clock
        self.poll_seconds = poll_seconds
        self.covered: dict[str, int] = {}
        """Each game type's position covered in each partition of the store's order, by
        ``partition_key`` (the game type's own for partition 0, its only one with P = 1)."""

    async def _covered(self, category: str, partitions: int) -> Cursor:
        keys = [partition_key(category, p) for p in range(partitions)]
        if category not in self.covered:
            stream = f"{FEED}-{category}"
            version = await self.store.stream_version(stream)
            last = await self.store.read_stream(stream, version, version) if version else []
            mark = json.loads(last[0].data) if last else {"position": 0}
            # ``positions``: one a partition, written with P > 1 (a mark of one partition
            # has ``position`` alone); the partitions it has none for start from 0
            cursor = widen(mark.get("positions", [mark["position"]]), partitions)
            self.covered.update(zip(keys, cursor, strict=True))
        return tuple(self.covered.get(key, 0) for key in keys)

    async def step(self) -> int:
        """Notice every game touched since the last step; how many notices were appended."""
        head = await heads(self.store)
        appended = 0
        for category, game in self.games.items():
            after = await self._covered(category, len(head))
            if all(end <= start for start, end in zip(after, head, strict=True)):
                continue
            touched = await touched_streams(self.store, category, after, head)
            for stream_id in touched:
                game_id = stream_id.split("-", 1)[1]
                try:
                    appended += await self._notice(game, game_id)
                except Exception:
                    # One game its rules cannot fold (a stream written by hand, a codec that
                    # no longer reads an old event) gets no notice; it must not hold back
                    # every other game's, as a step that failed and was tried again did.
                    log.exception("no turn notice for %s %s", game.name, game_id)
            if touched:  # kept only when it covers a game: the mark itself touches none
                mark: dict[str, Any] = {"position": head[0]}
                if len(head) > 1:
                    mark["positions"] = list(head)
                await self.store.append(
                    f"{FEED}-{category}",
                    [NewEvent(COVERED, json.dumps(mark).encode(), metadata=Metadata(actor=FEED))],
                    ANY_VERSION,
                )
            for partition, position in enumerate(head):
                self.covered[partition_key(category, partition)] = position
        return appended

    async def _notice(self, game: CataloguedGame, game_id: str) -> int:
        table, version = await self.states[game.category].load(game_id)
        rules = game.decider
        if rules.is_terminal(table):
            await self._ran_out(game, game_id, table, version)
        aborted = bool(getattr(table, "aborted", False))
        if rules.is_terminal(table) and not aborted:
            return 0
        deadlines = {} if aborted else rules.deadlines(table)
        seats = range(len(table.seats)) if aborted else game.engine.to_move(table.game)
        reached: list[str] = []
        for seat in seats:
            player = table.seats[seat].player_id
            if Seat(player).is_bot:
                continue
            due = deadlines.get(seat)
            notice = TurnNotice(
                game.name,
                game_id,
                version,
                seat,
                due.timestamp() if due is not None else 0.0,
                self.clock(),
            )
            kind, command_id = (
                (ABORTED, f"aborted-{game.category}-{game_id}-{seat}")
                if aborted
                else (TURN, f"turn-{game.category}-{game_id}-{version}-{seat}")
            )
            result = await self.store.append(
                inbox_stream(player),
                [
                    NewEvent(
                        kind,
                        json.dumps(asdict(notice), sort_keys=True).encode(),
                        metadata=Metadata(actor=FEED, correlation_id=game_id),
                    )
                ],
                ANY_VERSION,
                command_id=command_id,
            )
            if not result.duplicate:
                reached.append(player)
        self.changed(reached)
        return len(reached)

    async def _ran_out(self, game: CataloguedGame, game_id: str, table: Any, version: int) -> None:
        """The bot accounts that stopped answering in a game that just ended: a seat out of
        time, or the one a matched game was aborted for (its clock ran, it never moved)."""
        timing, clock = game.decider.timing, table.clock
        if self.timed_out is None or timing is None or clock is None:
            return
        running = set(timing.running(table.game)) if table.aborted else set()
        gone = [
            seat.player_id
            for i, seat in enumerate(table.seats)
            if seat.bot_account
            and (timing.out(table.game, i) or (i in running and not clock.seats[i].acted))
        ]
        if not gone:
            return
        stream = f"{game.category}-{game_id}"
        (last,) = await self.store.read_stream(stream, version, version)
        for player in gone:
            await self.timed_out(player, stream, last.recorded_at.timestamp())

    async def run(self) -> None:
        """Forever: a step, then a pause; a failed step is logged and tried again."""
        while True:
            try:
                await self.step()
            except Exception:
                log.exception("turn notices failed")
            await asyncio.sleep(self.poll_seconds)
