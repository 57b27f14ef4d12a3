"""Searches over real gRPC are bounded at the edge, capped in results and cost, and never stall
the word checks every Upwords and Take Four move waits on."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc
import pytest

from parlor.dictionary.v1 import dictionary_pb2 as pb
from parlor.dictionary.v1 import dictionary_pb2_grpc as pb_grpc
from parlor.kit import client
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token
from parlor.kit.server import Component, GrpcService, ServerSettings, running
from parlor.kit.status import reason_of
from parlor.lexicon import MAX_LIMIT, Lexicon, Registry, enable1
from parlor.services.dictionary.component import SERVICE_NAME, dictionary
from parlor.services.dictionary.servicer import DictionaryServicer

AUTH = AuthSettings(private_key=generate_private_key())
SETTINGS = ServerSettings(host="127.0.0.1", port=0, metrics_port=0)


@contextlib.asynccontextmanager
async def _stub(*factories: Any) -> AsyncIterator[pb_grpc.DictionaryServiceStub]:
    async with running(SETTINGS, list(factories), AUTH) as server:
        async with client.channel(
            f"127.0.0.1:{server.port}", issue_token(AUTH, "player-1")
        ) as channel:
            yield pb_grpc.DictionaryServiceStub(channel)


@pytest.fixture(scope="module")
async def stub() -> AsyncIterator[pb_grpc.DictionaryServiceStub]:
    async with _stub(dictionary) as found:
        yield found


async def _error(call: Any) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value


@pytest.mark.parametrize(
    ("method", "request_", "reason"),
    [
        ("FindAnagrams", pb.FindAnagramsRequest(letters="e" * 17), "TOO_MANY_TILES"),
        ("FindAnagrams", pb.FindAnagramsRequest(tiles=["e"] * 17), "TOO_MANY_TILES"),
        ("FindAnagrams", pb.FindAnagramsRequest(letters="ab?????"), "TOO_MANY_WILDCARDS"),
        ("FindAnagrams", pb.FindAnagramsRequest(letters="cat", limit=1001), "LIMIT_OUT_OF_RANGE"),
        ("MatchPattern", pb.MatchPatternRequest(pattern="?" * 33), "WORD_TOO_LONG"),
        ("MatchPattern", pb.MatchPatternRequest(pattern="c*" * 9), "TOO_MANY_WILDCARDS"),
        ("MatchPattern", pb.MatchPatternRequest(pattern="*", limit=1001), "LIMIT_OUT_OF_RANGE"),
    ],
)
async def test_oversize_searches_are_refused_with_the_reason(
    stub: pb_grpc.DictionaryServiceStub, method: str, request_: Any, reason: str
) -> None:
    error = await _error(getattr(stub, method)(request_))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(error) == reason


async def test_results_have_a_default_limit_and_a_cap(stub: pb_grpc.DictionaryServiceStub) -> None:
    everything = await stub.MatchPattern(pb.MatchPatternRequest(pattern="*"))
    assert list(everything.words) == list(enable1().words())[:100]
    capped = await stub.MatchPattern(pb.MatchPatternRequest(pattern="*", limit=MAX_LIMIT))
    assert len(capped.words) == MAX_LIMIT
    anagrams = await stub.FindAnagrams(pb.FindAnagramsRequest(letters="aeinrst?"))
    assert len(anagrams.words) == 100
    assert anagrams.words[0] == "angriest"


async def test_a_search_past_its_step_budget_is_resource_exhausted(
    stub: pb_grpc.DictionaryServiceStub,
) -> None:
    error = await _error(
        stub.FindAnagrams(pb.FindAnagramsRequest(letters="xipwfqaguieu????", limit=MAX_LIMIT))
    )
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert reason_of(error) == "SEARCH_TOO_BROAD"


class _SpinningLexicon(Lexicon):
    """ENABLE, whose anagram search first spins in pure Python (holding the GIL as the
    interpreter allows) until the test lets it go: a long search on demand."""

    def __init__(self, words: Sequence[str]) -> None:
        super().__init__("enable1", words)
        self.started = threading.Semaphore(0)
        self.release = threading.Event()

    def anagrams(self, *args: Any, **kwargs: Any) -> list[str]:
        self.started.release()
        deadline = time.monotonic() + 10
        while not self.release.is_set() and time.monotonic() < deadline:
            pass
        return super().anagrams(*args, **kwargs)


async def _started(lexicon: _SpinningLexicon) -> None:
    """Waits (off the loop) until one more search has started spinning."""
    assert await asyncio.to_thread(lexicon.started.acquire, timeout=5)


async def test_word_checks_are_answered_while_searches_run() -> None:
    lexicon = _SpinningLexicon(tuple(enable1().words()))
    servicer = DictionaryServicer(Registry([lexicon]), search_slots=2, search_wait=0.05)

    @contextlib.asynccontextmanager
    async def component() -> AsyncIterator[Component]:
        yield Component(
            name="dictionary",
            services=[
                GrpcService(
                    SERVICE_NAME,
                    lambda server: pb_grpc.add_DictionaryServiceServicer_to_server(
                        servicer, server
                    ),
                    servicer=servicer,
                )
            ],
        )

    async with _stub(component) as stub:
        search = pb.FindAnagramsRequest(letters="retains", use_all=True)
        first = asyncio.ensure_future(stub.FindAnagrams(search))
        second = asyncio.ensure_future(stub.FindAnagrams(search))
        try:
            await _started(lexicon)
            await _started(lexicon)
            # Both search slots are busy with searches that hold a CPU ...
            checked = await asyncio.wait_for(
                stub.CheckWords(pb.CheckWordsRequest(words=["cat", "dgo"] * 5000)), 5
            )
            assert list(checked.invalid_indices) == list(range(1, 10_000, 2))
            assert not first.done()
            assert not second.done()
            # ... and a third search is refused, not queued behind them.
            busy = await _error(stub.FindAnagrams(search))
            assert busy.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert reason_of(busy) == "SEARCH_BUSY"
            assert not first.done()
            assert not second.done()
        finally:
            lexicon.release.set()
        for answered in await asyncio.gather(first, second):
            assert "retains" in answered.words
