"""Erasure without breaking history (issue 40): an account signs in through the provider,
registers a bot, plays a rated game, says something in its game's chat and is erased. Its
handle, display name, provider subject, the name its client gave, its words in chat (a
message and a report's reason) and its bot's handle and description are then readable
nowhere: not in any table of
PostgreSQL (every row of every table searched, as text and as bytes), not in any message
JetStream keeps, not through the API. Its game still verifies (``parlor verify``'s check),
and the scoring rebuild gives every row back."""

from __future__ import annotations

import os
from typing import Any

import grpc
import nats
import psycopg
import pytest
from kits.scoring import eventually, snapshot
from nats.js.errors import NotFoundError
from oidc_provider import refusal, sign_in

from parlor.bots.v1 import bots_pb2 as bots
from parlor.bots.v1 import bots_pb2_grpc as bots_grpc
from parlor.chat.v1 import chat_pb2 as chat
from parlor.chat.v1 import chat_pb2_grpc as chat_grpc
from parlor.cli.verifying import verify_stream
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.eventstore import PostgresEventStore
from parlor.gamehost.pipeline.games import game_types
from parlor.identity.v1 import identity_pb2 as pb
from parlor.identity.v1 import identity_pb2_grpc as pb_grpc
from parlor.kit import client
from parlor.scoring.v1 import scoring_pb2 as sc
from parlor.scoring.v1 import scoring_pb2_grpc as sc_grpc

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def found_in_postgres(database_url: str, needles: list[str]) -> list[str]:
    """Every row of every table holding a needle, as text or (bytea) as hex."""
    wanted = [(n, n.lower(), n.encode().hex()) for n in needles]
    hits = []
    with psycopg.connect(database_url) as conn:
        tables = conn.execute(
            "SELECT table_schema, table_name FROM information_schema.tables"
            " WHERE table_type = 'BASE TABLE'"
            " AND table_schema NOT IN ('pg_catalog', 'information_schema')"
        ).fetchall()
        for schema, table in tables:
            for (row,) in conn.execute(f'SELECT t::text FROM "{schema}"."{table}" t'):
                low = row.lower()
                hits += [
                    f"{table}: {n}"
                    for n, lowered, hexed in wanted
                    if lowered in low or hexed in low
                ]
    return hits


async def found_on_jetstream(nats_url: str, needles: list[str]) -> list[str]:
    """Every message JetStream keeps in this run's stream (subject, headers, payload)."""
    bus = await nats.connect(nats_url)
    try:
        js = bus.jetstream()
        stream = os.environ["PARLOR_NATS_STREAM"]
        info = await js.stream_info(stream)
        hits = []
        for seq in range(info.state.first_seq, info.state.last_seq + 1):
            try:
                msg = await js.get_msg(stream, seq)
            except NotFoundError:
                continue
            seen = (msg.subject + repr(msg.headers)).encode() + (msg.data or b"")
            hits += [f"{msg.subject}: {n}" for n in needles if n.lower().encode() in seen.lower()]
        return hits
    finally:
        await bus.close()


