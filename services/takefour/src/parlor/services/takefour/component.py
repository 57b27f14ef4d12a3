"""The Take Four service as a component: backends, game host, dictionary client, bots, directory."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from parlor.gamehost import GameHost, Outcome
from parlor.gamehost.backends import game_backends
from parlor.gamehost.directory import Directory
from parlor.gamehost.sweeper import Sweeper
from parlor.gamehost.words import DictionarySettings
from parlor.kit.auth import AuthSettings
from parlor.kit.server import Component, GrpcService
from parlor.kit.settings import load, setting
from parlor.rules import takefour as tf
from parlor.services.takefour.bots import BotRunner, BotSettings
from parlor.services.takefour.game import BOT_LEVELS, BOT_PACE_SECONDS, CATEGORY, GAME, SERVICE_NAME
from parlor.services.takefour.game import rules as rules
from parlor.services.takefour.game import standings as standings
from parlor.services.takefour.queue import GameQueue
from parlor.services.takefour.servicer import State, TakeFourHost, TakeFourServicer
from parlor.services.takefour.store import CountingStore
from parlor.services.takefour.words import Dictionary
from parlor.takefour.v1 import takefour_pb2_grpc


@dataclass(frozen=True)
class TakeFourSettings:
    queue_per_game: bool = setting(
        "PARLOR_TAKEFOUR_QUEUE_PER_GAME",
        "queue commands on one game inside a replica (false: let them race and retry conflicts)",
        True,
    )


def bot_runner(host: TakeFourHost, servicer: TakeFourServicer, settings: BotSettings) -> BotRunner:
    """Bots act through the same path as players: seat check, verdicts, follow-up rounds."""

    async def load_game(game_id: str) -> tuple[tuple[str, ...], tf.TakeFourState, int]:
        table, version = await host.load(game_id)
        return tuple(s.player_id for s in table.seats), table.game, version

    async def act(
        game_id: str, player_id: str, seat: int, command: tf.TakeFourCommand, command_id: str
    ) -> None:
        await servicer.act(game_id, player_id, seat, lambda _: command, command_id)

    async def start_round(game_id: str) -> None:
        table, version = await host.load(game_id)
        await servicer.follow_up(game_id, Outcome(table, version, ()))

    return BotRunner(settings, BOT_LEVELS, load_game, act, start_round, paces=BOT_PACE_SECONDS)


@contextlib.asynccontextmanager
async def takefour() -> AsyncIterator[Component]:
    # Set up like every game service (game_backends), with the store counting appends and
    # conflicts (CountingStore: /metrics, the load test and the benchmark read the counts);
    # the relay publishes through ``public``: hands, grids and bags stay home.
    async with game_backends(CATEGORY, GAME.public, CountingStore) as backends:
        store = backends.store
        dictionary = Dictionary(load(DictionarySettings), load(AuthSettings))
        try:
            host: TakeFourHost = GameHost(
                CATEGORY, GAME.decider, GAME.codec, store, deadlines=backends.deadlines
            )
            runner: BotRunner | None = None

            def on_activity(game_id: str, table: State) -> None:
                if runner is not None:
                    runner.track(
                        game_id,
                        tuple(s.player_id for s in table.seats),
                        host.decider.is_terminal(table),
                    )

            service_settings = load(TakeFourSettings)
            queue = GameQueue() if service_settings.queue_per_game else None
            directory = Directory(store.engine, CATEGORY)
            servicer = TakeFourServicer(host, dictionary, on_activity, queue, directory)
            runner = bot_runner(host, servicer, load(BotSettings))
            async with backends.ringing(host.doorbell):
                yield Component(
                    name=CATEGORY,
                    tasks=[
                        *backends.tasks(
                            servicer.create_from_match,
                            Sweeper(host, backends.deadlines, servicer.after),
                        ),
                        runner.run,
                    ],
                    ready=backends.ready,
                    services=[
                        GrpcService(
                            SERVICE_NAME,
                            lambda server: takefour_pb2_grpc.add_TakeFourServiceServicer_to_server(
                                servicer, server
                            ),
                        )
                    ],
                    extra={
                        "store": store,
                        "host": host,
                        "bots": runner,
                        "dictionary": dictionary,
                        "servicer": servicer,
                    },
                )
        finally:
            await dictionary.close()
