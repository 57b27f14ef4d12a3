"""Upwords over real gRPC: the dictionary on its own server, Upwords pointed at it.

Both run in-process on the session's PostgreSQL and NATS (``start_platform``);
the dictionary starts first so its port can go into ``PARLOR_DICTIONARY_TARGET``,
the same way a deployment points the game service at the dictionary service.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from parlor.dictionary.v1 import dictionary_pb2 as dpb
from parlor.dictionary.v1 import dictionary_pb2_grpc as dpb_grpc
from parlor.gamehost.wire.service import GameService
from parlor.gamehost.words.botwords import built_index
from parlor.lexicon import enable1
from parlor.rules.upwords.bot import UpwordsBot
from parlor.services.upwords.game import GAME as UW


@dataclass
class UpwordsPlatform:
    """The Upwords server (``platform``), the dictionary's, and the lexicon id games record."""

    platform: object
    dictionary: object
    lexicon_id: str

    def channel(self, player_id: str | None = None):  # type: ignore[no-untyped-def]
        return self.platform.channel(player_id)  # type: ignore[attr-defined]

    def service_channel(self):  # type: ignore[no-untyped-def]
        from parlor.kit import client

        token = self.platform.token("service:tests", roles=("service",))  # type: ignore[attr-defined]
        return client.channel(self.platform.target, token)  # type: ignore[attr-defined]

    @property
    def servicer(self) -> GameService:  # type: ignore[type-arg]
        server = self.platform.server  # type: ignore[attr-defined]
        (component,) = [c for c in server.components if c.name == "upwords"]
        servicer = component.extra["servicer"]
        assert isinstance(servicer, GameService)
        assert servicer.game is UW
        return servicer


@pytest.fixture(scope="module")
async def upwords(start_platform) -> AsyncIterator[UpwordsPlatform]:  # type: ignore[no-untyped-def]
    async with start_platform("dictionary") as dictionary:
        saved = os.environ.get("PARLOR_DICTIONARY_TARGET")
        os.environ["PARLOR_DICTIONARY_TARGET"] = dictionary.target
        try:
            async with start_platform("upwords") as platform, dictionary.channel("probe") as ch:
                lexicons = await dpb_grpc.DictionaryServiceStub(ch).ListLexicons(
                    dpb.ListLexiconsRequest()
                )
                (default,) = [lex.id for lex in lexicons.lexicons if lex.is_default]
                yield UpwordsPlatform(platform, dictionary, default)
        finally:
            if saved is None:
                os.environ.pop("PARLOR_DICTIONARY_TARGET", None)
            else:
                os.environ["PARLOR_DICTIONARY_TARGET"] = saved


@pytest.fixture(scope="session")
def helper_bot() -> UpwordsBot:
    """The test's own player: finds good plays from a rack it was shown (ENABLE).

    The same word graph the service's bots use in this process, built once.
    """
    return built_index(UpwordsBot)


@pytest.fixture(scope="session")
def words() -> frozenset[str]:
    return frozenset(enable1().words())
