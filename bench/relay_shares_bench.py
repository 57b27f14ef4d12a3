"""The relay's parts shared among replicas (issue 47): events/s published by 1 and by 2 relay
replica processes of a store split into partitions, at steady state.

A backlog of ``--events`` events (streams of 100, spread over ``--partitions``) is written
once to a scratch database on the machine's PostgreSQL (``PARLOR_BENCH_PG``, default
127.0.0.1:5432). Then, alternated ``--rounds`` times, K relay replica processes (each a
``Relay(..., spread=True)`` of one lane, K = 1 and 2) publish it to a stream of their own on
the machine's NATS (``PARLOR_BENCH_NATS``, default 127.0.0.1:4222), from a lane checkpoint of
0. Once the replicas hold their shares of the parts (the first may take all of them and hand
half over at its first renewal, ``--lease`` / 3 seconds in), what they publish in
``--window`` seconds is counted. Reported per K: events/s, and CPU ms per 1000 events of
the replicas together and of nats-server.

Run: ``python bench/relay_shares_bench.py [--events 200000] [--partitions 4] [--rounds 2]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import time
import uuid
from typing import Any

import psutil
import psycopg
from benchkit import QUICK, REPORTS
from scale_bench import load_now, prefill

from parlor.eventstore import JetStreamBus, PostgresEventStore, Relay, Subjects, migrate

PG = os.environ.get("PARLOR_BENCH_PG", "postgresql://postgres@127.0.0.1:5432")
STAMP = "%Y-%m-%d %H:%M UTC"
NATS = os.environ.get("PARLOR_BENCH_NATS", "nats://127.0.0.1:4222")


async def replica(
    url: str, prefix: str, stream: str, lane: str, partitions: int, lease: float
) -> None:
    """One relay replica process: connects, says ready, starts on "go", then says every
    0.2 s what it has published, how many parts it holds and its CPU seconds; stops at EOF."""
    store = PostgresEventStore(url, partitions=partitions)
    bus = await JetStreamBus.connect(NATS, Subjects(prefix=prefix, stream=stream))
    relay = Relay(store, bus, name=lane, spread=True, lease_seconds=lease, takeover_interval=0.1)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    print("ready", flush=True)
    await reader.readline()
    relay.start()
    done = asyncio.ensure_future(reader.readline())  # EOF: done
    while not done.done():
        held = sum(part.held for part in relay.lanes.values())
        line = {"published": relay.published, "held": held, "cpu": time.process_time()}
        print(json.dumps(line), flush=True)
        await asyncio.wait([done], timeout=0.2)
    await relay.stop()
    await bus.close()
    await store.close()


class Replicas:
    """``n`` relay replica processes of one lane; their latest reports."""

    def __init__(self, n: int, *args: str) -> None:
        self.n, self.args = n, args
        self.procs: list[asyncio.subprocess.Process] = []
        self.latest: list[dict[str, float]] = []
        self.readers: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        for _ in range(self.n):
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                __file__,
                "replica",
                *self.args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
            )
            self.procs.append(proc)
            self.latest.append({"published": 0, "held": 0, "cpu": 0.0})
        for proc in self.procs:
            assert proc.stdout is not None
            if (await asyncio.wait_for(proc.stdout.readline(), 60)).strip() != b"ready":
                raise RuntimeError("a relay replica did not start")
        for i, proc in enumerate(self.procs):
            self.readers.append(asyncio.create_task(self._read(i, proc)))
            assert proc.stdin is not None
            proc.stdin.write(b"go\n")
            await proc.stdin.drain()

    async def _read(self, i: int, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        async for line in proc.stdout:
            self.latest[i] = json.loads(line)

    def total(self, key: str) -> float:
        return sum(report[key] for report in self.latest)

    async def stop(self) -> None:
        for proc in self.procs:
            if proc.stdin is not None:
                proc.stdin.close()
        for proc in self.procs:
            await asyncio.wait_for(proc.wait(), 30)
        for task in self.readers:
            task.cancel()


async def one_round(
    url: str, store: PostgresEventStore, replicas: int, args: argparse.Namespace
) -> tuple[float, float, float, int]:
    """Once the replicas hold their shares of the parts: (events/s over the window, the
    replicas' CPU ms per 1000 events, nats-server's, events published in the window)."""
    tag = uuid.uuid4().hex[:8]
    lane, prefix, stream = f"shares{tag}", f"bshares{tag}.events", f"BENCH_SHARES_{tag.upper()}"
    bus = await JetStreamBus.connect(NATS, Subjects(prefix=prefix, stream=stream))
    await bus.ensure_streams()
    nats_proc = next(
        (p for p in psutil.process_iter(["name"]) if p.info["name"] == "nats-server"), None
    )
    shares = Replicas(replicas, url, prefix, stream, lane, str(args.partitions), str(args.lease))
    try:
        await shares.start()
        each = -(-args.partitions // replicas)
        deadline = time.monotonic() + 60
        while not all(r["held"] == each for r in shares.latest[: args.partitions // each]):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the replicas did not share the parts: {shares.latest}")
            await asyncio.sleep(0.05)
        published0, cpu0 = shares.total("published"), shares.total("cpu")
        nats0 = sum(nats_proc.cpu_times()[:2]) if nats_proc else 0.0
        started = time.perf_counter()
        await asyncio.sleep(args.window)
        elapsed = time.perf_counter() - started
        published = shares.total("published") - published0
        cpu = shares.total("cpu") - cpu0
        nats_cpu = sum(nats_proc.cpu_times()[:2]) - nats0 if nats_proc else 0.0
        if shares.total("published") >= args.events:
            raise RuntimeError("the backlog ran out in the window: raise --events")
    finally:
        await shares.stop()
        await bus.js.delete_stream(stream)
        await bus.close()
    return published / elapsed, cpu / published * 1e6, nats_cpu / published * 1e6, int(published)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=40_000 if QUICK else 200_000)
    parser.add_argument("--window", type=float, default=2.0 if QUICK else 6.0)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1 if QUICK else 2)
    parser.add_argument("--lease", type=float, default=6.0, help="the relay's lease_seconds")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    database = f"relayshares_{uuid.uuid4().hex[:8]}"
    async with await psycopg.AsyncConnection.connect(f"{PG}/postgres", autocommit=True) as admin:
        await admin.execute(f"CREATE DATABASE {database}")
    url = f"{PG}/{database}"
    results: dict[int, list[tuple[float, float, float, int]]] = {1: [], 2: []}
    try:
        await migrate(url)
        store = PostgresEventStore(url, pool_size=8, partitions=args.partitions)
        try:
            await prefill(store, args.events)
            load = load_now()
            for _ in range(args.rounds):
                for replicas in (1, 2):
                    found = await one_round(url, store, replicas, args)
                    results[replicas].append(found)
                    print(
                        f"{replicas} replica(s): {found[0]:,.0f} events/s, relays "
                        f"{found[1]:.0f} ms/1000 events, nats {found[2]:.0f}, "
                        f"published {found[3]} in the window",
                        flush=True,
                    )
        finally:
            await store.close()
    finally:
        async with await psycopg.AsyncConnection.connect(
            f"{PG}/postgres", autocommit=True
        ) as admin:
            await admin.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
    one, two = (statistics.median(r[0] for r in results[k]) for k in (1, 2))
    lines = [
        f"# The relay's parts shared among replicas ({time.strftime(STAMP, time.gmtime())})",
        "",
        f"`python bench/relay_shares_bench.py --events {args.events} --partitions "
        f"{args.partitions} --rounds {args.rounds} --lease {args.lease:g} --window "
        f"{args.window:g}`; load before: {load}.",
        "",
        "| relay replica processes | events/s (each round) | relays' CPU ms / 1000 events "
        "| nats-server's |",
        "|---|---|---|---|",
    ]
    for k in (1, 2):
        rates = ", ".join(f"{r[0]:,.0f}" for r in results[k])
        cpu = statistics.median(r[1] for r in results[k])
        nats = statistics.median(r[2] for r in results[k])
        lines.append(f"| {k} | {rates} | {cpu:.0f} | {nats:.0f} |")
    lines += ["", f"Two replicas / one, medians: {two / one:.2f}x."]
    print("\n".join(lines))
    if not QUICK:
        path = REPORTS / f"{time.strftime('%Y-%m-%d')}-relay-shares.md"
        path.write_text("\n".join(lines) + "\n")
        print(f"written: {path}")


def entry(argv: list[str]) -> Any:
    if argv[1:2] == ["replica"]:
        return replica(argv[2], argv[3], argv[4], argv[5], int(argv[6]), float(argv[7]))
    return main()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(entry(sys.argv))
