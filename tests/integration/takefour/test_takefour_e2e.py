"""Take Four end to end over gRPC, on real PostgreSQL, NATS JetStream and the dictionary.

Two players play a one-round game to the end; at every step each sees only their
own hand and grid, a spectator sees neither, errors name no tile, and NATS carries
no secret at all. Once the game is over, history and export show everything.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import grpc
import nats
import pytest
from kits.takefour import tile_set

from parlor.common.v1 import common_pb2
from parlor.eventstore import PostgresEventStore
from parlor.eventstore.bus import decode_event
from parlor.kit.status import reason_of
from parlor.services.takefour import game as codec
from parlor.services.takefour.game import tiles_pb
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration

GRID_EVENTS = ("tile_placed", "tile_moved", "tile_taken_back", "joker_swapped")


def seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id=p, display_name=p.title()) for p in players]


def config(spec: str, jokers: int = 0, **fields: Any) -> pb.Config:
    return pb.Config(tiles=tiles_pb(tile_set(spec, jokers)), **fields)


def body(event: pb.GameEvent) -> Any:
    return getattr(event, event.WhichOneof("body"))


def assert_sees_only_own(events: list[pb.GameEvent], viewer: int | None) -> None:
    """No event shows another seat's tiles, cells or removed cells, nor the bag."""
    for event in events:
        kind, message = event.WhichOneof("body"), body(event)
        if kind in GRID_EVENTS:
            assert message.HasField("secret") == (message.seat == viewer), event
        elif kind == "round_started":
            assert not message.HasField("secret")
        elif kind == "tiles_dealt":
            assert not message.secret.unused
            for seat, hand in enumerate(message.secret.hands):
                if seat != viewer:
                    assert not hand.tiles
            if viewer is None:
                assert not message.HasField("secret")
        elif kind == "round_scored":
            for seat, cells in enumerate(message.secret.removed):
                if seat != viewer:
                    assert not cells.cells


def assert_game_shows_only_own(game: pb.Game, viewer: int | None) -> None:
    for seat in game.seats:
        mine = seat.seat.index == viewer
        assert seat.visible == mine
        if not mine:
            assert not seat.hand
            assert not seat.grid


