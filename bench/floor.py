"""The floor under a move: what any grpc.aio server spends on a call shaped like a move.

A server in a process of its own (``python bench/floor.py LEVEL PORT``, its backends from
``PARLOR_DATABASE_URL`` and ``PARLOR_NATS_URL``) serving one unary method,
``/bench.Floor/Move``, on the libraries Parlor is built on, with none of Parlor's own code
Each level adds one thing every Parlor move does:

- ``call``: the call as a move has it: a ``authorization: Bearer`` token read from the
  metadata (looked up in a dict, as a verified token is), the request parsed (a 45-byte
  protobuf message, Connect 4x4 ``PlayMoveRequest``'s size), a reply of a Connect 4x4
  ``PlayMoveResponse``'s size (1,160 bytes) sent, built once and kept as bytes (as
  Parlor's view cache keeps the reply's game);
- ``append``: and the move stored before the reply, durably: one row per call in a table
  of its own, inserted by psycopg (async) with a group commit as Parlor's (one statement
  and one commit for whatever calls came while the last was in the database,
  ``synchronous_commit`` on);
- ``publish``: and, after the reply, the row published to a JetStream stream of its own
  with its ack awaited (a ``Nats-Msg-Id`` header, acks on one inbox subscription), as
  the relay does (on the run's scratch stream, subjects of its own); never reread from the
  database.

``cpu_bench.py`` measures each beside the bare echo and the games' moves, in the same run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import uuid
from typing import Any

import grpc
import nats
import nats.js.errors
import psycopg
from benchkit import serve_unary
from nats.js.api import StreamConfig

from parlor.connect4x4.v1 import connect4x4_pb2

METHOD = "/bench.Floor/Move"
LEVELS = ("call", "append", "publish")
REPLY_BYTES = 1160
"""A Connect 4x4 ``PlayMoveResponse`` in mid-game, serialized (1,135-1,179 bytes measured)."""

_TABLE = (
    "CREATE TABLE IF NOT EXISTS floor_moves (position bigserial PRIMARY KEY,"
    " game text NOT NULL, data bytea NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now())"
)
_INSERT = (
    "INSERT INTO floor_moves (game, data) SELECT * FROM unnest(%(games)s::text[],"
    " %(data)s::bytea[]) RETURNING position"
)


class GroupCommit:
    """One INSERT (one commit) for the calls that came while the last was in the database."""

    def __init__(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self.conn = conn
        self.pending: list[tuple[str, bytes, asyncio.Future[int]]] = []
        self.busy = False
        self.drainer: asyncio.Task[None] | None = None

    async def submit(self, game: str, data: bytes) -> int:
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.pending.append((game, data, future))
        if not self.busy:  # nobody in the database: go at once, in the caller's own task
            self.busy = True
            await self.send()
        return await future

    async def send(self) -> None:
        """The calls waiting, in one statement; then hand what came meanwhile on."""
        batch, self.pending = self.pending, []
        params = {"games": [b[0] for b in batch], "data": [b[1] for b in batch]}
        try:
            cursor = await self.conn.execute(_INSERT, params, prepare=True)
            rows = await cursor.fetchall()
        except Exception as exc:
            rows = []
            for _, _, waiting in batch:
                waiting.set_exception(exc)
        for (_, _, waiting), (position,) in zip(batch, rows, strict=False):
            waiting.set_result(position)
        if self.pending:
            self.drainer = asyncio.create_task(self.send())
        else:
            self.busy = False


class Acks:
    """JetStream publishes acked on one inbox subscription (the relay's way)."""

    def __init__(self, nc: Any) -> None:
        self.nc = nc
        self.prefix = f"{nc.new_inbox()}."
        self.waiting: dict[str, asyncio.Future[Any]] = {}
        self.next = 0

    async def start(self) -> None:
        await self.nc.subscribe(self.prefix + "*", cb=self.on_ack)

    async def on_ack(self, msg: Any) -> None:
        future = self.waiting.pop(msg.subject[len(self.prefix) :], None)
        if future is not None and not future.done():
            future.set_result(msg)

    async def publish(self, subject: str, data: bytes, msg_id: str) -> None:
        token = str(self.next)
        self.next += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting[token] = future
        await self.nc.publish(
            subject, data, reply=self.prefix + token, headers={"Nats-Msg-Id": msg_id}
        )
        answer = json.loads((await asyncio.wait_for(future, 5.0)).data)
        if "error" in answer:
            raise RuntimeError(answer["error"])


async def serve(level: str, port: int) -> None:
    reply = bytes(REPLY_BYTES)
    tokens: dict[str, str] = {}
    commit: GroupCommit | None = None
    acks: Acks | None = None
    # The run's own stream (``scratch_settings``: removed with the run, swept if it is
    # killed), as the platform makes it; the floor publishes under subjects of its own.
    stream, prefix = os.environ["PARLOR_NATS_STREAM"], os.environ["PARLOR_NATS_SUBJECT_PREFIX"]
    subject = f"{prefix}.floor-{uuid.uuid4().hex[:8]}"
    tasks: set[asyncio.Task[None]] = set()
    if level in ("append", "publish"):
        conn = await psycopg.AsyncConnection.connect(
            os.environ["PARLOR_DATABASE_URL"], autocommit=True
        )
        await conn.execute(_TABLE)
        commit = GroupCommit(conn)
    if level == "publish":
        nc = await nats.connect(os.environ["PARLOR_NATS_URL"])
        with contextlib.suppress(nats.js.errors.BadRequestError):  # made already
            await nc.jetstream().add_stream(StreamConfig(name=stream, subjects=[f"{prefix}.>"]))
        acks = Acks(nc)
        await acks.start()

    async def publish(game: str, data: bytes, position: int) -> None:
        assert acks is not None
        await acks.publish(f"{subject}.{game}", data, f"{game}:{position}")

    async def move(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
        token = next(v for k, v in context.invocation_metadata() or () if k == "authorization")
        player = tokens.get(token)
        if player is None:
            player = tokens[token] = token[-16:]
        game = connect4x4_pb2.PlayMoveRequest.FromString(request).game_id or player
        if commit is not None:
            position = await commit.submit(game, request)
            if acks is not None:
                task = asyncio.create_task(publish(game, request, position))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        return reply

    await serve_unary("bench.Floor", "Move", move, port)
    if acks is not None:
        await acks.nc.close()


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1], int(sys.argv[2])))
