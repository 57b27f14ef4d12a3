"""A verdict is asked of the dictionary once per lexicon id: the id names its words."""

from __future__ import annotations

import asyncio
from typing import Any

from parlor.dictionary.v1 import dictionary_pb2 as dpb
from parlor.gamehost.words import MAX_BATCH, Dictionary

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
