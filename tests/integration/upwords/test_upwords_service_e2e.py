"""Upwords end to end over gRPC, on real PostgreSQL, NATS JetStream and the dictionary service.

Two humans play a few moves (one written in notation), then a human plays a
bot to the end and exports the record; errors name the rule and store nothing;
the challenge flow takes an invalid play back and lets a valid one stand.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import uuid
from typing import Any

import grpc
import nats
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from parlor.client.errors import error_from
from parlor.common.v1 import common_pb2
from parlor.core.errors import ParlorError
from parlor.eventstore import NO_STREAM, NewEvent, PostgresEventStore
from parlor.kit.status import reason_of
from parlor.matchmaking.v1.events_pb2 import MatchFormed
from parlor.rules import upwords as uw
from parlor.rules.upwords.bot import UpwordsBot
from parlor.rules.upwords.notation import format_play
from parlor.upwords.v1 import upwords_pb2 as pb
from parlor.upwords.v1 import upwords_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration


def seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(player_id=p, display_name=p.title()) for p in players]


def board_of(game: pb.Game) -> uw.Board:
    return uw.Board(tuple(tuple(s.tiles) for s in game.board))


def placements_pb(placements: tuple[uw.Placement, ...]) -> list[pb.Placement]:
    return [pb.Placement(row=p.row, col=p.col, tile=p.tile) for p in placements]


async def error(call: Any) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value


def non_word_at_centre(rack: list[str], words: frozenset[str]) -> tuple[uw.Placement, ...]:
    """Two of the rack's tiles across the centre that do not spell a word."""
    for a, b in itertools.permutations(rack, 2):
        if (a + b).lower() not in words:
            return (uw.Placement(4, 4, a), uw.Placement(4, 5, b))
    raise AssertionError("every pair of this rack is a word")


async def create_together(
    upwords: Any, viewer: pb_grpc.UpwordsServiceStub, request: pb.CreateGameRequest
) -> pb.CreateGameResponse:
    """A game seating people who agreed to play elsewhere (a player may seat only themselves
    and bots): a platform service creates it; the reply's game as ``viewer`` sees it."""
    async with upwords.service_channel() as s_ch:
        opened = await pb_grpc.UpwordsServiceStub(s_ch).CreateGame(request)
    seen = (await viewer.GetGame(pb.GetGameRequest(game_id=request.game_id))).game
    return pb.CreateGameResponse(game=seen, events=opened.events)


async def my_turn(
    stub: pb_grpc.UpwordsServiceStub, game_id: str, bot: UpwordsBot, command_id: str
) -> Any:
    """Play the caller's best play, else exchange, else pass (the human's side of a bot game)."""
    game = (await stub.GetGame(pb.GetGameRequest(game_id=game_id))).game
    play = bot.best_play(board_of(game), tuple(game.rack), plural_rule=game.config.plural_rule)
    if play is not None:
        return await stub.Play(
            pb.PlayRequest(
                game_id=game_id,
                placements=placements_pb(play.placements),
                command_id=command_id,
            )
        )
    if game.bag_count and not game.retry:
        tile = UpwordsBot.worst_tile(list(game.rack))
        return await stub.Exchange(
            pb.ExchangeRequest(game_id=game_id, tile=tile, command_id=command_id)
        )
    return await stub.Pass(pb.PassRequest(game_id=game_id, command_id=command_id))


