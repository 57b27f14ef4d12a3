"""Matchmaking (with guest identity) as a component: its tables, rounds, sweep and relay."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from datetime import timedelta

from parlor.accounts import GUEST_CLAIM_CATEGORY
from parlor.admission.opengames import OpenGamesSettings
from parlor.bots.v1 import bots_pb2, bots_pb2_grpc
from parlor.challenges.v1 import challenges_pb2, challenges_pb2_grpc
from parlor.directory.projection import Directory, game_directory
from parlor.eventstore import BusHealth, PostgresEventStore
from parlor.gametypes.catalogue import CataloguedGame
from parlor.identity.v1 import identity_pb2, identity_pb2_grpc
from parlor.kit.auth import AuthSettings
from parlor.kit.server import BUS_HEALTH, Component, GrpcService
from parlor.kit.settings import BackendSettings, load
from parlor.matchmaking.v1 import matchmaking_pb2, matchmaking_pb2_grpc
from parlor.runtime.backends import database, process_outbox
from parlor.runtime.outbox import category_lane, everything
from parlor.services.matchmaking.accounts import Accounts
from parlor.services.matchmaking.board import TicketBoard
from parlor.services.matchmaking.botmatch import BotMatcher
from parlor.services.matchmaking.bots import Bots, BotScreen, BotServicer
from parlor.services.matchmaking.challenger import ChallengeServicer
from parlor.services.matchmaking.challenges import Challenges
from parlor.services.matchmaking.games import GAME_TYPES
from parlor.services.matchmaking.identity import IdentityServicer
from parlor.services.matchmaking.migrate import migrate
from parlor.services.matchmaking.oidc import OidcSettings, Providers, provider_configs
from parlor.services.matchmaking.passwords import Passwords, PasswordSettings
from parlor.services.matchmaking.retention import Retention, run_sweeps
from parlor.services.matchmaking.rounds import CATEGORY, Rounds
from parlor.services.matchmaking.schedule import RoundSchedule
from parlor.services.matchmaking.servicer import MatchmakingServicer
from parlor.services.matchmaking.settings import MatchmakingSettings
from parlor.services.matchmaking.signin import SignIns
from parlor.services.matchmaking.tickets import Lobbies, Tickets
from parlor.services.matchmaking.turnfeed import TurnFeed

log = logging.getLogger("parlor.services.matchmaking")

MATCHMAKING_SERVICE = matchmaking_pb2.DESCRIPTOR.services_by_name["MatchmakingService"].full_name
CHALLENGE_SERVICE = challenges_pb2.DESCRIPTOR.services_by_name["ChallengeService"].full_name
IDENTITY_SERVICE = identity_pb2.DESCRIPTOR.services_by_name["IdentityService"].full_name
BOT_SERVICE = bots_pb2.DESCRIPTOR.services_by_name["BotService"].full_name
PUBLIC_METHODS = frozenset(
    f"/{IDENTITY_SERVICE}/{name}"
    for name in (
        "IssueGuestToken",
        "BeginSignIn",
        "CompleteSignIn",
        "RenewSession",
        "SignOut",
        "SignUpWithPassword",
        "SignInWithPassword",
    )
) | {f"/{BOT_SERVICE}/ExchangeBotSecret"}
"""Callable without a token: getting a first token, signing in (through a provider, or with
a handle and a password), and the calls whose credential is a refresh token or a bot's secret
(all under the limits of tokenless calls)."""


async def run_rounds(rounds: Rounds, schedule: RoundSchedule, board: TicketBoard) -> None:
    """Forever: each game type's round when ``schedule`` says it is due (a ticket changed
    here, the time reached what could change its outcome, a retry), and at each idle sweep a
    round of every game type with waiting tickets; a failed round is logged and retried."""
    while True:
        due = await schedule.due()
        if schedule.sweep_due:
            try:
                waiting = await rounds.waiting(schedule.game_types)
            except Exception:
                log.exception("looking for waiting tickets failed")
                waiting = list(schedule.game_types)
            schedule.swept(waiting)
            due = [g for g in schedule.game_types if g in due or g in waiting]
        for game in due:
            changes = schedule.changes(game)
            schedule.started(game)
            try:
                ran = await rounds.run_timed(game)
            except Exception:
                log.exception("matching round failed", extra={"game_type": game})
                schedule.again(game)
                continue
            if ran is None:  # another replica's round: it may have missed this one's change
                schedule.again(game)
                continue
            schedule.ran(game, ran.next_change, changes)
            if ran.round.consumed:
                board.ring()


@contextlib.asynccontextmanager
async def matchmaking() -> AsyncIterator[Component]:
    backend = load(BackendSettings)
    settings = load(MatchmakingSettings)
    auth = load(AuthSettings)
    oidc = load(OidcSettings)
    provider_configs(oidc)  # a malformed provider setting stops the start, naming it
    await migrate(backend.database_url)
    # MatchFormed (it hides nothing) is relayed by the process's one relay, beside the games'
    # lanes; a matchmaking pod's relay has only this lane. NATS may not be there yet: the bus
    # keeps trying and parlor.bus reports NOT_SERVING, while tickets and matches go on (the
    # relay publishes the matches once NATS answers). The store draws on the process's pools.
    async with database(backend) as pools, process_outbox(backend, CATEGORY, everything) as outbox:
        store = PostgresEventStore(
            backend.database_url, pools=pools, partitions=backend.event_partitions
        )
        providers: Providers | None = None  # closed at the end, if made before a failure
        try:
            # The server's max payload, read at each append: NATS may answer only later.
            bus = outbox.bus
            # Guest claims (two player ids, nothing personal) go to the bus for scoring; no
            # other account stream has a lane, so handles and subjects never reach NATS.
            if GUEST_CLAIM_CATEGORY not in outbox.relay.lanes:
                outbox.relay.add_lane(category_lane(GUEST_CLAIM_CATEGORY, everything))
            store.limit_events_to(lambda: bus.max_payload)
            tickets = Tickets(store.engine, timedelta(seconds=settings.expire_seconds))
            # WatchTicket's watchers wait on the board: one poll for all of them, every
            # 0.5 s and at once when this process's rounds or cancels ring it.
            board = TicketBoard(tickets)
            rounds = Rounds(store, settings.policy())
            # Rounds run when tickets change here or time could change a round's outcome,
            # not every pause whatever happened; a sweep every idle_round_seconds catches
            # what no one here was told of.
            schedule = RoundSchedule(
                settings.game_types, settings.round_seconds, settings.idle_round_seconds
            )
            # Finished rows go after the retention; every replica sweeps (SKIP LOCKED).
            retention = Retention(store.engine, timedelta(hours=settings.retention_hours))
            # A player's unfinished games, per game type, as the game directory (the same
            # database's, caught up from the events) counts them.
            directories: dict[str, Directory] = {}

            def open_games(game: CataloguedGame) -> Directory:
                if game.category not in directories:
                    directories[game.category] = game_directory(store.engine, game)
                return directories[game.category]

            servicer = MatchmakingServicer(
                tickets,
                Lobbies(store.engine),
                settings.game_types,
                board,
                open_games,
                load(OpenGamesSettings).max_per_player,
                bot_fill_after=settings.policy().bot_fill_after,
                heartbeat_seconds=settings.watch_heartbeat_seconds,
                changed=schedule.changed,
            )
            # Accounts and their sign-ins live in the same event store (their streams are
            # not relayed); the OpenID Connect providers share one HTTP client.
            accounts = Accounts(store)
            providers = Providers(provider_configs(oidc))
            sign_ins = SignIns(store, accounts, providers, auth, oidc)
            passwords = Passwords(store, accounts, sign_ins, load(PasswordSettings))
            # Bot accounts: their streams in the same store, their handles claimed as accounts'.
            bots = BotServicer(auth, Bots(store, accounts), settings.game_types)
            identity = IdentityServicer(auth, accounts, sign_ins, passwords, bots.bots.handles)
            # Challenges: their streams in the same store; an accepted one's MatchFormed goes
            # out through this process's relay as a round's does.
            challenges = Challenges(
                store,
                max_outstanding=settings.challenges_max_outstanding,
                per_hour=settings.challenges_per_hour,
                declines_per_day=settings.challenges_declines_per_day,
            )
            screen = BotScreen(bots.bots, challenges, settings.game_types, open_games)
            challenger = ChallengeServicer(
                challenges,
                accounts,
                settings.game_types,
                settings.challenge_expire_seconds,
                open_games,
                load(OpenGamesSettings).max_per_player,
                directories=open_games,
                keepalive_seconds=settings.challenges_keepalive_seconds,
                # what a bot cannot take is declined for it at once, with a reason
                declines=screen.declines,
            )
            # bot accounts in the matchmaker (SeekBot): people's and bots' games against them
            bots.seek = BotMatcher(
                bots.bots,
                challenges,
                screen,
                settings.game_types,
                ratings=tickets.rating,
                per_owner_per_hour=settings.bot_games_per_owner_per_hour,
                rated_with_people=settings.bots_rated_with_people,
                check_open_games=challenger._check_open_games,
            ).answer
            # 'Your turn' in the players' inboxes, from every game type's streams.
            turns = TurnFeed(
                store,
                [GAME_TYPES[g] for g in settings.game_types if g in GAME_TYPES],
                challenger.watch.bells.ring,
                poll_seconds=settings.turn_feed_poll_seconds,
                # a bot account that ran out of time is offered no more until it declares
                timed_out=bots.bots.mark_unavailable,
            )
            yield Component(
                name=CATEGORY,
                services=[
                    GrpcService(
                        MATCHMAKING_SERVICE,
                        lambda server: (
                            matchmaking_pb2_grpc.add_MatchmakingServiceServicer_to_server(
                                servicer, server
                            )
                        ),
                    ),
                    GrpcService(
                        CHALLENGE_SERVICE,
                        lambda server: challenges_pb2_grpc.add_ChallengeServiceServicer_to_server(
                            challenger, server
                        ),
                    ),
                    GrpcService(
                        IDENTITY_SERVICE,
                        lambda server: identity_pb2_grpc.add_IdentityServiceServicer_to_server(
                            identity, server
                        ),
                    ),
                    GrpcService(
                        BOT_SERVICE,
                        lambda server: bots_pb2_grpc.add_BotServiceServicer_to_server(bots, server),
                    ),
                ],
                tasks=[
                    outbox.run,
                    lambda: run_rounds(rounds, schedule, board),
                    board.run,
                    turns.run,
                    lambda: run_sweeps(retention),
                ],
                public_methods=PUBLIC_METHODS,
                checks={BUS_HEALTH: BusHealth(outbox.bus).problems},
                extra={
                    "rounds": rounds,
                    "schedule": schedule,
                    "tickets": tickets,
                    "board": board,
                    "retention": retention,
                    "accounts": accounts,
                    "bots": bots.bots,
                    "challenges": challenges,
                    "turns": turns,
                    "providers": providers,
                },
            )
        finally:
            if providers is not None:
                await providers.close()
            await store.close()
