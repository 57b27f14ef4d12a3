"""The all-in-one platform run beside another: on its own port, its own database, its own
events on a shared NATS server, as `make run PORT=...` / `parlor up --port` start it.

Each platform here is a real `parlor-platform` process on the test session's PostgreSQL
server and NATS, with a scratch database that does not exist yet (the platform creates it)
and no PARLOR_NATS_STREAM / PARLOR_NATS_SUBJECT_PREFIX (the platform names its own after the
database, so the stream is the run's scratch too, recorded and removed at the end). The
platforms share one signing key, given as PARLOR_JWT_PRIVATE_KEY.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import nats
import psycopg
import pytest

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4grpc
from parlor.devinfra import scratch
from parlor.devinfra.backends import with_database
from parlor.devinfra.embedded import free_port
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token
from parlor.kit.status import reason_of
from parlor.lexicon import enable1
from parlor.upwords.v1 import upwords_pb2 as uwpb
from parlor.upwords.v1 import upwords_pb2_grpc as uwgrpc

pytestmark = [pytest.mark.integration, pytest.mark.slow]

KEY = AuthSettings(private_key=generate_private_key())
# Settings the session's other tests put in the environment: a platform here picks its own.
DROPPED = (
    "PARLOR_DATABASE_URL",
    "PARLOR_NATS_STREAM",
    "PARLOR_NATS_SUBJECT_PREFIX",
    "PARLOR_DICTIONARY_TARGET",
    "PARLOR_GRPC_PORT",
    "PARLOR_JWT_PUBLIC_KEYS",
)


@dataclass
class RunningPlatform:
    port: int
    database: str
    output: list[str]

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def metadata(
        self, player_id: str, roles: tuple[str, ...] = (), audience: tuple[str, ...] = ()
    ) -> tuple[tuple[str, str]]:
        token = issue_token(KEY, player_id, player_id.title(), roles, audience=audience)
        return (("authorization", f"Bearer {token}"),)

    def service_metadata(self) -> tuple[tuple[str, str]]:
        """A platform service's for Upwords: only a service may seat two people (they agreed
        elsewhere), and its token names the service it is for."""
        return self.metadata("service:tests", ("service",), ("upwords",))

    @property
    def stream(self) -> str:
        return f"PARLOR_{self.database.upper()}_EVENTS"

    @property
    def prefix(self) -> str:
        return f"parlor-{self.database}.events"


def _seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id=p, display_name=p.title()) for p in players]


def _drop(server_url: str, database: str) -> None:
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


@contextlib.contextmanager
def platform(
    database_url: str, nats_url: str, only: list[str], **extra: str
) -> Iterator[RunningPlatform]:
    """A parlor-platform process serving ``only`` on a port of its own (``--port``)."""
    database = scratch.scratch_name("test")
    scratch.record("stream", RunningPlatform(0, database, []).stream)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in DROPPED}
    env.update(
        PARLOR_DATABASE_URL=with_database(database_url, database),
        PARLOR_NATS_URL=nats_url,
        PARLOR_JWT_PRIVATE_KEY=KEY.private_key,
        PARLOR_METRICS_PORT="0",
        PARLOR_LOG_FORMAT="text",
        PARLOR_RATE_LIMIT_PER_SECOND="0",
        **extra,
    )
    program = Path(sys.executable).parent / "parlor-platform"
    proc = subprocess.Popen(
        [str(program), "--port", str(port), "--only", *only],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()
    output: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail("the platform did not serve in 120 s:\n" + "".join(output))
            if line is None:
                pytest.fail("the platform exited before serving:\n" + "".join(output))
            output.append(line)
            if line.startswith("parlor: serving"):
                break
        assert f"on port {port}" in output[-1], output
        yield RunningPlatform(port, database, output)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        _drop(database_url, database)
        scratch.delete_streams(nats_url, [RunningPlatform(port, database, output).stream])


def test_on_another_port_an_upwords_play_reaches_the_dictionary_served_there(
    database_url: str, nats_url: str
) -> None:
    # Whatever PARLOR_DICTIONARY_TARGET says (nothing listens on port 9), the word game asks
    # the dictionary in its own process, on the port it was given.
    with platform(
        database_url, nats_url, ["dictionary", "upwords"], PARLOR_DICTIONARY_TARGET="127.0.0.1:9"
    ) as running:
        assert running.port != 50051
        text = "".join(running.output)
        assert f"created database '{running.database}'" in text
        assert f"using 127.0.0.1:{running.port}, served here" in text
        words = frozenset(enable1().words())
        with grpc.insecure_channel(running.target) as channel:
            stub = uwgrpc.UpwordsServiceStub(channel)
            created = stub.CreateGame(
                uwpb.CreateGameRequest(seats=_seats("ada", "bob"), command_id="new"),
                metadata=running.service_metadata(),
                timeout=30,
            )
            game_id = created.game.game_id
            mover = ("ada", "bob")[created.game.to_move]
            rack = list(
                stub.GetGame(
                    uwpb.GetGameRequest(game_id=game_id), metadata=running.metadata(mover)
                ).game.rack
            )
            pairs = [(a, b) for a, b in itertools.permutations(rack, 2) if "Q" not in a + b]

            def play(a: str, b: str, command_id: str) -> uwpb.PlayResponse:
                return stub.Play(
                    uwpb.PlayRequest(
                        game_id=game_id,
                        placements=[
                            uwpb.Placement(row=4, col=4, tile=a),
                            uwpb.Placement(row=4, col=5, tile=b),
                        ],
                        command_id=command_id,
                    ),
                    metadata=running.metadata(mover),
                    timeout=30,
                )

            bad = next(p for p in pairs if "".join(p).lower() not in words)
            with pytest.raises(grpc.RpcError) as caught:
                play(*bad, "bad")
            # The dictionary answered: a verdict, not UNAVAILABLE DICTIONARY_UNAVAILABLE.
            assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert reason_of(caught.value) == "INVALID_WORDS"
            good = next((p for p in pairs if "".join(p).lower() in words), None)
            if good is not None:  # a rack with no two-letter word at all is rare
                played = play(*good, "good")
                assert played.game.version > created.game.version


def _subjects(nats_url: str, stream: str) -> dict[str, int]:
    async def read() -> dict[str, int]:
        nc = await nats.connect(nats_url)
        try:
            info = await nc.jetstream().stream_info(stream, subjects_filter=">")
            return dict(info.state.subjects or {})
        finally:
            await nc.close()

    return asyncio.run(read())


def _create_game(running: RunningPlatform) -> str:
    with grpc.insecure_channel(running.target) as channel:
        reply = c4grpc.Connect4x4ServiceStub(channel).CreateGame(
            c4pb.CreateGameRequest(seats=_seats("ada", "bot:random"), command_id="new"),
            metadata=running.metadata("ada"),
            timeout=30,
        )
    return str(reply.game.game_id)


def _published(nats_url: str, running: RunningPlatform, game_id: str) -> dict[str, int]:
    """The stream's subjects, once the game's first events are on NATS (the relay is async)."""
    deadline = time.monotonic() + 30
    while True:
        subjects = _subjects(nats_url, running.stream)
        if any(f".{game_id}." in s for s in subjects) or time.monotonic() > deadline:
            return subjects
        time.sleep(0.3)


def test_two_platforms_on_one_nats_keep_their_events_apart(
    database_url: str, nats_url: str
) -> None:
    with (
        platform(database_url, nats_url, ["connect4x4"]) as first,
        platform(database_url, nats_url, ["connect4x4"]) as second,
    ):
        assert first.stream != second.stream
        for running in (first, second):
            assert f"stream {running.stream} subjects {running.prefix}.>" in "".join(running.output)
        game_one, game_two = _create_game(first), _create_game(second)
        one = _published(nats_url, first, game_one)
        two = _published(nats_url, second, game_two)
        assert any(f"{first.prefix}.connect4x4.{game_one}." in s for s in one), one
        assert any(f"{second.prefix}.connect4x4.{game_two}." in s for s in two), two
        assert all(s.startswith(first.prefix + ".") for s in one), one
        assert all(s.startswith(second.prefix + ".") for s in two), two
        assert not any(game_two in s for s in one)
        assert not any(game_one in s for s in two)
