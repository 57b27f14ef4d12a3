"""Racks and the bag reach no one who may not see them: over gRPC and on NATS.

The truth (every rack at every version) is read from the store and folded;
then an opponent's and a spectator's GetGame (now and at every version),
GetHistory and WatchGame are searched for any secret, and every payload the
relay put on NATS for the game is checked for rack, draw and bag data.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import grpc
import nats
import pytest
from google.protobuf.message import Message

from parlor.common.v1 import common_pb2
from parlor.core.decider import replay
from parlor.eventstore import PostgresEventStore
from parlor.gamehost.table.seating import Table
from parlor.kit.status import reason_of
from parlor.rules import upwords as uw
from parlor.rules.upwords.bot import UpwordsBot
from parlor.services.upwords.game import Codec, decode_message, rules
from parlor.upwords.v1 import upwords_pb2 as pb
from parlor.upwords.v1 import upwords_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration

ADA = 0


def seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id=p, display_name=p.title()) for p in players]


def board_of(game: pb.Game) -> uw.Board:
    return uw.Board(tuple(tuple(s.tiles) for s in game.board))


async def truth(database_url: str, game_id: str) -> list[Table[uw.UpwordsState]]:
    """The full state after each version (index = version), folded from the stored events."""
    store = PostgresEventStore(database_url)
    try:
        records = await store.read_stream(f"upwords-{game_id}")
    finally:
        await store.close()
    codec = Codec()
    events = [codec.decode(r.type, r.data) for r in records]
    decider = rules()
    return [replay(decider, events[:n]) for n in range(len(events) + 1)]


def repeated_strings(message: Message) -> Iterator[tuple[str, list[str]]]:
    """Every repeated string field anywhere in a message (racks, draws, bags, stacks, words)."""
    for field, value in message.ListFields():
        if field.type == field.TYPE_MESSAGE:
            items = value if field.is_repeated else [value]
            for item in items:
                yield from repeated_strings(item)
        elif field.type == field.TYPE_STRING and field.is_repeated:
            yield field.full_name, list(value)


def assert_no_rack_of(message: Message, racks: list[Counter[str]], who: str) -> None:
    """No list of tiles in the message is one of ada's actual racks (as a multiset)."""
    for name, tiles in repeated_strings(message):
        if len(tiles) >= 2:
            assert Counter(tiles) not in racks, f"{who} saw ada's rack in {name}"


def assert_game_hides(game: pb.Game, viewer: int | None, state: uw.UpwordsState) -> None:
    assert list(game.rack) == (list(state.racks[viewer]) if viewer is not None else [])
    assert not game.racks
    assert not game.bag
    if viewer != ADA and state.racks[ADA]:
        # a whole rack line, not a prefix: the viewer's own rack may start with ada's tiles
        shown = re.compile("rack " + re.escape(" ".join(state.racks[ADA])) + "$", re.MULTILINE)
        assert not shown.search(game.board_text)


def assert_event_hides(event: pb.GameEvent, viewer: int | None, state: Any) -> None:
    body = event.WhichOneof("body")
    if body == "game_created":
        created = event.game_created
        assert not created.bag
        assert [r.seat for r in created.racks] == ([] if viewer is None else [viewer])
        for r in created.racks:
            assert list(r.tiles) == list(state.racks[r.seat])  # their own first rack, truly
    elif body == "tiles_drawn":
        drawn = event.tiles_drawn
        assert not drawn.drawn or drawn.seat == viewer
    elif body == "tile_exchanged":
        exchanged = event.tile_exchanged
        assert not exchanged.HasField("position")
        if exchanged.seat != viewer:
            assert not exchanged.returned
            assert not exchanged.drawn
            assert event.notation == "-?"


