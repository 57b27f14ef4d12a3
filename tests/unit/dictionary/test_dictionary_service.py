"""The dictionary service over real gRPC: answers, and a clear error for each bad input."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest

from parlor.dictionary.v1 import dictionary_pb2 as pb
from parlor.dictionary.v1 import dictionary_pb2_grpc as pb_grpc
from parlor.kit import client
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token
from parlor.kit.server import ServerSettings, running
from parlor.kit.status import reason_of
from parlor.services.dictionary.component import dictionary

AUTH = AuthSettings(private_key=generate_private_key())


@pytest.fixture(scope="module")
async def stub() -> AsyncIterator[pb_grpc.DictionaryServiceStub]:
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0)
    async with running(settings, [dictionary], AUTH) as server:
        token = issue_token(AUTH, "player-1")
        async with client.channel(f"127.0.0.1:{server.port}", token) as channel:
            yield pb_grpc.DictionaryServiceStub(channel)


async def _error(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value


async def test_lists_enable_as_the_default(stub: pb_grpc.DictionaryServiceStub) -> None:
    reply = await stub.ListLexicons(pb.ListLexiconsRequest())
    (enable,) = reply.lexicons
    assert enable.name == "enable1"
    assert enable.id.startswith("enable1-")
    assert enable.is_default
    assert enable.word_count == 172_820


@pytest.mark.parametrize(
    ("word", "valid"),
    [("quixotic", True), ("  ZAX ", True), ("aa", True), ("teh", False), ("xyzzy", False)],
)
async def test_check_word(stub: pb_grpc.DictionaryServiceStub, word: str, valid: bool) -> None:
    reply = await stub.CheckWord(pb.CheckWordRequest(word=word))
    assert reply.valid is valid
    assert reply.word == word.strip().lower()


async def test_check_words_names_the_invalid_ones(stub: pb_grpc.DictionaryServiceStub) -> None:
    words = ["cat", "dgo", "Dog", "qat", "zzzq"] * 2000
    reply = await stub.CheckWords(pb.CheckWordsRequest(words=words))
    assert list(reply.invalid_indices) == [i for i, w in enumerate(words) if w in ("dgo", "zzzq")]
    assert set(reply.invalid_words) == {"dgo", "zzzq"}
    assert reply.lexicon_id.startswith("enable1-")


async def test_anagrams_with_a_blank(stub: pb_grpc.DictionaryServiceStub) -> None:
    reply = await stub.FindAnagrams(pb.FindAnagramsRequest(letters="ca?", use_all=True))
    assert {"cat", "act", "arc", "car", "cab"} <= set(reply.words)
    assert all(len(w) == 3 for w in reply.words)


async def test_anagrams_with_the_qu_tile(stub: pb_grpc.DictionaryServiceStub) -> None:
    reply = await stub.FindAnagrams(pb.FindAnagramsRequest(tiles=["qu", "i", "t"], use_all=True))
    assert list(reply.words) == ["quit"]


async def test_pattern(stub: pb_grpc.DictionaryServiceStub) -> None:
    reply = await stub.MatchPattern(pb.MatchPatternRequest(pattern="c?t"))
    assert {"cat", "cot", "cut"} <= set(reply.words)


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        (pb.CheckWordRequest(word="   "), "EMPTY_WORD"),
        (pb.CheckWordRequest(word="don't"), "NOT_A_LETTER"),
        (pb.CheckWordRequest(word="a" * 65), "WORD_TOO_LONG"),
    ],
)
async def test_bad_words_are_invalid_arguments(
    stub: pb_grpc.DictionaryServiceStub, request_: pb.CheckWordRequest, reason: str
) -> None:
    error = await _error(stub.CheckWord(request_))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(error) == reason


async def test_an_over_large_batch_is_refused(stub: pb_grpc.DictionaryServiceStub) -> None:
    error = await _error(stub.CheckWords(pb.CheckWordsRequest(words=["cat"] * 20_001)))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(error) == "BATCH_TOO_LARGE"


async def test_a_bad_word_in_a_batch_is_named(stub: pb_grpc.DictionaryServiceStub) -> None:
    error = await _error(stub.CheckWords(pb.CheckWordsRequest(words=["cat", "c4t"])))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(error) == "NOT_A_LETTER"


async def test_too_many_wildcards(stub: pb_grpc.DictionaryServiceStub) -> None:
    error = await _error(stub.FindAnagrams(pb.FindAnagramsRequest(letters="ab?????")))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(error) == "TOO_MANY_WILDCARDS"


async def test_unknown_lexicon_is_not_found(stub: pb_grpc.DictionaryServiceStub) -> None:
    error = await _error(stub.CheckWord(pb.CheckWordRequest(lexicon="klingon", word="cat")))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert reason_of(error) == "UNKNOWN_LEXICON"
    assert "klingon" in (error.details() or "")