async def test_two_players_play_then_a_bot_game_runs_to_the_end_and_exports(
    upwords: Any, helper_bot: UpwordsBot, database_url: str, nats_url: str, subject_prefix: str
) -> None:
    game_id = uuid.uuid4().hex
    async with upwords.channel("ada") as a_ch, upwords.channel("bob") as b_ch:
        ada, bob = pb_grpc.UpwordsServiceStub(a_ch), pb_grpc.UpwordsServiceStub(b_ch)
        created = await create_together(
            upwords,
            ada,
            pb.CreateGameRequest(game_id=game_id, seats=seats("ada", "bob"), command_id="new"),
        )
        assert created.game.status == pb.STATUS_IN_PROGRESS
        assert created.game.config.lexicon == upwords.lexicon_id
        assert created.game.config.word_checking == pb.WORD_CHECKING_AUTO
        assert [e.WhichOneof("body") for e in created.events] == ["seats_taken", "game_created"]
        assert created.events[1].game_created.config.lexicon == upwords.lexicon_id
        assert len(created.game.rack) == 7
        assert created.game.bag_count == 100 - 14

        stubs = {0: ada, 1: bob}
        version = created.game.version
        plays = 0
        for turn in range(4):
            seat = (await ada.GetGame(pb.GetGameRequest(game_id=game_id))).game.to_move
            me = (await stubs[seat].GetGame(pb.GetGameRequest(game_id=game_id))).game
            play = helper_bot.best_play(board_of(me), tuple(me.rack))
            if play is None:  # a dealt rack with no word at all (rare): the player passes
                passed = await stubs[seat].Pass(
                    pb.PassRequest(game_id=game_id, command_id=f"p{turn}")
                )
                assert [e.WhichOneof("body") for e in passed.events] == ["passed"]
                version = passed.game.version
                continue
            plays += 1
            if turn == 1:  # written in notation, as a person would
                request = pb.PlayRequest(
                    game_id=game_id,
                    move=format_play(board_of(me), play.placements),
                    command_id=f"p{turn}",
                )
            else:
                request = pb.PlayRequest(
                    game_id=game_id,
                    placements=placements_pb(play.placements),
                    command_id=f"p{turn}",
                )
            reply = await stubs[seat].Play(request)
            kinds = [e.WhichOneof("body") for e in reply.events]
            assert kinds == ["word_played", "tiles_drawn"]
            assert reply.events[0].word_played.score == play.score
            assert reply.events[0].notation
            assert list(reply.events[1].tiles_drawn.drawn)  # my own draw, shown to me
            assert len(reply.game.rack) == 7
            assert reply.game.scores[seat] == me.scores[seat] + play.score
            assert reply.game.to_move == 1 - seat
            assert reply.game.version == version + 2
            version = reply.game.version
            again = await stubs[seat].Play(request)  # a retry: the first answer, nothing appended
            assert again.game.version == version

        async with upwords.channel("carol") as c_ch:
            carol = pb_grpc.UpwordsServiceStub(c_ch)
            history = await carol.GetHistory(pb.GetHistoryRequest(game_id=game_id))
            assert [e.info.version for e in history.events] == list(range(1, version + 1))
            played = [e for e in history.events if e.WhichOneof("body") == "word_played"]
            assert len(played) == plays >= 3
            e = await error(carol.ExportGame(pb.ExportGameRequest(game_id=game_id)))
            assert (e.code(), reason_of(e)) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "GAME_NOT_OVER",
            )

        # Every event is in the store, and on NATS exactly once.
        store = PostgresEventStore(database_url)
        try:
            stored = await store.read_stream(f"upwords-{game_id}")
        finally:
            await store.close()
        assert [r.version for r in stored] == list(range(1, version + 1))
        nc = await nats.connect(nats_url)
        try:
            sub = await nc.jetstream().subscribe(
                f"{subject_prefix}.upwords.{game_id}.*", ordered_consumer=True
            )
            seen = [int((await sub.next_msg(timeout=10)).headers["Parlor-Version"]) for _ in stored]
            await asyncio.sleep(0.3)
            with pytest.raises(nats.errors.TimeoutError):
                await sub.next_msg(timeout=0.5)
        finally:
            await nc.close()
        assert seen == [r.version for r in stored]

        # Ada against the best bot, to the end.
        bot_game = uuid.uuid4().hex
        reply: Any = await ada.CreateGame(
            pb.CreateGameRequest(game_id=bot_game, seats=seats("ada", "bot:best"))
        )
        for turn in range(300):
            if reply.game.status == pb.STATUS_ENDED:
                break
            assert reply.game.to_move == 0, "the bot answers within the same call"
            reply = await my_turn(ada, bot_game, helper_bot, f"t{turn}")
        else:
            reply = await ada.Resign(pb.ResignRequest(game_id=bot_game))
        final = reply.game
        assert final.status == pb.STATUS_ENDED
        assert final.end_reason in {"OUT_OF_TILES", "ALL_PASSED", "RESIGNED"}
        assert [r.seat for r in final.racks] == [0, 1]  # everything may be shown now
        history = await ada.GetHistory(pb.GetHistoryRequest(game_id=bot_game))
        kinds = [e.WhichOneof("body") for e in history.events]
        assert kinds[-2:] == ["game_ended", "game_finished"]
        assert kinds.count("word_played") >= 4
        exported = (await ada.ExportGame(pb.ExportGameRequest(game_id=bot_game))).text
        lines = exported.splitlines()
        assert [line.split()[0] for line in lines[:4]] == [
            "[Seat0",
            "[Seat0Id",
            "[Seat1",
            "[Seat1Id",
        ]
        assert lines[4:6] == ["#game upwords", f"#lexicon {upwords.lexicon_id}"]
        assert any(line.startswith(">bot:best: ") for line in lines)
        assert lines[-1].startswith(f"#end {final.end_reason}")