async def test_opponents_and_spectators_never_see_another_rack_over_grpc_or_nats(
    upwords: Any, helper_bot: UpwordsBot, database_url: str, nats_url: str, subject_prefix: str
) -> None:
    game_id = uuid.uuid4().hex
    async with (
        upwords.channel("ada") as a_ch,
        upwords.channel("bob") as b_ch,
        upwords.channel("carol") as c_ch,
    ):
        ada, bob = pb_grpc.UpwordsServiceStub(a_ch), pb_grpc.UpwordsServiceStub(b_ch)
        carol = pb_grpc.UpwordsServiceStub(c_ch)
        async with upwords.service_channel() as s_ch:  # ada and bob agreed elsewhere
            await pb_grpc.UpwordsServiceStub(s_ch).CreateGame(
                pb.CreateGameRequest(game_id=game_id, seats=seats("ada", "bob"))
            )
        stubs = {0: ada, 1: bob}
        for turn in range(6):  # plays, and an exchange by each
            seat = (await carol.GetGame(pb.GetGameRequest(game_id=game_id))).game.to_move
            me = (await stubs[seat].GetGame(pb.GetGameRequest(game_id=game_id))).game
            play = helper_bot.best_play(board_of(me), tuple(me.rack))
            if turn in (2, 3) or play is None:
                await stubs[seat].Exchange(pb.ExchangeRequest(game_id=game_id, tile=me.rack[0]))
            else:
                await stubs[seat].Play(
                    pb.PlayRequest(
                        game_id=game_id,
                        placements=[
                            pb.Placement(row=p.row, col=p.col, tile=p.tile) for p in play.placements
                        ],
                    )
                )

        states = await truth(database_url, game_id)
        version = len(states) - 1
        ada_racks = [Counter(t.game.racks[ADA]) for t in states[2:]]

        for name, stub, viewer in (("bob", bob, 1), ("carol", carol, None)):
            now = (await stub.GetGame(pb.GetGameRequest(game_id=game_id))).game
            assert now.version == version
            assert_game_hides(now, viewer, states[version].game)
            assert_no_rack_of(now, ada_racks, name)
            for v in range(2, version + 1):
                then = (await stub.GetGame(pb.GetGameRequest(game_id=game_id, version=v))).game
                assert_game_hides(then, viewer, states[v].game)
                assert_no_rack_of(then, ada_racks, name)

            history = await stub.GetHistory(pb.GetHistoryRequest(game_id=game_id))
            assert len(history.events) == version
            for event in history.events:
                assert_event_hides(event, viewer, states[event.info.version].game)
            assert_no_rack_of(history, ada_racks, name)
            bodies = {e.WhichOneof("body") for e in history.events}
            assert {"game_created", "tiles_drawn", "tile_exchanged"} <= bodies

            watched: list[pb.WatchGameResponse] = []
            async for item in stub.WatchGame(pb.WatchGameRequest(game_id=game_id, after_version=1)):
                watched.append(item)
                if item.event.info.version == version:
                    break
            assert [w.event.info.version for w in watched] == list(range(2, version + 1))
            for item in watched:
                assert_event_hides(item.event, viewer, states[item.event.info.version].game)
                assert_game_hides(item.game, viewer, states[item.event.info.version].game)
                assert_no_rack_of(item, ada_racks, name)

        # Ada sees her own rack, and her own draws; never the bag.
        mine = (await ada.GetGame(pb.GetGameRequest(game_id=game_id))).game
        assert list(mine.rack) == list(states[version].game.racks[ADA])
        assert not mine.bag

        # Once the game is over, everything may be shown to anyone.
        ended = await bob.Resign(pb.ResignRequest(game_id=game_id))
        assert ended.game.status == pb.STATUS_ENDED
        revealed = await carol.GetHistory(pb.GetHistoryRequest(game_id=game_id))
        created = next(e for e in revealed.events if e.WhichOneof("body") == "game_created")
        assert [r.seat for r in created.game_created.racks] == [0, 1]
        assert list(created.game_created.racks[ADA].tiles) == list(states[2].game.racks[ADA])

    # NATS: every payload of this game, as published, holds no rack, draw or bag.
    store = PostgresEventStore(database_url)
    try:
        stored = await store.read_stream(f"upwords-{game_id}")
    finally:
        await store.close()
    nc = await nats.connect(nats_url)
    try:
        sub = await nc.jetstream().subscribe(
            f"{subject_prefix}.upwords.{game_id}.*", ordered_consumer=True
        )
        published = [await sub.next_msg(timeout=10) for _ in stored]
        await asyncio.sleep(0.3)
        with pytest.raises(nats.errors.TimeoutError):
            await sub.next_msg(timeout=0.5)
    finally:
        await nc.close()
    final = await truth(database_url, game_id)
    every_rack = [Counter(r) for t in final[2:-2] for r in t.game.racks]
    secret_carrying = 0
    for record, msg in zip(stored, published, strict=True):
        assert msg.subject == f"{subject_prefix}.upwords.{game_id}.{record.type.split('.')[-1]}"
        assert int(msg.headers["Parlor-Version"]) == record.version
        message = decode_message(record.type, msg.data)
        if isinstance(message, pb.GameCreated):
            assert not message.racks
            assert not message.bag
            assert message.bag_count == 86
        elif isinstance(message, pb.TilesDrawn):
            assert not message.drawn
            assert message.count > 0
        elif isinstance(message, pb.TileExchanged):
            assert not message.returned
            assert not message.drawn
            assert not message.HasField("position")
        if msg.data != record.data:
            secret_carrying += 1
        if not isinstance(message, pb.GameEnded):  # the racks left are revealed at the end
            for name, tiles in repeated_strings(message):
                if len(tiles) >= 2:
                    assert Counter(tiles) not in every_rack, f"NATS carried a rack in {name}"
    assert secret_carrying >= 1 + 4 + 2  # created, the draws and exchanges were all stripped


