"""A tiny component for the kit's tests: generic handlers, no generated code needed.

Run as a script it serves the component with ``parlor.kit.server.serve``, as a
real service would, so tests can send it signals.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from typing import Any

import grpc

from parlor.core.errors import NotFound, RuleViolation
from parlor.kit.main import run
from parlor.kit.server import Component, GrpcService

SERVICE = "parlor.kittest.v1.Probe"


async def echo(request: bytes, context: Any) -> bytes:
    return request


async def slow(request: bytes, context: Any) -> bytes:
    await asyncio.sleep(float(request.decode() or "1"))
    return b"finished"


async def fail(request: bytes, context: Any) -> bytes:
    kind = request.decode()
    if kind == "rule":
        raise RuleViolation("COLUMN_FULL", "column d is full on the front side")
    if kind == "missing":
        raise NotFound("no game with id 42", reason="GAME_NOT_FOUND")
    if kind == "pool":  # a service's own table, its pool exhausted (the event store explains it)
        from sqlalchemy.exc import TimeoutError as PoolTimeout

        import parlor.eventstore.postgres  # noqa: F401

        raise PoolTimeout("QueuePool limit of size 5 overflow 10 reached")
    raise RuntimeError("secret internals: rack=QXZ")


async def count(request: bytes, context: Any) -> AsyncIterator[bytes]:
    for i in range(int(request.decode())):
        yield str(i).encode()
    raise RuleViolation("STREAM_ENDED_BADLY", "the stream ends with an error")


async def quiet(request: bytes, context: Any) -> AsyncIterator[bytes]:
    """One item, then nothing for ``request`` seconds (a watch between moves), then one more."""
    yield b"first"
    await asyncio.sleep(float(request.decode() or "60"))
    yield b"after the quiet"


def _add(server: grpc.aio.Server) -> None:
    ident = lambda b: b
    handlers = {
        "Echo": grpc.unary_unary_rpc_method_handler(echo, ident, ident),
        "Slow": grpc.unary_unary_rpc_method_handler(slow, ident, ident),
        "Fail": grpc.unary_unary_rpc_method_handler(fail, ident, ident),
        "Count": grpc.unary_stream_rpc_method_handler(count, ident, ident),
        "Quiet": grpc.unary_stream_rpc_method_handler(quiet, ident, ident),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))


@contextlib.asynccontextmanager
async def probe_component() -> AsyncIterator[Component]:
    yield Component(name="probe", services=[GrpcService(SERVICE, _add)])


if __name__ == "__main__":
    sys.exit(run("probe", [probe_component]))