async def test_errors_name_the_rule_and_store_nothing(upwords: Any, words: frozenset[str]) -> None:
    game_id = uuid.uuid4().hex
    async with upwords.channel("ada") as a_ch, upwords.channel("bob") as b_ch:
        ada, bob = pb_grpc.UpwordsServiceStub(a_ch), pb_grpc.UpwordsServiceStub(b_ch)
        game = (
            await create_together(
                upwords, ada, pb.CreateGameRequest(game_id=game_id, seats=seats("ada", "bob"))
            )
        ).game
        stubs = {0: ada, 1: bob}
        mover, waiter = stubs[game.to_move], stubs[1 - game.to_move]
        rack = list((await mover.GetGame(pb.GetGameRequest(game_id=game_id))).game.rack)
        other_rack = list((await waiter.GetGame(pb.GetGameRequest(game_id=game_id))).game.rack)

        def play(*placements: uw.Placement, move: str = "") -> pb.PlayRequest:
            return pb.PlayRequest(game_id=game_id, placements=placements_pb(placements), move=move)

        centre = (uw.Placement(4, 4, other_rack[0]), uw.Placement(4, 5, other_rack[1]))
        e = await error(waiter.Play(play(*centre)))
        assert (e.code(), reason_of(e)) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_YOUR_TURN")

        e = await error(mover.Play(play(uw.Placement(0, 0, rack[0]), uw.Placement(0, 1, rack[1]))))
        assert (e.code(), reason_of(e)) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "FIRST_PLAY_OFF_CENTRE",
        )

        bad = non_word_at_centre(rack, words)
        word = "".join(p.tile for p in bad).lower()
        e = await error(mover.Play(play(*bad)))
        assert (e.code(), reason_of(e)) == (grpc.StatusCode.FAILED_PRECONDITION, "INVALID_WORDS")
        assert word in (e.details() or "")  # the words are public: they would be on the board

        missing = next(t for t in sorted(uw.DISTRIBUTION) if t not in rack)
        e = await error(mover.Play(play(uw.Placement(4, 4, missing), uw.Placement(4, 5, rack[0]))))
        assert (e.code(), reason_of(e)) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "TILES_NOT_ON_RACK",
        )
        for text in other_rack:  # an error never names the tiles anyone holds
            assert f"'{text}'" not in (e.details() or "")

        e = await error(mover.Play(play(move="Z99 WORD")))
        assert (e.code(), reason_of(e)) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NOTATION")
        assert error_from(e).metadata["deprecated_reason"] == "BAD_NOTATION"  # the old name
        e = await error(mover.Play(play(move="-")))  # a pass, sent as a play: the same reason
        assert (e.code(), reason_of(e)) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NOTATION")
        assert error_from(e).metadata["deprecated_reason"] == "BAD_NOTATION"
        e = await error(mover.Play(play(uw.Placement(4, 4, "7"), uw.Placement(4, 5, rack[0]))))
        assert (e.code(), reason_of(e)) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_TILE")
        e = await error(mover.Play(play(uw.Placement(4, 40, rack[0]), uw.Placement(4, 5, rack[1]))))
        assert (e.code(), reason_of(e)) == (grpc.StatusCode.INVALID_ARGUMENT, "OFF_BOARD")
        e = await error(mover.Play(pb.PlayRequest(game_id="no-such-game", move="5E AT")))
        assert (e.code(), reason_of(e)) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
        e = await error(
            mover.Challenge(pb.ChallengeRequest(game_id=game_id))
        )  # auto mode: nothing is ever pending
        assert (e.code(), reason_of(e)) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "NOTHING_TO_CHALLENGE",
        )
        async with upwords.channel("eve") as e_ch:
            eve = pb_grpc.UpwordsServiceStub(e_ch)
            e = await error(eve.Pass(pb.PassRequest(game_id=game_id)))
            assert (e.code(), reason_of(e)) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_SEATED")
            e = await error(
                eve.CreateGame(pb.CreateGameRequest(seats=seats("ada", "bot:genius", "eve")))
            )
            assert (e.code(), reason_of(e)) == (
                grpc.StatusCode.INVALID_ARGUMENT,
                "UNKNOWN_BOT_LEVEL",
            )

        after = (await ada.GetGame(pb.GetGameRequest(game_id=game_id))).game
        assert after.version == game.version  # nothing invalid was stored
        assert list((await mover.GetGame(pb.GetGameRequest(game_id=game_id))).game.rack) == rack