async def test_a_replayed_command_id_shows_no_one_another_seats_rack(upwords: Any) -> None:
    """A known command id is answered from the store; the answer is for the caller's own seat.

    Before the fix, naming ada's seat with her command id returned her view: her rack.
    """
    game_id = uuid.uuid4().hex
    async with (
        upwords.channel("ada") as a_ch,
        upwords.channel("bob") as b_ch,
        upwords.channel("carol") as c_ch,
    ):
        ada, bob = pb_grpc.UpwordsServiceStub(a_ch), pb_grpc.UpwordsServiceStub(b_ch)
        carol = pb_grpc.UpwordsServiceStub(c_ch)
        # Ada and bob agreed to play elsewhere: a platform service seats them (a player may
        # seat only themselves and bots). Ada's first command is then "ada-1".
        async with upwords.service_channel() as s_ch:
            opened = await pb_grpc.UpwordsServiceStub(s_ch).CreateGame(
                pb.CreateGameRequest(game_id=game_id, seats=seats("ada", "bob"))
            )
        if opened.game.to_move != ADA:
            await bob.Pass(pb.PassRequest(game_id=game_id))
        created = await ada.Pass(pb.PassRequest(game_id=game_id, command_id="ada-1"))
        for stub, seat, reason in (
            (bob, ADA, "NOT_YOUR_SEAT"),
            (carol, ADA, "NOT_YOUR_SEAT"),
            (carol, None, "NOT_SEATED"),
        ):
            for call in (stub.Pass, stub.Resign):
                request = pb.PassRequest if call == stub.Pass else pb.ResignRequest
                sent = request(game_id=game_id, command_id="ada-1")
                if seat is not None:
                    sent.seat = seat
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await call(sent)
                assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
                assert reason_of(refused.value) == reason
        # Her own retry (the same command: the pass) gets her answer; a resign under the
        # pass's id is another command (COMMAND_ID_REUSED), which shows nothing.
        with pytest.raises(grpc.aio.AioRpcError) as reused:
            await ada.Resign(pb.ResignRequest(game_id=game_id, command_id="ada-1"))
        assert reason_of(reused.value) == "COMMAND_ID_REUSED"
        again = await ada.Pass(pb.PassRequest(game_id=game_id, command_id="ada-1"))
        assert list(again.game.rack) == list(created.game.rack)  # her own retry: her answer
        assert again.game.version == created.game.version
