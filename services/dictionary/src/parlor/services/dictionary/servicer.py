"""The gRPC face of the lexicon library: every error it raises is already a ParlorError.

Word checks (CheckWord, CheckWords) are answered on the event loop: they are set lookups,
bounded by the batch size. Searches (FindAnagrams, MatchPattern) can cost far more, so they
never run on the loop: each runs in a worker thread (an anagram search hands the GIL back
every 1,000 steps, about a millisecond; a pattern search holds it for one regex scan of one
word length at most), at most ``search_slots`` at once per process. A search that finds no
free slot within ``search_wait`` seconds is refused with RESOURCE_EXHAUSTED
(``SEARCH_BUSY``), so a flood of searches queues nowhere and the word checks every move waits
on are answered meanwhile.
Each search's own work is bounded by the lexicon (``MAX_SEARCH_STEPS``, ``MAX_LIMIT``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

from parlor.core.errors import ResourceExhausted
from parlor.dictionary.v1 import dictionary_pb2 as pb
from parlor.dictionary.v1 import dictionary_pb2_grpc as pb_grpc
from parlor.kit import auth
from parlor.lexicon import DEFAULT_LIMIT, MAX_SEARCH_STEPS, Budget, Registry, normalise_word

SEARCH_SLOTS = 1
"""Searches one process runs at once. The GIL runs one Python thread at a time anyway, so a
second search thread would add no throughput, only contention with the event loop for the GIL
(measured: a word check's median latency under a flood of searches was 36 ms with 2 slots,
15 ms with 1)."""

SEARCH_WAIT = 0.25
"""Seconds a search waits for a free slot before it is refused with SEARCH_BUSY."""

SEARCH_BUSY = "SEARCH_BUSY"

_T = TypeVar("_T")


class DictionaryServicer(pb_grpc.DictionaryServiceServicer):
    def __init__(
        self,
        registry: Registry,
        *,
        search_slots: int = SEARCH_SLOTS,
        search_wait: float = SEARCH_WAIT,
    ) -> None:
        self.registry = registry
        self._search_slots = asyncio.Semaphore(search_slots)
        self._search_wait = search_wait

    async def ListLexicons(
        self, request: pb.ListLexiconsRequest, context: Any
    ) -> pb.ListLexiconsResponse:
        auth.caller()
        default = self.registry.default
        return pb.ListLexiconsResponse(
            lexicons=[
                pb.Lexicon(
                    id=lex.id, name=lex.name, word_count=len(lex), is_default=lex.id == default.id
                )
                for lex in self.registry
            ]
        )

    async def CheckWord(self, request: pb.CheckWordRequest, context: Any) -> pb.CheckWordResponse:
        auth.caller()
        lexicon = self.registry.get(request.lexicon)
        word = normalise_word(request.word)
        return pb.CheckWordResponse(lexicon_id=lexicon.id, word=word, valid=word in lexicon)

    async def CheckWords(
        self, request: pb.CheckWordsRequest, context: Any
    ) -> pb.CheckWordsResponse:
        auth.caller()
        lexicon = self.registry.get(request.lexicon)
        words = list(request.words)
        answers = lexicon.check_many(words)
        invalid = [i for i, ok in enumerate(answers) if not ok]
        return pb.CheckWordsResponse(
            lexicon_id=lexicon.id,
            invalid_indices=invalid,
            invalid_words=[normalise_word(words[i]) for i in invalid],
        )

    async def FindAnagrams(
        self, request: pb.FindAnagramsRequest, context: Any
    ) -> pb.FindAnagramsResponse:
        auth.caller()
        lexicon = self.registry.get(request.lexicon)
        tiles: str | list[str] = list(request.tiles) if request.tiles else request.letters
        words = await self._search(
            lambda: lexicon.anagrams(
                tiles,
                min_length=request.min_length or 2,
                use_all=request.use_all,
                limit=request.limit or DEFAULT_LIMIT,
                # hands the GIL to the event loop every 1,000 steps (about a millisecond)
                budget=Budget(MAX_SEARCH_STEPS, pause=lambda: time.sleep(0)),
            )
        )
        return pb.FindAnagramsResponse(lexicon_id=lexicon.id, words=words)

    async def MatchPattern(
        self, request: pb.MatchPatternRequest, context: Any
    ) -> pb.MatchPatternResponse:
        auth.caller()
        lexicon = self.registry.get(request.lexicon)
        words = await self._search(
            lambda: lexicon.pattern(request.pattern, limit=request.limit or DEFAULT_LIMIT)
        )
        return pb.MatchPatternResponse(lexicon_id=lexicon.id, words=words)

    async def _search(self, search: Callable[[], _T]) -> _T:
        """Runs ``search`` in a worker thread once a search slot is free, or refuses it."""
        slots = self._search_slots
        try:
            async with asyncio.timeout(self._search_wait):
                await slots.acquire()
        except TimeoutError:
            raise ResourceExhausted(
                "the dictionary is busy with other searches; try again in a moment",
                reason=SEARCH_BUSY,
            ) from None
        running = asyncio.ensure_future(asyncio.to_thread(search))

        def done(finished: asyncio.Future[_T]) -> None:
            # The slot is held until the thread ends, even if the caller gave up first.
            slots.release()
            if not finished.cancelled():
                finished.exception()  # retrieved: a caller that left cannot see it

        running.add_done_callback(done)
        return await asyncio.shield(running)