async def test_challenge_takes_an_invalid_play_back_and_lets_a_valid_one_stand(
    upwords: Any, helper_bot: UpwordsBot, words: frozenset[str]
) -> None:
    async with upwords.channel("ada") as a_ch, upwords.channel("bob") as b_ch:
        ada, bob = pb_grpc.UpwordsServiceStub(a_ch), pb_grpc.UpwordsServiceStub(b_ch)
        stubs = {0: ada, 1: bob}
        for _ in range(10):  # the mover's rack needs a word for the play that stands
            game_id = uuid.uuid4().hex
            game = (
                await create_together(
                    upwords,
                    ada,
                    pb.CreateGameRequest(
                        game_id=game_id,
                        seats=seats("ada", "bob"),
                        config=pb.Config(word_checking=pb.WORD_CHECKING_CHALLENGE),
                    ),
                )
            ).game
            seat = game.to_move
            player, challenger = stubs[seat], stubs[1 - seat]
            before = (await player.GetGame(pb.GetGameRequest(game_id=game_id))).game
            if helper_bot.best_play(board_of(before), tuple(before.rack)) is not None:
                break
        assert game.config.word_checking == pb.WORD_CHECKING_CHALLENGE
        bad = non_word_at_centre(list(before.rack), words)

        played = await player.Play(
            pb.PlayRequest(game_id=game_id, placements=placements_pb(bad), command_id="bad")
        )
        assert [e.WhichOneof("body") for e in played.events] == ["word_played"]  # unchecked
        assert played.game.pending.seat == seat
        assert len(played.game.rack) == 5  # the refill waits for the challenge window

        e = await error(player.Challenge(pb.ChallengeRequest(game_id=game_id)))
        assert (e.code(), reason_of(e)) == (grpc.StatusCode.PERMISSION_DENIED, "OWN_PLAY")

        won = await challenger.Challenge(pb.ChallengeRequest(game_id=game_id, command_id="c1"))
        assert [e.WhichOneof("body") for e in won.events] == ["play_withdrawn"]
        withdrawn = won.events[0].play_withdrawn
        assert list(withdrawn.invalid_words) == ["".join(p.tile for p in bad).lower()]
        assert won.game.to_move == seat
        assert won.game.scores[seat] == 0
        assert not won.game.HasField("pending")
        assert all(not s.tiles for s in won.game.board)
        back = (await player.GetGame(pb.GetGameRequest(game_id=game_id))).game
        assert sorted(back.rack) == sorted(before.rack)  # the tiles are back on the rack
        assert back.retry

        e = await error(player.Exchange(pb.ExchangeRequest(game_id=game_id, tile=back.rack[0])))
        assert (e.code(), reason_of(e)) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "EXCHANGE_AFTER_WITHDRAWN",
        )

        good = helper_bot.best_play(board_of(back), tuple(back.rack))
        assert good is not None
        await player.Play(
            pb.PlayRequest(
                game_id=game_id, placements=placements_pb(good.placements), command_id="good"
            )
        )
        lost = await challenger.Challenge(pb.ChallengeRequest(game_id=game_id, command_id="c2"))
        kinds = [e.WhichOneof("body") for e in lost.events]
        assert kinds == ["challenge_failed", "play_accepted", "tiles_drawn"]
        assert not lost.events[2].tiles_drawn.drawn  # the challenger does not see the draw
        assert lost.events[2].tiles_drawn.count == len(good.placements)
        assert lost.game.scores[seat] == good.score
        assert lost.game.to_move == 1 - seat  # a failed challenge costs nothing: still their turn
        e = await error(challenger.Challenge(pb.ChallengeRequest(game_id=game_id)))
        assert (e.code(), reason_of(e)) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "NOTHING_TO_CHALLENGE",
        )