async def test_two_players_play_a_round_to_the_end_seeing_only_their_own_tiles(
    takefour: Any, database_url: str, nats_url: str, subject_prefix: str
) -> None:
    game_id = uuid.uuid4().hex
    async with (
        takefour.channel("ada") as a_ch,
        takefour.channel("bob") as b_ch,
        takefour.channel("cy") as c_ch,
    ):
        ada = pb_grpc.TakeFourServiceStub(a_ch)
        bob = pb_grpc.TakeFourServiceStub(b_ch)
        cy = pb_grpc.TakeFourServiceStub(c_ch)
        async with takefour.service_channel() as s_ch:  # ada and bob agreed elsewhere
            await pb_grpc.TakeFourServiceStub(s_ch).CreateGame(
                pb.CreateGameRequest(
                    game_id=game_id,
                    seats=seats("ada", "bob"),
                    config=config("C1 A1 T1 S1 D1 O1 G1 E1", max_rounds=1),
                )
            )
        created = await ada.GetGame(pb.GetGameRequest(game_id=game_id))  # as ada sees it
        game = created.game
        assert game.phase == pb.PHASE_PLAYING
        assert game.round == 1
        assert game.config.lexicon.startswith("enable1")
        assert [s.in_hand for s in game.seats] == [4, 4]
        assert game.bag_count == 0
        assert_game_shows_only_own(game, 0)

        # Bob watches from the start, in the background.
        watched: list[pb.WatchGameResponse] = []

        async def watch() -> None:
            async for item in bob.WatchGame(pb.WatchGameRequest(game_id=game_id)):
                watched.append(item)

        watcher = asyncio.create_task(watch())

        hands = {
            "ada": [t.id for t in game.seats[0].hand],
            "bob": [
                t.id
                for t in (await bob.GetGame(pb.GetGameRequest(game_id=game_id))).game.seats[1].hand
            ],
        }
        assert len(hands["bob"]) == 4

        # A tile from another hand is refused without naming it.
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await ada.PlaceTile(
                pb.PlaceTileRequest(game_id=game_id, tile=hands["bob"][0], x=0, y=0)
            )
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert reason_of(refused.value) == "TILE_NOT_IN_HAND"
        assert refused.value.details() == "that tile is not in your hand"

        for who, stub in (("ada", ada), ("bob", bob)):
            for x, tile in enumerate(hands[who]):
                placed = await stub.PlaceTile(
                    pb.PlaceTileRequest(
                        game_id=game_id, tile=tile, x=x, y=0, command_id=f"{who}{x}"
                    )
                )
                assert placed.events[0].tile_placed.secret.tile == tile
        # A retry returns the first answer and appends nothing.
        again = await ada.PlaceTile(
            pb.PlaceTileRequest(game_id=game_id, tile=hands["ada"][0], x=0, y=0, command_id="ada0")
        )
        assert again.events[0].info.version == placed.events[0].info.version - 7

        seen_by_bob = (await bob.GetGame(pb.GetGameRequest(game_id=game_id))).game
        assert_game_shows_only_own(seen_by_bob, 1)
        assert [s.on_grid for s in seen_by_bob.seats] == [4, 4]
        assert [g.x for g in seen_by_bob.seats[1].grid] == [0, 1, 2, 3]
        seen_by_cy = (await cy.GetGame(pb.GetGameRequest(game_id=game_id))).game
        assert not seen_by_cy.HasField("viewer_seat")
        assert_game_shows_only_own(seen_by_cy, None)
        for who, viewer in ((bob, 1), (cy, None)):
            history = await who.GetHistory(pb.GetHistoryRequest(game_id=game_id))
            assert_sees_only_own(list(history.events), viewer)

        with pytest.raises(grpc.aio.AioRpcError) as early:
            await cy.ExportGame(pb.ExportGameRequest(game_id=game_id))
        assert reason_of(early.value) == "GAME_NOT_OVER"

        # The bag is empty: Ada calls Done; the words are checked; the one round ends the game.
        done = await ada.CallDone(pb.CallDoneRequest(game_id=game_id, command_id="done"))
        kinds = [e.WhichOneof("body") for e in done.events]
        assert kinds == ["done_called", "round_scored", "game_ended", "game_finished"]
        assert done.game.phase == pb.PHASE_OVER
        scored = done.events[1].round_scored
        finished = done.events[3].game_finished
        assert finished.game_type == "takefour"
        assert [r.score for r in finished.results] == list(scored.totals)
        low = min(scored.totals)
        assert [r.rank == 1 for r in finished.results] == [t == low for t in scored.totals]

        await asyncio.wait_for(watcher, 10)
        assert [w.event.info.version for w in watched] == list(range(1, done.game.version + 1))
        before_end = [w.event for w in watched if w.game.phase != pb.PHASE_OVER]
        assert_sees_only_own(before_end, 1)
        for w in watched:
            if w.game.phase != pb.PHASE_OVER:
                assert_game_shows_only_own(w.game, 1)

        # Over: the spectator sees every hand and every placement.
        history = (await cy.GetHistory(pb.GetHistoryRequest(game_id=game_id))).events
        placements = [e.tile_placed for e in history if e.WhichOneof("body") == "tile_placed"]
        assert len(placements) == 8
        assert all(p.HasField("secret") for p in placements)
        final = (await cy.GetGame(pb.GetGameRequest(game_id=game_id))).game
        assert all(s.visible and len(s.grid) == 4 for s in final.seats)
        exported_response = await cy.ExportGame(pb.ExportGameRequest(game_id=game_id))
        # every game's ExportGameResponse has `text`; Take Four's first name for it stays
        assert exported_response.notation == exported_response.text
        exported = exported_response.text
        assert exported.count(" place ") == 8
        assert "s0 done" in exported

        # A watch resumes after the last version seen, and ends with the game.
        resumed = [
            item.event.info.version
            async for item in bob.WatchGame(pb.WatchGameRequest(game_id=game_id, after_version=9))
        ]
        assert resumed == list(range(10, done.game.version + 1))

        # The game at an earlier version: just after the deal, nothing placed yet.
        early_game = (await bob.GetGame(pb.GetGameRequest(game_id=game_id, version=4))).game
        assert early_game.version == 4
        assert [s.on_grid for s in early_game.seats] == [0, 0]

    store = PostgresEventStore(database_url)
    try:
        stored = await store.read_stream(f"takefour-{game_id}")
    finally:
        await store.close()
    assert len(stored) == done.game.version

    # NATS: every event once, none with a secret.
    nc = await nats.connect(nats_url)
    try:
        js = nc.jetstream()
        sub = await js.subscribe(f"{subject_prefix}.takefour.{game_id}.*", ordered_consumer=True)
        published = []
        while len(published) < len(stored):
            msg = await sub.next_msg(timeout=10)
            event = decode_event(msg.headers, msg.data)
            assert event is not None
            published.append(event)
        await asyncio.sleep(0.3)
        with pytest.raises(nats.errors.TimeoutError):
            await sub.next_msg(timeout=0.5)
    finally:
        await nc.close()
    assert [e.version for e in published] == [e.version for e in stored]
    secrets_kept = 0
    for event, original in zip(published, stored, strict=True):
        message = codec._TYPES[event.type]()
        message.ParseFromString(event.data)
        if "secret" in message.DESCRIPTOR.fields_by_name:
            assert not message.HasField("secret"), event.type
            secrets_kept += event.data != original.data
    assert secrets_kept >= 10  # the deals, the placements and the scores all lost their secrets


