"""The gRPC face of the lexicon library: every error it raises is already a ParlorError."""

from __future__ import annotations

from typing import Any

from parlor.dictionary.v1 import dictionary_pb2 as pb
from parlor.dictionary.v1 import dictionary_pb2_grpc as pb_grpc
from parlor.kit import auth
from parlor.lexicon import DEFAULT_LIMIT, Registry, normalise_word


class DictionaryServicer(pb_grpc.DictionaryServiceServicer):
    def __init__(self, registry: Registry) -> None:
        self.registry = registry

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
        words = lexicon.anagrams(
            tiles,
            min_length=request.min_length or 2,
            use_all=request.use_all,
            limit=request.limit or DEFAULT_LIMIT,
        )
        return pb.FindAnagramsResponse(lexicon_id=lexicon.id, words=words)

    async def MatchPattern(
        self, request: pb.MatchPatternRequest, context: Any
    ) -> pb.MatchPatternResponse:
        auth.caller()
        lexicon = self.registry.get(request.lexicon)
        words = lexicon.pattern(request.pattern, limit=request.limit or DEFAULT_LIMIT)
        return pb.MatchPatternResponse(lexicon_id=lexicon.id, words=words)
