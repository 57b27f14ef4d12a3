"""A bot written from docs/bots.md (the Python starter bot, examples/bots/parlor_bot.py,
unchanged) plays 100 games over one stream against people's clients and Parlor's own bots,
through a platform restart in the middle.

Ten people (scripted clients, each on its own WatchPlayer stream) challenge the bot by
handle, half of the games with a Parlor bot (``bot:random``) at the table too, and some ask
the matchmaker for a bot opponent (SeekBot) instead. Halfway, the whole platform stops and
starts again (its clients reach it through one proxy address, as through a load balancer);
the bot carries on from the position it kept. Then, from the bot's own call log and the
event store: every game finished by its rules (no timeout: no move lost), no call that
polls (one WatchPlayer per connection, one GetGame per "your turn" notice, no ListGames or
GetChallenge), no move command sent twice, every reconnect from the last position handled
(never 0, "from now", again: the turns noted meanwhile would be skipped and their games
left waiting), and the positions it kept went forward only and end at its inbox's last."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections import Counter
from typing import Any

import grpc
import pytest
from kits.bots import leave_pool, register_bot, starter_bot
from kits.proxy import SilentProxy

from parlor.bots.v1 import bots_pb2 as bpb
from parlor.bots.v1 import bots_pb2_grpc as bpb_grpc
from parlor.challenges.v1 import challenges_pb2 as ch
from parlor.challenges.v1 import challenges_pb2_grpc as ch_grpc
from parlor.client import ParlorClient
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.eventstore import PostgresEventStore
from parlor.kit import client
from parlor.kit.status import reason_of
from parlor.services.matchmaking.challenges import inbox_stream
from parlor.services.matchmaking.turnfeed import TURN

pytestmark = [pytest.mark.integration]

GAMES = 100
PEOPLE = 10
AT_ONCE = 2
"""Games each person has going at once (the bot: PEOPLE * AT_ONCE)."""
SEEK_EVERY = 5
"""Every fifth game of a person is asked of the matchmaker (SeekBot), not a challenge."""


async def retrying(call: Any, *args: Any) -> Any:
    """A person's client across the restart: UNAVAILABLE is tried again, and ABORTED (a
    person's two games' challenges written at once: nothing was)."""
    for _ in range(200):
        try:
            return await call(*args)
        except grpc.aio.AioRpcError as exc:
            if exc.code() not in (
                grpc.StatusCode.UNAVAILABLE,
                grpc.StatusCode.CANCELLED,
                grpc.StatusCode.ABORTED,
            ):
                raise
        await asyncio.sleep(0.2)
    raise AssertionError("the platform never came back")


class Person:
    """A person's client: a WatchPlayer stream (moves on "your turn", the first legal
    move), and games made one after the other, ``AT_ONCE`` at a time."""

    def __init__(self, target: str, token: str, bot_handle: str, bot_id: str) -> None:
        self.target, self.token = target, token
        self.bot_handle, self.bot_id = bot_handle, bot_id
        self.position = 0
        self.finished: list[c4.Game] = []

    async def follow(self) -> None:
        while True:
            with contextlib.suppress(grpc.aio.AioRpcError):
                async with client.channel(self.target, self.token) as channel:
                    inbox = ch_grpc.ChallengeServiceStub(channel)
                    games = c4_grpc.Connect4x4ServiceStub(channel)
                    watch = inbox.WatchPlayer(ch.WatchPlayerRequest(after=self.position))
                    async for message in watch:
                        for notice in message.notices:
                            if notice.kind == ch.NOTICE_KIND_YOUR_TURN:
                                await self.move(games, notice)
                        self.position = message.position
            await asyncio.sleep(0.2)

    async def move(self, games: Any, notice: Any) -> None:
        try:
            seen = (await games.GetGame(c4.GetGameRequest(game_id=notice.game_id))).game
            if seen.version == notice.game_version and seen.legal_moves:
                await games.PlayMove(
                    c4.PlayMoveRequest(
                        game_id=notice.game_id,
                        move=seen.legal_moves[0],
                        command_id=f"{notice.game_id}-{seen.version}",
                    )
                )
        except grpc.aio.AioRpcError as exc:
            if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
                raise  # not answered: handled again after the reconnect

    async def play(self, n: int, games_left: list[int]) -> None:
        async with client.channel(self.target, self.token) as channel:
            while games_left[0] > 0:
                games_left[0] -= 1
                game_id = await self.start(channel, n)
                n += AT_ONCE
                if game_id:
                    self.finished.append(await self.until_over(channel, game_id))

    async def start(self, channel: Any, n: int) -> str:
        if n % SEEK_EVERY == 0:
            while True:
                try:
                    made = await retrying(
                        bpb_grpc.BotServiceStub(channel).SeekBot,
                        bpb.SeekBotRequest(game_type="connect4x4"),
                    )
                    break
                except grpc.aio.AioRpcError as exc:  # the bot is full (or not yet declared)
                    if reason_of(exc) != "NO_BOT_AVAILABLE":
                        raise
                    await asyncio.sleep(0.3)
            assert made.bot.bot_id == self.bot_id  # the only bot offered in this run
            return str(made.challenge.match_id)
        challenges = ch_grpc.ChallengeServiceStub(channel)
        made = await retrying(
            challenges.CreateChallenge,
            ch.CreateChallengeRequest(
                game_type="connect4x4",
                invitees=[self.bot_handle],
                bots=["random"] if n % 2 else [],
                seat_choice=ch.SEAT_CHOICE_RANDOM,
            ),
        )
        challenge_id = made.challenge.challenge_id
        while True:  # the bot accepts it from its stream
            got = await retrying(
                challenges.GetChallenge, ch.GetChallengeRequest(challenge_id=challenge_id)
            )
            if got.challenge.match_id:
                return str(got.challenge.match_id)
            assert got.challenge.status == ch.CHALLENGE_STATUS_PENDING, got.challenge
            await asyncio.sleep(0.2)

    async def until_over(self, channel: Any, game_id: str) -> c4.Game:
        games = c4_grpc.Connect4x4ServiceStub(channel)
        while True:
            try:
                game = (await retrying(games.GetGame, c4.GetGameRequest(game_id=game_id))).game
            except grpc.aio.AioRpcError as exc:
                if exc.code() != grpc.StatusCode.NOT_FOUND:  # the match's game comes next
                    raise
            else:
                if game.status != c4.STATUS_IN_PROGRESS:
                    return game
            await asyncio.sleep(0.3)


async def test_a_starter_bot_plays_a_hundred_games_over_one_stream_through_a_restart(
    start_platform: Any, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for scope in ("ADDRESS", "NETWORK", "SITE"):
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    monkeypatch.setenv("PARLOR_CHALLENGES_PER_HOUR", "0")
    monkeypatch.setenv("PARLOR_CHALLENGES_MAX_OUTSTANDING", "0")
    monkeypatch.setenv("PARLOR_TURN_FEED_POLL_SECONDS", "0.05")
    monkeypatch.setenv("PARLOR_RATE_LIMIT_PER_SECOND", "0")

    # the bot's log: every call it makes, by request type
    calls: Counter[str] = Counter()
    commands: list[str] = []
    afters: list[int] = []
    call, stream = ParlorClient.call, ParlorClient.stream

    async def logged_call(self: Any, method: Any, request: Any, **kw: Any) -> Any:
        calls[type(request).__name__] += 1
        answered = await call(self, method, request, **kw)
        if isinstance(request, c4.PlayMoveRequest):
            # a move answered; one the restart left unanswered is sent again, with its id
            commands.append(request.command_id)
        return answered

    def logged_stream(self: Any, method: Any, request: Any) -> Any:
        calls[type(request).__name__] += 1
        afters.append(request.after)
        return stream(self, method, request)

    monkeypatch.setattr(ParlorClient, "call", logged_call)
    monkeypatch.setattr(ParlorClient, "stream", logged_stream)

    bot_program = starter_bot()
    first = start_platform("matchmaking", "connect4x4")
    platform = await first.__aenter__()
    running: Any = first
    positions: list[int] = []
    tasks: list[asyncio.Task[Any]] = []
    try:
        async with SilentProxy(platform.server.port) as proxy:
            bot = await register_bot(platform, max_games=PEOPLE * AT_ONCE + 2)
            tasks.append(
                asyncio.create_task(
                    bot_program.play(
                        proxy.target, bot.secret, 0, positions.append, PEOPLE * AT_ONCE + 2
                    )
                )
            )
            people = [
                Person(
                    proxy.target,
                    platform.token("guest-" + secrets.token_hex(8)),
                    bot.handle,
                    bot.bot_id,
                )
                for _ in range(PEOPLE)
            ]
            tasks += [asyncio.create_task(p.follow()) for p in people]
            left = [GAMES]
            players = [
                asyncio.create_task(p.play(i * AT_ONCE + k, left))
                for i, p in enumerate(people)
                for k in range(AT_ONCE)
            ]

            def done() -> int:
                for task in tasks:
                    if task.done():
                        task.result()  # a client that failed fails the test
                return sum(len(p.finished) for p in people)

            while done() < GAMES // 2:  # noqa: ASYNC110 (the clients' progress, read)
                await asyncio.sleep(0.2)
            # the whole platform stops and starts again; its clients keep one address
            await first.__aexit__(None, None, None)
            running = None
            second = start_platform("matchmaking", "connect4x4")
            platform = await second.__aenter__()
            running = second
            proxy.upstream = platform.server.port
            for _ in range(1200):  # at most 240 s
                if all(p.done() for p in players):
                    break
                done()
                await asyncio.sleep(0.2)
            assert all(p.done() for p in players), f"{done()} games finished"
            for player in players:
                player.result()
            assert done() == GAMES
            await leave_pool(platform, bot)
    finally:
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if running is not None:
            await running.__aexit__(None, None, None)

    finished = [g for p in people for g in p.finished]
    assert len(finished) == GAMES
    assert all(g.status in (c4.STATUS_WON, c4.STATUS_TIED) for g in finished)
    assert not [g.end_reason for g in finished if g.end_reason in ("timeout", "aborted")]
    assert all(bot.bot_id in {s.player_id for s in g.seats} for g in finished)
    with_bots = sum(1 for g in finished if any(s.player_id == "bot:random" for s in g.seats))
    assert with_bots >= GAMES * 3 // 10

    store = PostgresEventStore(database_url)
    try:
        inbox = await store.read_stream(inbox_stream(bot.bot_id))
    finally:
        await store.close()
    turns = sum(1 for e in inbox if e.type == TURN)
    # one stream per connection (the first, and one or two around the restart), no polling
    assert 1 <= calls["WatchPlayerRequest"] <= 4
    # each reconnect resumes from the last position handled, never from 0 ("from now")
    assert afters[0] == 0
    assert all(afters[1:]), afters
    assert afters == sorted(afters)
    assert not calls["ListGamesRequest"]
    assert not calls["GetChallengeRequest"]
    assert turns <= calls["GetGameRequest"] <= turns + calls["WatchPlayerRequest"]
    # no move answered twice; positions forward only, to the inbox's last
    assert len(commands) == len(set(commands))
    assert positions == sorted(set(positions))
    assert positions[-1] == inbox[-1].version
