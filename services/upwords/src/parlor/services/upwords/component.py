"""The Upwords service as a component: its store, game host, dictionary client and relay."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable

from parlor.eventstore import JetStreamBus, PostgresEventStore, Subjects
from parlor.gamehost import GameHost
from parlor.gamehost.bell import ring_from_bus
from parlor.gamehost.matches import consume_matches
from parlor.gamehost.outbox import category_relay
from parlor.gamehost.seating import Seated, Standing
from parlor.kit.auth import AuthSettings, issue_token
from parlor.kit.server import Component, GrpcService
from parlor.kit.settings import BackendSettings, load
from parlor.rules import upwords as uw
from parlor.services.upwords.bots import Bots, BotSettings
from parlor.services.upwords.codec import Codec, public
from parlor.services.upwords.dictionary import Dictionary, DictionarySettings
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


def service_token(auth: AuthSettings) -> Callable[[], str]:
    """The service's own token for the dictionary, renewed well before it expires."""
    held: dict[str, float | str] = {"token": "", "renew_at": 0.0}

    def token() -> str:
        now = time.time()
        if now >= float(held["renew_at"]):
            held["token"] = issue_token(auth, f"service:{CATEGORY}", roles=("service",), now=now)
            held["renew_at"] = now + auth.token_ttl_seconds / 2
        return str(held["token"])

    return token


@contextlib.asynccontextmanager
async def upwords() -> AsyncIterator[Component]:
    settings = load(BackendSettings)
    words = load(DictionarySettings)
    auth = load(AuthSettings)
    store = PostgresEventStore(settings.database_url, pool_size=settings.database_pool_size)
    subjects = Subjects(prefix=settings.nats_subject_prefix, stream=settings.nats_stream)
    bus = await JetStreamBus.connect(settings.nats_url, subjects)
    await bus.ensure_streams()
    host = GameHost(CATEGORY, rules(), Codec(), store)
    relay = category_relay(store, bus, CATEGORY, public)  # racks and the bag never leave
    dictionary = Dictionary(words.target, service_token(auth), words.timeout_seconds)
    servicer = UpwordsServicer(host, dictionary, Bots(load(BotSettings).words))
    unsubscribe = await ring_from_bus(bus, subjects, CATEGORY, host.doorbell)
    try:
        yield Component(
            name=CATEGORY,
            tasks=[relay.run, lambda: consume_matches(bus, CATEGORY, servicer.create_from_match)],
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
        await unsubscribe()
        await dictionary.close()
        await bus.close()
        await store.close()
