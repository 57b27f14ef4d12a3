"""Chat as a component: its rooms in the event store, its relay lane, its room bells."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from parlor.chat.v1 import chat_pb2, chat_pb2_grpc
from parlor.eventstore import BusHealth, PostgresEventStore, Subjects
from parlor.gametypes.catalogue import catalogue
from parlor.kit.server import BUS_HEALTH, Component, GrpcService
from parlor.kit.settings import BackendSettings, load
from parlor.runtime.backends import database, process_outbox
from parlor.runtime.bells import GameBells, ring_from_bus
from parlor.services.chat.facts import Games
from parlor.services.chat.rooms import CATEGORY, Rooms
from parlor.services.chat.servicer import ChatServicer
from parlor.services.chat.settings import ChatSettings

SERVICE_NAME = chat_pb2.DESCRIPTOR.services_by_name["ChatService"].full_name


def announced(event_type: str, data: bytes) -> tuple[str, bytes]:
    """What the bus carries of a room's event: its type alone, never its text (another
    replica's watchers read the room from the store when they hear of it)."""
    return event_type, b""


@contextlib.asynccontextmanager
async def chat() -> AsyncIterator[Component]:
    backend = load(BackendSettings)
    settings = load(ChatSettings)
    # The rooms' events are relayed by the process's one relay (its lane: "chat", each event
    # emptied of its text); NATS may not be there yet: the relay waits, chat goes on.
    async with (
        database(backend) as pools,
        process_outbox(backend, CATEGORY, announced) as outbox,
    ):
        store = PostgresEventStore(
            backend.database_url, pools=pools, partitions=backend.event_partitions
        )
        try:
            bells = GameBells()
            rooms = Rooms(store, settings.limits())
            servicer = ChatServicer(rooms, Games(store, catalogue()), settings, bells)
            subjects = Subjects(prefix=backend.nats_subject_prefix, stream=backend.nats_stream)
            unsubscribe = await ring_from_bus(outbox.bus, subjects, CATEGORY, bells)
            try:
                yield Component(
                    name=CATEGORY,
                    services=[
                        GrpcService(
                            SERVICE_NAME,
                            lambda server: chat_pb2_grpc.add_ChatServiceServicer_to_server(
                                servicer, server
                            ),
                        )
                    ],
                    tasks=[outbox.run],
                    checks={BUS_HEALTH: BusHealth(outbox.bus).problems},
                    extra={"rooms": rooms, "bells": bells},
                )
            finally:
                await unsubscribe()
        finally:
            await store.close()
