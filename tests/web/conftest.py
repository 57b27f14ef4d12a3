"""The web client's tests: the services in-process (``kits.platform``'s fixtures) and the bridge
in front of them on a free port, served by the same code as ``make run`` and ``parlor-web``."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest
import shots
from kits.platform import TEST_KEY, Platform

from parlor.devinfra.embedded import free_port
from parlor.kit.auth import AuthSettings
from parlor.kit.main import available
from parlor.kit.server import ServerSettings, running
from parlor.webgateway.component import Channels, bind, serve_http


@dataclass
class Web:
    platform: Any  # the integration fixtures' Platform
    url: str  # http://127.0.0.1:<port>


WebFactory = Callable[..., contextlib.AbstractAsyncContextManager[Web]]


@pytest.fixture(scope="session")
def start_web(migrated: None) -> WebFactory:
    """``async with start_web("connect4x4", "matchmaking") as web:`` services and the bridge
    (on ``sock=`` when given: a test that must know the bridge's URL before it starts).

    The gRPC server's port is chosen first, so the word games find the dictionary on it
    (``PARLOR_DICTIONARY_TARGET``), as on the platform.
    """

    @contextlib.asynccontextmanager
    async def start(*names: str, sock: socket.socket | None = None) -> AsyncIterator[Web]:
        port = free_port()
        factories = available()
        auth = AuthSettings(private_key=TEST_KEY)
        settings = ServerSettings(host="127.0.0.1", port=port, metrics_port=0, grace_seconds=2)
        saved = os.environ.get("PARLOR_DICTIONARY_TARGET")
        os.environ["PARLOR_DICTIONARY_TARGET"] = f"127.0.0.1:{port}"
        try:
            async with running(settings, [factories[n] for n in names], auth) as server:
                async with serve_bridge(Platform(server, auth), sock) as web:
                    yield web
        finally:
            if saved is None:
                os.environ.pop("PARLOR_DICTIONARY_TARGET", None)
            else:
                os.environ["PARLOR_DICTIONARY_TARGET"] = saved

    return start


@contextlib.asynccontextmanager
async def serve_bridge(platform: Any, sock: socket.socket | None = None) -> AsyncIterator[Web]:
    """The bridge on a free port (or ``sock``) in front of a running platform, until the
    block ends."""
    sock = sock or bind("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    task = asyncio.create_task(serve_http(sock, Channels(platform.target, {}), None))
    try:
        yield Web(platform, url)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The screenshots' folder of this process removed (``shots``): an xdist worker ends
    without running ``atexit``."""
    shots.remove()
