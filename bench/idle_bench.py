"""What an idle platform costs while people watch: server CPU and database statements a
second with nothing happening, with ``WATCHERS`` open ``WatchPlayer`` streams, and with as
many waiting tickets' ``WatchTicket`` streams; and how soon a real change reaches them.

The platform is ``parlor-platform`` as ``make run`` runs it (one worker per core, every
component), on a scratch database of its own. Each phase holds its streams open for
``WINDOW`` s and records the server's CPU (user + system of the platform and its workers,
from /proc) and the transactions committed in the platform's database
(``pg_stat_database.xact_commit``: every statement on an autocommit connection is one;
the counters reach the view within a second of a busy connection's work and at most
10 s after an idle one's, so the windows are long). Then, with the streams still open,
``PROBES`` real changes, each timed from the call that makes it to the watch that shows it:
a challenge to a watched player (``WatchPlayer`` notice) and a lobby's cancel by its host
(``WatchTicket`` update). With two workers, half the changes are made on another worker
than the watch's (the client spreads its channels over the workers).

``--against=REF`` runs a second platform from git commit ``REF``'s source (as
``pace_bench.py`` does) side by side, measured in the same windows.

    python bench/idle_bench.py [--quick] [--against=REF] [--watchers=N]
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import statistics
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import psycopg

sys.path.insert(0, str(Path(__file__).parent))

from benchkit import QUICK, pct, tree_cpu_seconds
from capacity_bench import settled
from load_bench import AUTH
from pace_bench import Side, SidePlatform, _option, sides_of

from parlor.challenges.v1 import challenges_pb2 as ch
from parlor.challenges.v1 import challenges_pb2_grpc as ch_grpc
from parlor.eventstore.urls import libpq_url
from parlor.kit import client
from parlor.kit.auth import issue_token
from parlor.matchmaking.v1 import matchmaking_pb2 as mm
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc

# Lobbies waiting alone are the WatchTicket phase's tickets: no bots fill them (they would
# start games, which are not idle work) however long the phase takes.
os.environ["PARLOR_MATCHMAKING_BOT_FILL_SECONDS"] = ""
WATCHERS = int(_option("watchers", "50" if QUICK else "200"))
WINDOW = 12.0 if QUICK else 30.0
PROBES = 6 if QUICK else 20
AGAINST = _option("against", "") or None


def guest() -> tuple[str, str]:
    player = "guest-" + secrets.token_hex(8)
    return player, issue_token(AUTH, player, player)


async def committed(url: str) -> int:
    """Transactions committed in ``url``'s database so far (``pg_stat_database``)."""
    async with await psycopg.AsyncConnection.connect(libpq_url(url), autocommit=True) as conn:
        await conn.execute("SELECT pg_stat_clear_snapshot()")
        row = await (
            await conn.execute(
                "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
            )
        ).fetchone()
        assert row is not None
        return int(row[0])


class Stream:
    """One server stream kept open, each message kept with when it came."""

    def __init__(self, call: Any) -> None:
        self.call = call
        self.messages: list[tuple[float, Any]] = []
        self.first = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
            async for message in self.call:
                self.messages.append((time.monotonic(), message))
                self.first.set()

    async def until(self, found: Callable[[Any], bool], within: float = 30.0) -> float:
        """When the first message ``found`` accepts came (NaN if none came in time)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            for at, message in self.messages:
                if found(message):
                    return at
            await asyncio.sleep(0.002)
        return float("nan")

    async def close(self) -> None:
        self.call.cancel()
        self.task.cancel()
        with contextlib.suppress(BaseException):
            await self.task


@contextlib.asynccontextmanager
async def players(target: str, count: int) -> AsyncIterator[list[tuple[str, Any, Stream]]]:
    """``count`` guests each watching its inbox (WatchPlayer): (id, channel, stream)."""
    opened: list[tuple[str, Any, Stream]] = []
    try:
        for _ in range(count):
            player, token = guest()
            channel = client.channel(target, token)
            stub = ch_grpc.ChallengeServiceStub(channel)
            stream = Stream(stub.WatchPlayer(ch.WatchPlayerRequest(after=0)))
            opened.append((player, channel, stream))
        await asyncio.gather(*(asyncio.wait_for(s.first.wait(), 60) for _, _, s in opened))
        yield opened
    finally:
        for _, channel, stream in opened:
            await stream.close()
            await channel.close()


@contextlib.asynccontextmanager
async def lobbies(target: str, count: int) -> AsyncIterator[list[tuple[str, Any, Stream]]]:
    """``count`` hosts each waiting alone in a lobby, watching its ticket: (ticket, the host's
    token, stream)."""
    opened: list[tuple[str, Any, Stream]] = []
    channels: list[Any] = []
    try:
        for _ in range(count):
            _, token = guest()
            channel = client.channel(target, token)
            stub = mm_grpc.MatchmakingServiceStub(channel)
            made = await stub.CreateLobby(mm.CreateLobbyRequest(game_type="connect4x4"))
            ticket = made.ticket.ticket_id
            stream = Stream(stub.WatchTicket(mm.WatchTicketRequest(ticket_id=ticket)))
            opened.append((ticket, token, stream))
            channels.append(channel)
        await asyncio.gather(*(asyncio.wait_for(s.first.wait(), 60) for _, _, s in opened))
        yield opened
    finally:
        for _, _, stream in opened:
            await stream.close()
        for channel in channels:
            await channel.close()


async def challenge_latencies(target: str, watched: list[tuple[str, Any, Stream]]) -> list[float]:
    """A challenge to each of ``PROBES`` watched players by a new guest: seconds from the
    call to the notice on the invitee's watch."""
    took: list[float] = []
    for player, _, stream in watched[:PROBES]:
        _, token = guest()
        async with client.channel(target, token) as channel:
            stub = ch_grpc.ChallengeServiceStub(channel)
            start = time.monotonic()
            made = await stub.CreateChallenge(
                ch.CreateChallengeRequest(game_type="connect4x4", invitees=[player])
            )
            cid = made.challenge.challenge_id
            at = await stream.until(
                lambda m, cid=cid: any(n.challenge.challenge_id == cid for n in m.notices)
            )
            took.append(at - start)
        await asyncio.sleep(0.37)  # not in step with any poll
    return took


