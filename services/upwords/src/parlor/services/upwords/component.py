"""The Upwords service as a component: its store, game host, dictionary client and relay."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from parlor.gamehost import GameHost
from parlor.gamehost.backends import game_backends
from parlor.gamehost.directory import Directory
from parlor.gamehost.seating import Seated, Standing
from parlor.gamehost.words import Dictionary, DictionarySettings, service_token
from parlor.kit.auth import AuthSettings
from parlor.kit.server import Component, GrpcService
from parlor.kit.settings import load
from parlor.rules import upwords as uw
from parlor.services.upwords.bots import Bots, BotSettings
from parlor.services.upwords.codec import Codec, public
from parlor.services.upwords.servicer import UpwordsServicer
from parlor.upwords.v1 import upwords_pb2, upwords_pb2_grpc

CATEGORY = "upwords"
SERVICE_NAME = upwords_pb2.DESCRIPTOR.services_by_name["UpwordsService"].full_name


def standings(state: uw.UpwordsState) -> tuple[str, tuple[Standing, ...]]:
    """Winners first; the others by final score, behind every winner (a resigner never wins)."""
    scores = state.scores
    winners = set(state.winners)
    ranked: list[Standing] = []
    for seat, score in enumerate(scores):
        if seat in winners:
            ranked.append(Standing(1, score))
            continue
        ahead = sum(1 for other in range(len(scores)) if other in winners or scores[other] > score)
        ranked.append(Standing(1 + ahead, score))
    return state.end_reason, tuple(ranked)


def rules() -> Seated[uw.UpwordsState, uw.Command, uw.Event]:
    return Seated(uw.UPWORDS, 2, 4, standings)


@contextlib.asynccontextmanager
async def upwords() -> AsyncIterator[Component]:
    words = load(DictionarySettings)
    auth = load(AuthSettings)
    bots = Bots(load(BotSettings).words)
    async with game_backends(CATEGORY, public) as backends:  # racks and the bag never leave
        host = GameHost(CATEGORY, rules(), Codec(), backends.store)
        dictionary = Dictionary(words.target, service_token(auth, CATEGORY), words.timeout_seconds)
        servicer = UpwordsServicer(
            host, dictionary, bots, directory=Directory(backends.store.engine, CATEGORY)
        )
        try:
            async with backends.ringing(host.doorbell):
                yield Component(
                    name=CATEGORY,
                    tasks=backends.tasks(servicer.create_from_match),
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
