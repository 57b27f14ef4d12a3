"""WatchPlayer's watchers are rung, not polling: one look at the store for all of them.

Before the inbox board each open watch read its inbox every half second; now a watch reads
when this process appended to its inbox, when the board saw another replica do it, or at
its slow safety-net poll. Two replicas here are two stores on their own connection pools
(``PostgresEventStore``), one serving the watches and one recording the changes."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import pytest

from parlor.challenges.v1 import challenges_pb2 as ch
from parlor.eventstore import PostgresEventStore
from parlor.services.matchmaking.challenge import FIRST, ChallengeIssued
from parlor.services.matchmaking.challenges import Challenges
from parlor.services.matchmaking.inboxes import POLL_SECONDS, InboxBoard
from parlor.services.matchmaking.playerwatch import PlayerWatch

pytestmark = [pytest.mark.integration]

NO_CLOCK = {"kind": "none", "initial_seconds": 0, "increment_seconds": 0, "move_seconds": 0}


def offer(challenger: str, invitee: str, wait: float = 600.0):  # type: ignore[no-untyped-def]
    def issued(challenge_id: str, now: float) -> ChallengeIssued:
        return ChallengeIssued(
            challenge_id, challenger, challenger.title(), "connect4x4", (invitee,), 0, (),
            NO_CLOCK, FIRST, True, now, now + wait,
        )  # fmt: skip

    return issued


@pytest.fixture
async def replicas(accounts_url: str) -> AsyncIterator[tuple[Challenges, Challenges]]:
    """The watches' replica and another one, each its own store and connections."""
    one = PostgresEventStore(accounts_url, poll_interval=0.2)
    two = PostgresEventStore(accounts_url, poll_interval=0.2)
    try:
        yield Challenges(one), Challenges(two)
    finally:
        await one.close()
        await two.close()


@contextlib.asynccontextmanager
async def running(board: InboxBoard) -> AsyncIterator[InboxBoard]:
    task = asyncio.create_task(board.run())
    try:
        yield board
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


class Watches:
    """Open watches of the given players, each keeping what it was sent and when."""

    def __init__(self, watch: PlayerWatch) -> None:
        self.watch = watch
        self.sent: dict[str, list[tuple[float, ch.WatchPlayerResponse]]] = {}
        self.tasks: list[asyncio.Task[None]] = []

    async def open(self, players: list[str]) -> None:
        firsts = []
        for player in players:
            self.sent[player] = []
            first = asyncio.Event()
            firsts.append(first)
            self.tasks.append(asyncio.create_task(self._follow(player, first)))
        for first in firsts:  # each watch sent its first message
            await asyncio.wait_for(first.wait(), 10)

    async def _follow(self, player: str, first: asyncio.Event) -> None:
        async for message in self.watch.watch(player, 0):
            self.sent[player].append((time.monotonic(), message))
            first.set()

    async def notice(self, player: str, position: int, within: float) -> float:
        """When ``player``'s watch sent the notice at ``position`` (fails after ``within``)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            for at, message in self.sent[player]:
                if any(n.position == position for n in message.notices):
                    return at
            await asyncio.sleep(0.005)
        raise AssertionError(f"{player}'s watch was not sent notice {position} in {within} s")

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


@contextlib.asynccontextmanager
async def watching(watch: PlayerWatch, players: list[str]) -> AsyncIterator[Watches]:
    watches = Watches(watch)
    try:
        await watches.open(players)
        yield watches
    finally:
        await watches.close()


async def test_idle_watchers_do_not_read_the_store(
    replicas: tuple[Challenges, Challenges], unique: str
) -> None:
    """Twenty quiet watches for a second: one look at the store's head a tick for all of
    them, and no read of any inbox (each read its inbox twice a second before)."""
    here, _ = replicas
    watch = PlayerWatch(here, keepalive_seconds=60)
    players = [f"guest-w{i}{unique}" for i in range(20)]
    async with running(InboxBoard(here.store, watch.bells, seconds=0.1)) as board:
        async with watching(watch, players):
            await asyncio.sleep(0.3)  # the board's first look rings each watch once
            reads, looks = watch.reads, board.looks
            await asyncio.sleep(1.0)
            assert watch.reads == reads
            assert 5 <= board.looks - looks <= 11


async def test_a_change_here_is_sent_at_once_and_another_replicas_within_the_tick(
    replicas: tuple[Challenges, Challenges], unique: str
) -> None:
    """A challenge issued on this replica reaches the watch as soon as it is recorded; one
    issued on the other replica within the board's tick (the poll's half second before), and
    only the invitee's watch reads its inbox for it."""
    here, there = replicas
    watch = PlayerWatch(here, keepalive_seconds=60, poll_seconds=60)
    ann, bob, cid = f"guest-a{unique}", f"guest-b{unique}", f"guest-c{unique}"
    async with running(InboxBoard(here.store, watch.bells)), watching(watch, [bob, cid]) as w:
        await asyncio.sleep(POLL_SECONDS + 0.2)  # past the board's first look
        start = time.monotonic()
        await here.issue(offer(ann, bob))
        assert await w.notice(bob, 1, within=5.0) - start < 0.25
        for _ in range(3):
            reads = watch.reads
            start = time.monotonic()
            made = await there.issue(offer(ann, bob))
            assert made.issued is not None
            sent = await w.notice(bob, len(await here.notices(bob, 0)), within=5.0)
            assert sent - start < POLL_SECONDS + 0.25
            await asyncio.sleep(0.05)
            assert watch.reads - reads == 1  # bob's watch, not cid's
        assert not [m for _, m in w.sent[cid][1:] if m.notices]


async def test_without_the_board_a_watch_still_reads_at_its_safety_net(
    replicas: tuple[Challenges, Challenges], unique: str
) -> None:
    """The board away (or failing): another replica's change still reaches the watch, at its
    own slow poll."""
    here, there = replicas
    watch = PlayerWatch(here, keepalive_seconds=60, poll_seconds=0.5)
    ann, bob = f"guest-a{unique}", f"guest-b{unique}"
    async with watching(watch, [bob]) as w:
        start = time.monotonic()
        await there.issue(offer(ann, bob))
        assert await w.notice(bob, 1, within=3.0) - start < 0.5 + 0.25


async def test_a_quiet_watch_wakes_for_an_expiry_however_slow_its_poll(
    replicas: tuple[Challenges, Challenges], unique: str
) -> None:
    """A pending challenge's expiry is recorded by a watch of its player when its time comes,
    not at the next safety-net poll (a minute here)."""
    here, _ = replicas
    watch = PlayerWatch(here, keepalive_seconds=60, poll_seconds=60)
    ann, bob = f"guest-a{unique}", f"guest-b{unique}"
    made = await here.issue(offer(ann, bob, wait=1.0))
    assert made.issued is not None
    async with watching(watch, [bob]) as w:
        start = time.monotonic()
        await w.notice(bob, 2, within=3.0)
        assert time.monotonic() - start < 1.5
    (_, last), *_ = reversed(w.sent[bob])
    assert [n.challenge.status for n in last.notices] == [ch.CHALLENGE_STATUS_EXPIRED]