async def cancel_latencies(target: str, watched: list[tuple[str, Any, Stream]]) -> list[float]:
    """``PROBES`` hosts cancel their lobby's ticket, each on a new channel (so on any worker,
    not necessarily its watch's): seconds from the call to the cancel on its watch."""
    took: list[float] = []
    for ticket, token, stream in watched[:PROBES]:
        async with client.channel(target, token) as channel:
            stub = mm_grpc.MatchmakingServiceStub(channel)
            start = time.monotonic()
            await stub.CancelTicket(mm.CancelTicketRequest(ticket_id=ticket))
            at = await stream.until(lambda m: m.ticket.status == mm.TICKET_STATUS_CANCELLED)
            took.append(at - start)
        await asyncio.sleep(0.37)
    return took


async def timed(side: Side, edges: tuple[float, float]) -> tuple[float, float]:
    """(server CPU seconds, committed transactions) between the two moments."""
    url = side.settings["PARLOR_DATABASE_URL"]
    await asyncio.sleep(max(0.0, edges[0] - time.monotonic()))
    cpu, xacts = tree_cpu_seconds(side.pid), await committed(url)
    await asyncio.sleep(max(0.0, edges[1] - time.monotonic()))
    return tree_cpu_seconds(side.pid) - cpu, (await committed(url)) - xacts


Phase = Callable[[Side], contextlib.AbstractAsyncContextManager[Any]]


Probe = Callable[[str, Any], Awaitable[list[float]]]


async def phase(sides: list[Side], name: str, open_: Phase, probe: Probe | None) -> None:
    async with contextlib.AsyncExitStack() as stack:
        opened = [await stack.enter_async_context(open_(side)) for side in sides]
        await asyncio.sleep(3.0)  # past the first looks and any start-up ring
        start = time.monotonic() + 0.5
        results = await asyncio.gather(*(timed(side, (start, start + WINDOW)) for side in sides))
        for side, (cpu, xacts) in zip(sides, results, strict=True):
            line = (
                f"{name:>10} {side.name:>12}: server CPU {1000 * cpu / WINDOW:7.1f} ms/s,"
                f" database {xacts / WINDOW:7.1f} transactions/s"
            )
            print(line, flush=True)
        if probe is not None:
            for side, streams in zip(sides, opened, strict=True):
                assert side.platform is not None
                took = [1000 * t for t in await probe(side.platform.target, streams)]
                good = [t for t in took if t == t]
                print(
                    f"{'':>10} {side.name:>12}: a change to the watch: p50"
                    f" {statistics.median(good or [float('nan')]):.0f} ms, p90"
                    f" {pct(good, 0.9) if good else float('nan'):.0f} ms, max"
                    f" {max(good or [float('nan')]):.0f} ms ({len(good)} of {len(took)} seen)",
                    flush=True,
                )


@contextlib.asynccontextmanager
async def nothing(side: Side) -> AsyncIterator[list[Any]]:
    yield []


async def run(sides: list[Side]) -> None:
    async with contextlib.AsyncExitStack() as stack:
        for side in sides:
            side.platform = await stack.enter_async_context(SidePlatform(side))
        for side in sides:
            await settled(side.pid)

        def target(side: Side) -> str:
            assert side.platform is not None
            return side.platform.target

        print(
            f"Idle platform: {WINDOW:.0f} s windows, {WATCHERS} watchers a phase,"
            f" {PROBES} changes timed",
            flush=True,
        )
        await phase(sides, "nothing", nothing, None)
        await phase(
            sides,
            "WatchPlayer",
            lambda side: players(target(side), WATCHERS),
            challenge_latencies,
        )
        await phase(
            sides, "WatchTicket", lambda side: lobbies(target(side), WATCHERS), cancel_latencies
        )


async def main() -> int:
    with contextlib.ExitStack() as stack:
        await run(await sides_of(stack, AGAINST))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
