"""Dictionary service figures: a 10,000-word batch over loopback gRPC, and start-up time.

Baselines measured in the same run: the same batch checked in-process (what the
network and protobuf add), and a tiny RPC (ListLexicons) for the round-trip floor.
Goals (issue 4): the batch in under 20 ms over loopback, start-up under 1 s.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import subprocess
import sys
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from parlor.devinfra.embedded import free_port
from parlor.dictionary.v1 import dictionary_pb2 as pb
from parlor.dictionary.v1 import dictionary_pb2_grpc as pb_grpc
from parlor.kit import client
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token
from parlor.kit.server import ServerSettings, running
from parlor.lexicon import enable1
from parlor.services.dictionary.component import dictionary

KEY = generate_private_key()
AUTH = AuthSettings(private_key=KEY)
START_TIMEOUT = 60.0
ROUNDS = 60


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def batch() -> list[str]:
    rng = random.Random(7)
    words = list(enable1().words())
    picked = rng.sample(words, 9_000)
    junk = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(7)) for _ in range(1000)
    ]
    mixed = picked + junk
    rng.shuffle(mixed)
    return mixed


async def over_grpc(words: list[str]) -> tuple[list[float], list[float]]:
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0)
    async with running(settings, [dictionary], AUTH) as server:
        async with client.channel(f"127.0.0.1:{server.port}", issue_token(AUTH, "bench")) as ch:
            stub = pb_grpc.DictionaryServiceStub(ch)
            request = pb.CheckWordsRequest(words=words)
            await stub.CheckWords(request)
            batch_ms, tiny_ms = [], []
            for _ in range(ROUNDS):
                t = time.perf_counter()
                await stub.CheckWords(request)
                batch_ms.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                await stub.ListLexicons(pb.ListLexiconsRequest())
                tiny_ms.append((time.perf_counter() - t) * 1000)
    return batch_ms, tiny_ms


def startup_seconds() -> float:
    """From exec of `parlor-serve dictionary` to health SERVING.

    The server that exits before serving (a missing setting, say) fails the benchmark at
    once with its output, as does one not serving after ``START_TIMEOUT`` seconds.
    """
    port = free_port()
    env = {
        **os.environ,
        "PARLOR_GRPC_PORT": str(port),
        "PARLOR_METRICS_PORT": "0",
        "PARLOR_GRPC_HOST": "127.0.0.1",
        "PARLOR_LOG_LEVEL": "WARNING",
        "PARLOR_JWT_PRIVATE_KEY": KEY,  # no key, no server (outside PARLOR_DEV_MODE)
    }
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "parlor.kit.main", "dictionary"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(
                        f"parlor-serve dictionary exited with code {proc.returncode} before"
                        f" serving:\n{proc.stderr.read()[-3000:] if proc.stderr else ''}"
                    )
                if time.perf_counter() - started > START_TIMEOUT:
                    raise RuntimeError(
                        f"parlor-serve dictionary not serving after {START_TIMEOUT} s"
                    )
                try:
                    reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=0.5)
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return time.perf_counter() - started
                except grpc.RpcError:
                    time.sleep(0.01)
    finally:
        proc.terminate()
        proc.wait()


def main() -> None:
    words = batch()
    lexicon = enable1()
    in_process = []
    for _ in range(ROUNDS):
        t = time.perf_counter()
        lexicon.check_many(words)
        in_process.append((time.perf_counter() - t) * 1000)
    batch_ms, tiny_ms = asyncio.run(over_grpc(words))
    starts = [startup_seconds() for _ in range(3)]
    print(f"{'measure':<46}{'p50':>10}{'p99':>10}")
    print(
        f"{'10,000-word CheckWords over loopback gRPC (ms)':<46}"
        f"{statistics.median(batch_ms):>10.2f}{pct(batch_ms, 0.99):>10.2f}"
    )
    print(
        f"{'  baseline: same batch in-process (ms)':<46}"
        f"{statistics.median(in_process):>10.2f}{pct(in_process, 0.99):>10.2f}"
    )
    print(
        f"{'  baseline: ListLexicons round trip (ms)':<46}"
        f"{statistics.median(tiny_ms):>10.2f}{pct(tiny_ms, 0.99):>10.2f}"
    )
    print(
        f"{'start-up to SERVING, fresh process (s)':<46}"
        f"{statistics.median(starts):>10.2f}{max(starts):>10.2f}"
    )
    print("goals: batch < 20 ms, start-up < 1 s")


if __name__ == "__main__":
    main()