async def test_a_match_formed_on_nats_becomes_a_game_where_the_bot_has_moved(
    upwords: Any, nats_url: str, subject_prefix: str, database_url: str
) -> None:
    match_id = uuid.uuid4().hex
    match = MatchFormed(
        match_id=match_id,
        game_type="upwords",
        seats=[
            common_pb2.Seat(index=0, player_id="bot:best", display_name="Bot"),
            common_pb2.Seat(index=1, player_id="ada", display_name="Ada"),
        ],
        formed_at=Timestamp(seconds=1),
    )
    # As matchmaking records it (the game service believes the store, not the bus) ...
    async with PostgresEventStore(database_url) as store:
        await store.append(
            f"matchmaking-{match_id}",
            [NewEvent(match.DESCRIPTOR.full_name, match.SerializeToString())],
            NO_STREAM,
        )
    # ... and as its relay publishes it.
    nc = await nats.connect(nats_url)
    try:
        js = nc.jetstream()
        subject = f"{subject_prefix}.matchmaking.{match_id}.MatchFormed"
        for _ in range(2):  # a redelivered match changes nothing
            await js.publish(subject, match.SerializeToString())
    finally:
        await nc.close()
    async with upwords.channel("ada") as a_ch:
        ada = pb_grpc.UpwordsServiceStub(a_ch)
        game = None
        for _ in range(100):
            try:
                game = (await ada.GetGame(pb.GetGameRequest(game_id=match_id))).game
            except grpc.aio.AioRpcError as exc:
                if exc.code() != grpc.StatusCode.NOT_FOUND:
                    raise
                await asyncio.sleep(0.1)
                continue
            if game.to_move == 1:
                break
            await asyncio.sleep(0.1)
        assert game is not None, "no game was created from the match"
        assert [s.player_id for s in game.seats] == ["bot:best", "ada"]
        assert game.config.lexicon == upwords.lexicon_id
        assert game.to_move == 1  # whoever drew first, the bot has moved if it was its turn
        assert len(game.rack) == 7
        history = await ada.GetHistory(pb.GetHistoryRequest(game_id=match_id))
        assert [e.WhichOneof("body") for e in history.events].count("game_created") == 1


