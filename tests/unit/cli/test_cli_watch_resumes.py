"""The CLI's watch goes on when the server ends an idle stream (STREAM_IDLE)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from parlor.cli.games.calls import ServiceCalls
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.core.errors import DeadlineExceeded, ResourceExhausted
from parlor.kit.status import to_status


class Refusal(grpc.RpcError, grpc.Call):  # type: ignore[misc]
    """A failed call as grpc raises it, with the status a Parlor server sends."""

    def __init__(self, error: Any) -> None:
        self.status = to_status(error)

    def code(self) -> grpc.StatusCode:
        return self.status.code

    def details(self) -> str:
        return str(self.status.details)

    def trailing_metadata(self) -> Any:
        return self.status.trailing_metadata


class Call:
    def __init__(self, versions: list[int], then: Exception | None) -> None:
        self.versions, self.then = versions, then

    def __iter__(self) -> Iterator[pb.WatchGameResponse]:
        for v in self.versions:
            response = pb.WatchGameResponse()
            response.event.info.version = v
            yield response
        if self.then is not None:
            raise self.then

    def cancel(self) -> None:
        pass


class Stub:
    """Answers each WatchGame with the next scripted stream, recording the requests."""

    def __init__(self, script: list[Call]) -> None:
        self.script = script
        self.requests: list[pb.WatchGameRequest] = []

    def WatchGame(self, request: pb.WatchGameRequest, metadata: Any = None) -> Call:
        self.requests.append(request)
        return self.script.pop(0)


class Calls(ServiceCalls):
    pb = pb

    def __init__(self, stub: Stub) -> None:
        self.stub = stub
        self.metadata = ()


def test_an_idle_stream_is_opened_again_after_the_last_event_seen() -> None:
    idle = Refusal(DeadlineExceeded("idle", reason="STREAM_IDLE"))
    stub = Stub([Call([1, 2], idle), Call([], idle), Call([3], None)])
    seen = [e.info.version for e, _ in Calls(stub).watch("g")]
    assert seen == [1, 2, 3]
    assert [r.after_version for r in stub.requests] == [0, 2, 2]


def test_other_errors_still_end_the_watch() -> None:
    busy = Refusal(ResourceExhausted("busy", reason="TOO_MANY_STREAMS"))
    with pytest.raises(grpc.RpcError):
        list(Calls(Stub([Call([1], busy)])).watch("g"))