def shared_headers(headers: dict[str, str]) -> dict[str, Any]:
    """A message's headers but its event's own (id, version, position, times, command)."""
    own = {"Nats-Msg-Id", "Parlor-Version", "Parlor-Position", "Parlor-Recorded-At"}
    own |= {"Parlor-Command-Id", "traceparent", "tracestate"}
    shared: dict[str, Any] = {k: v for k, v in headers.items() if k not in own}
    extra = json.loads(shared.pop("Parlor-Extra", "{}"))
    extra.pop("clock_at", None)  # when the command was decided
    # when the turn it gives began, recorded when deciding took 1 ms or more (the server's
    # load, not the command: either event may have it)
    extra.pop("clock_given", None)
    return {**shared, "Parlor-Extra": extra}


async def test_nats_carries_a_joker_swap_as_it_carries_a_move(
    takefour: Any, nats_url: str, subject_prefix: str
) -> None:
    """Anyone on NATS reads every event as it happens: a swap's own type (subject,
    ``Parlor-Event-Type``) would tell them a joker is now in that hand, so the relay
    publishes it as the views show it to others, a move of that seat's, with a move's payload."""
    async with takefour.channel("ada") as a_ch, takefour.service_channel() as s_ch:
        ada = pb_grpc.TakeFourServiceStub(a_ch)
        for _ in range(20):  # a deal of 4 from 12 tiles: until ada holds a joker and an E
            game_id = uuid.uuid4().hex
            await pb_grpc.TakeFourServiceStub(s_ch).CreateGame(
                pb.CreateGameRequest(
                    game_id=game_id, seats=seats("ada", "bob"), config=config("E8", jokers=4)
                )
            )
            hand = (await ada.GetGame(pb.GetGameRequest(game_id=game_id))).game.seats[0].hand
            jokers = [t.id for t in hand if t.face == "?"]
            es = [t.id for t in hand if t.face == "E"]
            if jokers and es:
                break
        else:
            pytest.fail("ada was never dealt a joker and an E")
        await ada.PlaceTile(
            pb.PlaceTileRequest(game_id=game_id, tile=jokers[0], x=0, y=0, letter="E")
        )
        moved = await ada.MoveTile(
            pb.MoveTileRequest(game_id=game_id, to=pb.Cell(x=0, y=1), **{"from": pb.Cell()})
        )
        swapped = await ada.SwapJoker(
            pb.SwapJokerRequest(game_id=game_id, tile=es[0], cell=pb.Cell(x=0, y=1))
        )
    assert swapped.events[0].WhichOneof("body") == "joker_swapped"  # ada sees her own swap
    versions = (moved.events[0].info.version, swapped.events[0].info.version)
    nc = await nats.connect(nats_url)
    try:
        sub = await nc.jetstream().subscribe(
            f"{subject_prefix}.takefour.{game_id}.*", ordered_consumer=True
        )
        published = {}
        while len(published) < versions[1]:
            msg = await sub.next_msg(timeout=10)
            published[int(msg.headers["Parlor-Version"])] = msg
    finally:
        await nc.close()
    move, swap = (published[v] for v in versions)
    assert swap.subject == move.subject == f"{subject_prefix}.takefour.{game_id}.TileMoved"
    assert swap.data == move.data
    assert shared_headers(swap.headers) == shared_headers(move.headers)
    assert swap.headers["Parlor-Event-Type"] == "parlor.takefour.v1.TileMoved"
    assert swap.headers["Nats-Msg-Id"] == f"takefour-{game_id}:{versions[1]}"
    for msg in published.values():
        assert "Joker" not in msg.subject + "".join(msg.headers.values())
