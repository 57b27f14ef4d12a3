"""A verdict is asked of the dictionary once per lexicon id: the id names its words; a
dictionary that cannot be reached is told to the player without the deployment's inside."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from parlor.core.errors import DeadlineExceeded, NotFound, Unavailable
from parlor.dictionary.v1 import dictionary_pb2 as dpb
from parlor.gamehost.words.words import MAX_BATCH, Dictionary
from parlor.kit.status import to_status

WORDS = {"cat", "dog", "at"}


class FakeStub:
    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    async def CheckWords(self, request: dpb.CheckWordsRequest, **options: Any) -> Any:
        self.asked.append(list(request.words))
        bad = [i for i, w in enumerate(request.words) if w not in WORDS]
        return dpb.CheckWordsResponse(lexicon_id=request.lexicon, invalid_indices=bad)


def test_words_answered_once_are_not_asked_again_and_lexicons_stay_apart() -> None:
    async def run() -> None:
        words = Dictionary("127.0.0.1:9", lambda: "token")
        stub = FakeStub()
        words.stub = stub  # type: ignore[assignment]
        try:
            assert await words.verdicts("lex-1", ["cat", "xq", "cat"]) == {"cat": True, "xq": False}
            assert await words.verdicts("lex-1", ["xq", "dog", "cat"]) == {
                "xq": False,
                "dog": True,
                "cat": True,
            }
            assert await words.verdicts("lex-1", ["dog", "cat"]) == {"dog": True, "cat": True}
            assert await words.verdicts("lex-2", ["cat"]) == {"cat": True}
            assert stub.asked == [["cat", "xq"], ["dog"], ["cat"]]
        finally:
            await words.close()

    asyncio.run(run())


def test_a_batch_past_the_dictionarys_limit_is_split_and_each_call_counted() -> None:
    async def run() -> None:
        words = Dictionary("127.0.0.1:9", lambda: "token")
        stub = FakeStub()
        words.stub = stub  # type: ignore[assignment]
        many = [f"w{i}" for i in range(MAX_BATCH + 5)]
        try:
            found = await words.verdicts("lex-1", [*many, "cat"])
            assert len(found) == MAX_BATCH + 6
            assert found["cat"]
            assert not found["w0"]
            assert [len(batch) for batch in stub.asked] == [MAX_BATCH, 6]
            assert words.batches == 2
            await words.verdicts("lex-1", ["cat", "w1"])  # all known: no call
            assert words.batches == 2
        finally:
            await words.close()

    asyncio.run(run())


class RefusingStub:
    """The channel's stub, failing as a real call fails: ``error`` (a status of the
    dictionary's own, or gRPC's words with no Parlor reason)."""

    def __init__(self, error: grpc.aio.AioRpcError) -> None:
        self.error = error

    async def CheckWords(self, request: dpb.CheckWordsRequest, **options: Any) -> Any:
        raise self.error


def _grpc_failure(code: grpc.StatusCode, details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details)


def _parlor_failure(error: NotFound) -> grpc.aio.AioRpcError:
    status = to_status(error)
    return grpc.aio.AioRpcError(
        status.code,
        grpc.aio.Metadata(),
        grpc.aio.Metadata(*status.trailing_metadata),
        status.details,
    )


def test_an_unreachable_dictionary_is_unavailable_without_its_address() -> None:
    """Nothing listens at the target: the play is refused UNAVAILABLE DICTIONARY_UNAVAILABLE,
    and the message the player (and the browser, through the bridge, which passes a Parlor
    service's own words as they are) reads never carries gRPC's own words, which name the
    dictionary's address inside the deployment ("ipv4:10.244.3.17:50051: Connection
    refused"). Before, they were quoted into the game service's error."""

    async def run() -> None:
        async with Dictionary("127.0.0.1:9", lambda: "token", 5.0) as words:
            with pytest.raises(Unavailable) as down:  # a real call to a closed port
                await words.verdicts("lex-1", ["cat"])
            assert down.value.reason == "DICTIONARY_UNAVAILABLE"
            assert "127.0.0.1" not in down.value.message
            assert ":9" not in down.value.message
            inside = "failed to connect to all addresses; last error: ipv4:10.244.3.17:50051"
            for code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL):
                words.stub = RefusingStub(_grpc_failure(code, inside))  # type: ignore[assignment]
                with pytest.raises(Unavailable) as failed:
                    await words.verdicts("lex-1", ["dog"])
                assert failed.value.reason == "DICTIONARY_UNAVAILABLE"
                assert "10.244" not in failed.value.message
                assert "connect" not in failed.value.message
            words.stub = RefusingStub(  # type: ignore[assignment]
                _grpc_failure(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded")
            )
            with pytest.raises(DeadlineExceeded):
                await words.verdicts("lex-1", ["dog"])
            # What the dictionary itself said is its own words, and is passed on: its
            # refusals with their reasons, and the incident id of a failure it did not foresee.
            bug = _grpc_failure(grpc.StatusCode.INTERNAL, "internal error (incident 0af3)")
            words.stub = RefusingStub(bug)  # type: ignore[assignment]
            with pytest.raises(Unavailable) as incident:
                await words.verdicts("lex-1", ["dog"])
            assert "internal error (incident 0af3)" in incident.value.message
            missing = NotFound("no lexicon 'lex-9' is loaded", reason="UNKNOWN_LEXICON")
            words.stub = RefusingStub(_parlor_failure(missing))  # type: ignore[assignment]
            with pytest.raises(Unavailable) as unknown:
                await words.verdicts("lex-9", ["dog"])
            assert unknown.value.reason == "LEXICON_NOT_LOADED"
            assert "no lexicon 'lex-9' is loaded" in unknown.value.message

    asyncio.run(run())