async def test_dictionary_down_makes_the_play_unavailable_and_stores_nothing(
    upwords: Any, start_platform: Any, helper_bot: UpwordsBot
) -> None:
    play = None
    for _ in range(10):  # a dealt rack rarely has no word at all: deal again
        game_id = uuid.uuid4().hex
        async with upwords.channel("ada") as a_ch:
            ada = pb_grpc.UpwordsServiceStub(a_ch)
            await ada.CreateGame(
                pb.CreateGameRequest(game_id=game_id, seats=seats("ada", "bot:best"))
            )
            game = (await ada.GetGame(pb.GetGameRequest(game_id=game_id))).game
        play = helper_bot.best_play(board_of(game), tuple(game.rack))
        if play is not None:
            break
    assert play is not None
    saved = os.environ["PARLOR_DICTIONARY_TARGET"]
    os.environ["PARLOR_DICTIONARY_TARGET"] = "127.0.0.1:9"  # nothing listens there
    try:
        async with start_platform("upwords") as cut_off, cut_off.channel("ada") as ch:
            stub = pb_grpc.UpwordsServiceStub(ch)
            e = await error(
                stub.Play(
                    pb.PlayRequest(game_id=game_id, placements=placements_pb(play.placements)),
                    timeout=20,
                )
            )
            assert e.code() == grpc.StatusCode.UNAVAILABLE
            assert reason_of(e) == "DICTIONARY_UNAVAILABLE"
            # gRPC's words name the dictionary's address: the log's, never the player's
            assert "127.0.0.1" not in (e.details() or "")
            after = (await stub.GetGame(pb.GetGameRequest(game_id=game_id))).game
            assert after.version == game.version
    finally:
        os.environ["PARLOR_DICTIONARY_TARGET"] = saved


async def test_a_bot_challenges_a_word_it_does_not_know_and_the_play_is_taken_back(
    upwords: Any, words: frozenset[str]
) -> None:
    game_id = uuid.uuid4().hex
    async with upwords.channel("ada") as a_ch:
        ada = pb_grpc.UpwordsServiceStub(a_ch)
        game = (
            await ada.CreateGame(
                pb.CreateGameRequest(
                    game_id=game_id,
                    seats=seats("ada", "bot:best"),
                    config=pb.Config(word_checking=pb.WORD_CHECKING_CHALLENGE),
                )
            )
        ).game
        assert game.to_move == 0
        board = board_of(game)
        rack = list(game.rack)
        if board.is_empty():
            bad = non_word_at_centre(rack, words)
        else:
            bad = non_word_beside(board, rack, words)
        reply = await ada.Play(pb.PlayRequest(game_id=game_id, placements=placements_pb(bad)))
        kinds = [e.WhichOneof("body") for e in reply.events]
        assert kinds[-2:] == ["word_played", "play_withdrawn"]  # after the bot's opening stood
        assert reply.events[-1].play_withdrawn.challenger == 1
        assert reply.game.to_move == 0
        assert reply.game.retry
        assert sorted(reply.game.rack) == sorted(rack)


def non_word_beside(
    board: uw.Board, rack: list[str], words: frozenset[str]
) -> tuple[uw.Placement, ...]:
    """One rack tile placed so that every run it makes is not a word."""
    for row, col in itertools.product(range(10), range(10)):
        for tile in rack:
            placement = (uw.Placement(row, col, tile),)
            try:
                check = uw.check_play(board, rack, placement, plural_rule=True)
            except ParlorError:  # refused by a rule: try the next square
                continue
            if all(w.text not in words for w in check.words):
                return placement
    raise AssertionError("no square takes a non-word")
