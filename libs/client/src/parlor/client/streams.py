"""Server streams that go on: reopened after an idle close or a broken connection."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from typing import Any

import grpc

from parlor.client.errors import error_from, error_info
from parlor.client.retry import RetryPolicy

IDLE = "STREAM_IDLE"
"""The reason a Parlor server ends a stream that has been quiet too long (reopen it)."""


async def resumed(open_stream: Callable[[], Any], policy: RetryPolicy) -> AsyncGenerator[Any, None]:
    """Items of ``open_stream()``, reopening it on ``STREAM_IDLE`` and on ``UNAVAILABLE``.

    ``open_stream`` makes the request from what the caller has seen so far (its
    ``after_version``), so nothing is repeated. ``UNAVAILABLE`` is retried up to
    ``policy.attempts`` times in a row (any item received starts the count again).
    """
    failures = 0
    while True:
        call = open_stream()
        try:
            async for item in call:
                failures = 0
                yield item
            return
        except grpc.RpcError as exc:
            info = error_info(exc.trailing_metadata())  # type: ignore[attr-defined]
            if info is not None and info.reason == IDLE:
                continue
            failures += 1
            code = exc.code()  # type: ignore[attr-defined]
            if code != grpc.StatusCode.UNAVAILABLE or failures >= policy.attempts:
                raise error_from(exc) from exc
            await asyncio.sleep(policy.backoff(failures))
        finally:
            call.cancel()  # a caller that stops early ends the server stream too