async def test_an_erased_account_is_readable_nowhere_and_its_game_still_verifies(
    accounts_platform: Any, database_url: str, nats_url: str, unique: str
) -> None:
    subject = f"erin-subject-{unique}"
    handle = f"erin{unique[:12]}"
    device = f"Erin's laptop {unique}"
    said = f"Erin here, from Lyon {unique}"
    reported = f"Erin finds this rude {unique}"
    bot_handle, bot_about = f"ebot{unique[:12]}", f"Erin's own bot {unique}"
    async with accounts_platform("matchmaking", "scoring", "connect4x4", "chat") as platform:
        anonymous = client.channel(platform.target, None)
        seater = client.channel(
            platform.target, platform.token("service:matchmaking", roles=("service",))
        )
        other = f"o{unique}"
        rival = platform.channel(other)
        try:
            identity = pb_grpc.IdentityServiceStub(anonymous)
            done, _, _ = await sign_in(identity, subject, handle, client=device)
            account = done.account.player_id
            assert (done.account.handle, done.account.display_name) == (handle, handle)
            mine = client.channel(platform.target, done.access_token)
            me = pb_grpc.IdentityServiceStub(mine)
            assert [s.client for s in (await me.ListSessions(pb.ListSessionsRequest())).sessions]
            needles = [handle, subject, device, said, reported, bot_handle, bot_about]
            registered = await bots_grpc.BotServiceStub(mine).RegisterBot(
                bots.RegisterBotRequest(handle=bot_handle, description=bot_about)
            )
            bot_id = registered.bot.bot_id
            assert found_in_postgres(database_url, [subject]) == []  # sealed from the start

            # a rated game, to the end, scored
            created = await c4_grpc.Connect4x4ServiceStub(seater).CreateGame(
                c4.CreateGameRequest(seats=[common_pb2.Seat(player_id=p) for p in (account, other)])
            )
            game_id = created.game.game_id
            stubs = [c4_grpc.Connect4x4ServiceStub(mine), c4_grpc.Connect4x4ServiceStub(rival)]
            for n, move in enumerate(("af", "bf", "cf", "df")):
                await stubs[n % 2].PlayMove(c4.PlayMoveRequest(game_id=game_id, move=move))
            await stubs[1].Resign(c4.ResignRequest(game_id=game_id))
            room = chat.Room(kind=chat.ROOM_KIND_PLAYERS, game_type="connect4x4", game_id=game_id)
            my_chat = chat_grpc.ChatServiceStub(mine)
            await my_chat.SetChatEnabled(chat.SetChatEnabledRequest(enabled=True))
            await my_chat.PostMessage(chat.PostMessageRequest(room=room, text=said))
            their_chat = chat_grpc.ChatServiceStub(rival)
            history = await their_chat.GetRoomHistory(chat.GetRoomHistoryRequest(room=room))
            assert [m.message.text for m in history.items] == [said]
            await their_chat.PostMessage(chat.PostMessageRequest(room=room, text="gg"))
            history = await my_chat.GetRoomHistory(chat.GetRoomHistoryRequest(room=room))
            rude = history.items[-1].message.message_id
            await my_chat.ReportMessage(
                chat.ReportMessageRequest(room=room, message_id=rude, reason=reported)
            )
            moderator = client.channel(platform.target, platform.token("mod", roles=("moderator",)))
            moderation = chat_grpc.ChatServiceStub(moderator)
            log = await moderation.GetModerationLog(chat.GetModerationLogRequest(room=room))
            assert [(e.reported.by, e.reported.reason) for e in log.entries] == [
                (account, reported)
            ]
            # sealed, each with its writer's key
            assert found_in_postgres(database_url, [said, reported, bot_handle, bot_about]) == []
            scoring = sc_grpc.ScoringServiceStub(rival)

            async def scored() -> bool:
                got = await scoring.GetRating(
                    sc.GetRatingRequest(game_type="connect4x4", player_id=account)
                )
                return got.rating.games == 1

            await eventually(scored, seconds=60)

            await me.EraseAccount(pb.EraseAccountRequest())
            got = (await me.GetAccount(pb.GetAccountRequest())).account
            assert (got.erased, got.closed, got.player_id) == (True, True, account)
            assert (got.handle, got.display_name, list(got.identities)) == ("", "", [])
            shown = await pb_grpc.IdentityServiceStub(rival).GetPlayers(
                pb.GetPlayersRequest(player_ids=[account])
            )
            assert [(p.player_id, p.handle) for p in shown.players] == [(account, "")]
            history = await their_chat.GetRoomHistory(chat.GetRoomHistoryRequest(room=room))
            assert [(m.message.author, m.message.text) for m in history.items] == [
                (account, ""),
                (other, "gg"),
            ]
            log = await moderation.GetModerationLog(chat.GetModerationLogRequest(room=room))
            assert [(e.reported.by, e.reported.reason) for e in log.entries] == [(account, "")]
            await moderator.close()
            (bot,) = (
                await bots_grpc.BotServiceStub(rival).GetBots(bots.GetBotsRequest(bot_ids=[bot_id]))
            ).bots
            assert (bot.bot_id, bot.handle, bot.description) == (bot_id, "", "")
            assert await refusal(
                bots_grpc.BotServiceStub(anonymous).ExchangeBotSecret,
                bots.ExchangeBotSecretRequest(secret=registered.secret),
            ) == (grpc.StatusCode.PERMISSION_DENIED, "OWNER_CLOSED")
            assert await me.ListSessions(pb.ListSessionsRequest()) == pb.ListSessionsResponse()
            assert await refusal(
                identity.RenewSession, pb.RenewSessionRequest(refresh_token=done.refresh_token)
            ) == (grpc.StatusCode.UNAUTHENTICATED, "ACCOUNT_CLOSED")
            assert await refusal(me.EraseAccount, pb.EraseAccountRequest()) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "ACCOUNT_ERASED",
            )
            await mine.close()

            # nothing personal of it anywhere (the searches do find what is there: its player
            # id, in its game's events, as text and in their payloads' bytes, and on the bus)
            assert found_in_postgres(database_url, needles) == []
            assert await found_on_jetstream(nats_url, needles) == []
            assert any(h.startswith("events:") for h in found_in_postgres(database_url, [account]))
            assert await found_on_jetstream(nats_url, [account])

            # its game replays and verifies as before, under its player id
            store = PostgresEventStore(database_url)
            try:
                verdict = await verify_stream(store, game_types()["connect4x4"](), game_id)
            finally:
                await store.close()
            assert verdict.ok, verdict.divergence
            sheet = await scoring.GetScoresheet(
                sc.GetScoresheetRequest(game_type="connect4x4", game_id=game_id)
            )
            assert [r.seat.player_id for r in sheet.scoresheet.results] == [account, other]
            live = snapshot(database_url)
            admin = client.channel(platform.target, platform.token("root", roles=("admin",)))
            async with admin:
                await sc_grpc.ScoringServiceStub(admin).Rebuild(sc.RebuildRequest())
            assert snapshot(database_url) == live

            # the handle is free again, and the identity signs into a new account
            again, _, _ = await sign_in(identity, subject, handle)
            assert again.created
            assert again.account.player_id != account
            assert again.account.handle == handle
        finally:
            for chan in (anonymous, seater, rival):
                await chan.close()
