"""The Upwords service as a component: its store, game host, dictionary client and relay."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from parlor.gamehost import GameHost
from parlor.gamehost.backends import game_backends
from parlor.gamehost.directory import Directory
from parlor.gamehost.sweeper import Sweeper
from parlor.gamehost.words import Dictionary, DictionarySettings, service_token
from parlor.kit.auth import AuthSettings
from parlor.kit.server import Component, GrpcService
from parlor.kit.settings import load
from parlor.services.upwords.bots import Bots, BotSettings
from parlor.services.upwords.game import CATEGORY, GAME, SERVICE_NAME
from parlor.services.upwords.game import rules as rules
from parlor.services.upwords.game import standings as standings
from parlor.services.upwords.servicer import UpwordsServicer
from parlor.upwords.v1 import upwords_pb2_grpc


@contextlib.asynccontextmanager
async def upwords() -> AsyncIterator[Component]:
    words = load(DictionarySettings)
    auth = load(AuthSettings)
    bots = Bots(load(BotSettings).words)
    async with game_backends(CATEGORY, GAME.public) as backends:  # racks and the bag never leave
        host = GameHost(
            CATEGORY, GAME.decider, GAME.codec, backends.store, deadlines=backends.deadlines
        )
        dictionary = Dictionary(words.target, service_token(auth, CATEGORY), words.timeout_seconds)
        servicer = UpwordsServicer(
            host, dictionary, bots, directory=Directory(backends.store.engine, CATEGORY)
        )
        try:
            async with backends.ringing(host.doorbell):
                yield Component(
                    name=CATEGORY,
                    tasks=backends.tasks(
                        servicer.create_from_match,
                        Sweeper(host, backends.deadlines, servicer.after),
                    ),
                    ready=backends.ready,
                    services=[
                        GrpcService(
                            SERVICE_NAME,
                            lambda server: upwords_pb2_grpc.add_UpwordsServiceServicer_to_server(
                                servicer, server
                            ),
                        )
                    ],
                    extra={"servicer": servicer},
                )
        finally:
            await dictionary.close()
