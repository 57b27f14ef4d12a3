"""The web client's tests: the services in-process (the integration fixtures) and the bridge
in front of them on a free port, served by the same code as ``make run`` and ``parlor-web``."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from parlor.webgateway.component import Channels, address, bind, serve_http

_path = Path(__file__).parent.parent / "integration" / "conftest.py"
_spec = importlib.util.spec_from_file_location("parlor_tests_integration_conftest_web", _path)
assert _spec is not None
assert _spec.loader is not None
_integration = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _integration  # its dataclasses look their module up
_spec.loader.exec_module(_integration)

backend_env = _integration.backend_env
migrated = _integration.migrated
start_platform = _integration.start_platform


@dataclass
class Web:
    platform: Any  # the integration fixtures' Platform
    url: str  # http://127.0.0.1:<port>


WebFactory = Callable[..., contextlib.AbstractAsyncContextManager[Web]]


@pytest.fixture(scope="session")
def start_web(start_platform: Any) -> WebFactory:
    """``async with start_web("connect4x4", "matchmaking") as web:`` services and the bridge."""

    @contextlib.asynccontextmanager
    async def start(*names: str) -> AsyncIterator[Web]:
        async with start_platform(*names) as platform:
            sock = bind("127.0.0.1", 0)
            url = address(sock, "127.0.0.1").replace("localhost", "127.0.0.1")
            task = asyncio.create_task(serve_http(sock, Channels(platform.target, {}), None))
            try:
                yield Web(platform, url)
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    return start
