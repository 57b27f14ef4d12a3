"""Challenges over gRPC on a real platform (matchmaking and Connect 4x4, PostgreSQL, NATS).

An accepted challenge becomes its game through the same path as a matching round's match
(``MatchFormed`` in the store, the game service's match consumer, ``create_from_match``):
once, whatever the retries. Spam is limited with RESOURCE_EXHAUSTED and a reason; a
blocked player's challenges never reach the blocker.
"""

from __future__ import annotations

import secrets
from typing import Any

import grpc
import pytest
from kits.scoring import eventually

from parlor.challenges.v1 import challenges_pb2 as ch
from parlor.challenges.v1 import challenges_pb2_grpc as ch_grpc
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.eventstore import PostgresEventStore
from parlor.kit.status import reason_of
from parlor.matchmaking.v1 import events_pb2 as mm_events
from parlor.matchrecords.consent import match_stream
from parlor.takefour.v1 import takefour_pb2 as tf

pytestmark = [pytest.mark.integration]


def guest() -> str:
    return "guest-" + secrets.token_hex(8)


async def refused(call: Any, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call
    assert error.value.code() == code
    assert reason_of(error.value) == reason


async def test_an_accepted_challenge_is_played_once(start_platform: Any) -> None:
    ann, bob, eve = guest(), guest(), guest()
    async with start_platform("matchmaking", "connect4x4") as platform:
        async with (
            platform.channel(ann) as a,
            platform.channel(bob) as b,
            platform.channel(eve) as e,
        ):
            ann_s, bob_s, eve_s = (ch_grpc.ChallengeServiceStub(c) for c in (a, b, e))
            made = (
                await ann_s.CreateChallenge(
                    ch.CreateChallengeRequest(
                        game_type="connect4x4",
                        invitees=[bob],
                        seat_choice=ch.SEAT_CHOICE_SECOND,
                    )
                )
            ).challenge
            assert made.status == ch.CHALLENGE_STATUS_PENDING
            incoming = (await bob_s.ListChallenges(ch.ListChallengesRequest())).incoming
            assert [c.challenge_id for c in incoming] == [made.challenge_id]
            assert [c.challenge_id for c in (await ann_s.ListChallenges(
                ch.ListChallengesRequest())).outgoing] == [made.challenge_id]  # fmt: skip
            get = ch.GetChallengeRequest(challenge_id=made.challenge_id)
            await refused(eve_s.GetChallenge(get), grpc.StatusCode.NOT_FOUND, "CHALLENGE_NOT_FOUND")
            accept = ch.AcceptChallengeRequest(challenge_id=made.challenge_id)
            first = (await bob_s.AcceptChallenge(accept)).challenge
            again = (await bob_s.AcceptChallenge(accept)).challenge
            assert first.status == ch.CHALLENGE_STATUS_MATCHED
            assert again.match_id == first.match_id
            assert [s.player_id for s in first.seats] == [bob, ann]
            games = c4_grpc.Connect4x4ServiceStub(a)

            async def made_game() -> Any:
                return (await games.GetGame(c4.GetGameRequest(game_id=first.match_id))).game

            game = await eventually(made_game, 60)
            assert [s.player_id for s in game.seats] == [bob, ann]
            cancel = ch.CancelChallengeRequest(challenge_id=made.challenge_id)
            await refused(
                ann_s.CancelChallenge(cancel),
                grpc.StatusCode.FAILED_PRECONDITION,
                "CHALLENGE_MATCHED",
            )


async def test_spam_is_limited_and_blocks_hold(start_platform: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("PARLOR_CHALLENGES_MAX_OUTSTANDING", "5")
    ann, bob = guest(), guest()
    async with start_platform("matchmaking") as platform:
        async with platform.channel(ann) as a, platform.channel(bob) as b:
            ann_s, bob_s = ch_grpc.ChallengeServiceStub(a), ch_grpc.ChallengeServiceStub(b)
            await bob_s.BlockPlayer(ch.BlockPlayerRequest(player=ann))
            codes = []
            for _ in range(8):  # a bounded loop of challenges from one player
                try:
                    await ann_s.CreateChallenge(
                        ch.CreateChallengeRequest(game_type="connect4x4", invitees=[bob])
                    )
                    codes.append("OK")
                except grpc.aio.AioRpcError as error:
                    codes.append(f"{error.code().name} {reason_of(error)}")
            assert codes == ["OK"] * 5 + ["RESOURCE_EXHAUSTED TOO_MANY_CHALLENGES"] * 3
            assert len((await ann_s.ListChallenges(ch.ListChallengesRequest())).outgoing) == 5
            assert not (await bob_s.ListChallenges(ch.ListChallengesRequest())).incoming
            await refused(
                ann_s.CreateChallenge(
                    ch.CreateChallengeRequest(game_type="connect4x4", invitees=[ann])
                ),
                grpc.StatusCode.INVALID_ARGUMENT,
                "SELF_CHALLENGE",
            )
            await refused(
                ann_s.CreateChallenge(
                    ch.CreateChallengeRequest(game_type="connect4x4", invitees=["nosuchhandle"])
                ),
                grpc.StatusCode.NOT_FOUND,
                "PLAYER_NOT_FOUND",
            )


async def test_a_player_who_declines_too_often_is_limited(
    start_platform: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("PARLOR_CHALLENGES_DECLINES_PER_DAY", "2")
    ann, bob = guest(), guest()
    async with start_platform("matchmaking") as platform:
        async with platform.channel(ann) as a, platform.channel(bob) as b:
            ann_s, bob_s = ch_grpc.ChallengeServiceStub(a), ch_grpc.ChallengeServiceStub(b)
            made = [
                (
                    await ann_s.CreateChallenge(
                        ch.CreateChallengeRequest(game_type="connect4x4", invitees=[bob])
                    )
                ).challenge
                for _ in range(3)
            ]
            codes = []
            for challenge in made:
                try:
                    await bob_s.DeclineChallenge(
                        ch.DeclineChallengeRequest(
                            challenge_id=challenge.challenge_id,
                            reason=ch.DECLINE_REASON_TOO_FAST,
                        )
                    )
                    codes.append("OK")
                except grpc.aio.AioRpcError as error:
                    codes.append(f"{error.code().name} {reason_of(error)}")
            assert codes == ["OK", "OK", "RESOURCE_EXHAUSTED TOO_MANY_DECLINES"]
            # the third still waits for him (he may accept it), and ann still sees it pending
            incoming = (await bob_s.ListChallenges(ch.ListChallengesRequest())).incoming
            assert [c.challenge_id for c in incoming] == [made[2].challenge_id]
            accepted = await bob_s.AcceptChallenge(
                ch.AcceptChallengeRequest(challenge_id=made[2].challenge_id)
            )
            assert accepted.challenge.status == ch.CHALLENGE_STATUS_MATCHED


async def challenged_game(ann_s: Any, bob_s: Any, games: Any, bob: str) -> str:
    """A Connect 4x4 game between ann (seat 0) and bob, made from ann's challenge."""
    made = (
        await ann_s.CreateChallenge(
            ch.CreateChallengeRequest(
                game_type="connect4x4", invitees=[bob], seat_choice=ch.SEAT_CHOICE_FIRST
            )
        )
    ).challenge
    accepted = await bob_s.AcceptChallenge(
        ch.AcceptChallengeRequest(challenge_id=made.challenge_id)
    )
    game_id = str(accepted.challenge.match_id)

    async def made_game() -> Any:
        return (await games.GetGame(c4.GetGameRequest(game_id=game_id))).game

    await eventually(made_game, 60)
    return game_id


async def test_a_rematch_waits_for_the_other_and_rotates_the_seats(start_platform: Any) -> None:
    ann, bob, eve = guest(), guest(), guest()
    async with start_platform("matchmaking", "connect4x4") as platform:
        async with (
            platform.channel(ann) as a,
            platform.channel(bob) as b,
            platform.channel(eve) as e,
        ):
            ann_s, bob_s, eve_s = (ch_grpc.ChallengeServiceStub(c) for c in (a, b, e))
            games = c4_grpc.Connect4x4ServiceStub(a)
            game_id = await challenged_game(ann_s, bob_s, games, bob)
            offer = ch.OfferRematchRequest(game_type="connect4x4", game_id=game_id)
            await refused(
                ann_s.OfferRematch(offer), grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_FINISHED"
            )
            await games.Resign(c4.ResignRequest(game_id=game_id))
            await refused(eve_s.OfferRematch(offer), grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
            rematch = (await ann_s.OfferRematch(offer)).challenge
            assert rematch.rematch_of == game_id
            assert rematch.seat_choice == ch.SEAT_CHOICE_ROTATED
            assert (await ann_s.OfferRematch(offer)).challenge.challenge_id == rematch.challenge_id
            # bob was away; when he looks, the offer waits for him
            (incoming,) = (await bob_s.ListChallenges(ch.ListChallengesRequest())).incoming
            assert incoming.challenge_id == rematch.challenge_id
            # his own offer of a rematch of that game accepts ann's
            taken = (await bob_s.OfferRematch(offer)).challenge
            assert taken.challenge_id == rematch.challenge_id
            assert taken.status == ch.CHALLENGE_STATUS_MATCHED
            assert [s.player_id for s in taken.seats] == [bob, ann]  # rotated: bob starts

            async def rematched() -> Any:
                return (await games.GetGame(c4.GetGameRequest(game_id=taken.match_id))).game

            assert [s.player_id for s in (await eventually(rematched, 60)).seats] == [bob, ann]


async def test_a_rematch_lapses_once_a_player_starts_another_game(start_platform: Any) -> None:
    ann, bob = guest(), guest()
    async with start_platform("matchmaking", "connect4x4") as platform:
        async with platform.channel(ann) as a, platform.channel(bob) as b:
            ann_s, bob_s = ch_grpc.ChallengeServiceStub(a), ch_grpc.ChallengeServiceStub(b)
            games = c4_grpc.Connect4x4ServiceStub(a)
            game_id = await challenged_game(ann_s, bob_s, games, bob)
            await games.Resign(c4.ResignRequest(game_id=game_id))
            offer = ch.OfferRematchRequest(game_type="connect4x4", game_id=game_id)
            rematch = (await ann_s.OfferRematch(offer)).challenge
            await c4_grpc.Connect4x4ServiceStub(b).CreateGame(
                c4.CreateGameRequest(
                    seats=[common_pb2.Seat(player_id=bob), common_pb2.Seat(player_id="bot:random")]
                )
            )
            accept = ch.AcceptChallengeRequest(challenge_id=rematch.challenge_id)
            await refused(
                bob_s.AcceptChallenge(accept),
                grpc.StatusCode.FAILED_PRECONDITION,
                "CHALLENGE_LAPSED",
            )
            got = await ann_s.GetChallenge(
                ch.GetChallengeRequest(challenge_id=rematch.challenge_id)
            )
            assert got.challenge.status == ch.CHALLENGE_STATUS_LAPSED


async def test_several_seats_an_open_one_and_a_bot(start_platform: Any) -> None:
    ann, bob, eve = guest(), guest(), guest()
    async with start_platform("matchmaking", "connect4x4") as platform:
        async with (
            platform.channel(ann) as a,
            platform.channel(bob) as b,
            platform.channel(eve) as e,
        ):
            ann_s, bob_s, eve_s = (ch_grpc.ChallengeServiceStub(c) for c in (a, b, e))
            made = (
                await ann_s.CreateChallenge(
                    ch.CreateChallengeRequest(
                        game_type="connect4x4",
                        invitees=[bob],
                        open_seats=1,
                        bots=["random"],
                        seat_choice=ch.SEAT_CHOICE_FIRST,
                    )
                )
            ).challenge
            too_many = ch.CreateChallengeRequest(
                game_type="connect4x4", invitees=[bob], open_seats=2, bots=["random"]
            )
            await refused(
                ann_s.CreateChallenge(too_many),
                grpc.StatusCode.INVALID_ARGUMENT,
                "BAD_PLAYER_COUNT",
            )
            listed = await eve_s.ListChallenges(ch.ListChallengesRequest())
            assert made.challenge_id in [c.challenge_id for c in listed.open]
            accept = ch.AcceptChallengeRequest(challenge_id=made.challenge_id)
            taken = (await eve_s.AcceptChallenge(accept)).challenge
            assert taken.status == ch.CHALLENGE_STATUS_PENDING  # bob has not answered
            done = (await bob_s.AcceptChallenge(accept)).challenge
            assert done.status == ch.CHALLENGE_STATUS_MATCHED
            assert [s.player_id for s in done.seats] == [ann, bob, eve, "bot:random"]
            games = c4_grpc.Connect4x4ServiceStub(a)

            async def made_game() -> Any:
                return (await games.GetGame(c4.GetGameRequest(game_id=done.match_id))).game

            game = await eventually(made_game, 60)
            assert [s.player_id for s in game.seats] == [ann, bob, eve, "bot:random"]


async def test_a_challenge_carries_its_game_config_to_its_match(
    start_platform: Any, database_url: str
) -> None:
    """The game type's own Config, checked when the challenge is made (an invalid one never
    waits for an acceptance), shown on the challenge, carried on its MatchFormed, and the
    game made of the match plays by it."""
    ann, bob = guest(), guest()
    async with start_platform("matchmaking", "connect4x4") as platform:
        async with platform.channel(ann) as a, platform.channel(bob) as b:
            ann_s, bob_s = ch_grpc.ChallengeServiceStub(a), ch_grpc.ChallengeServiceStub(b)

            def create(config: bytes) -> Any:
                return ann_s.CreateChallenge(
                    ch.CreateChallengeRequest(game_type="connect4x4", invitees=[bob], config=config)
                )

            for bad in (
                tf.Config(max_rounds=5).SerializeToString(),  # another game's Config
                c4.Config(players=3).SerializeToString(),  # the challenge seats two
                c4.Config(first_seat=2).SerializeToString(),  # seats 0 and 1
                b"\xff",  # no message at all
            ):
                await refused(create(bad), grpc.StatusCode.INVALID_ARGUMENT, "BAD_CONFIG")
            assert not (await ann_s.ListChallenges(ch.ListChallengesRequest())).outgoing

            config = c4.Config(players=2, first_seat=1, blockers_count_toward_lines=True)
            made = (await create(config.SerializeToString())).challenge
            incoming = (await bob_s.ListChallenges(ch.ListChallengesRequest())).incoming
            for shown in (made.config, incoming[0].config):
                assert c4.Config.FromString(shown) == config
            accepted = await bob_s.AcceptChallenge(
                ch.AcceptChallengeRequest(challenge_id=made.challenge_id)
            )
            match_id = accepted.challenge.match_id
            games = c4_grpc.Connect4x4ServiceStub(a)

            async def made_game() -> Any:
                return (await games.GetGame(c4.GetGameRequest(game_id=match_id))).game

            game = await eventually(made_game, 60)
            assert game.config.first_seat == 1
            assert game.config.blockers_count_toward_lines

            # Its rematch keeps the configuration (not the game's defaults).
            await games.Resign(c4.ResignRequest(game_id=match_id))
            offer = ch.OfferRematchRequest(game_type="connect4x4", game_id=match_id)
            rematch = (await ann_s.OfferRematch(offer)).challenge
            assert c4.Config.FromString(rematch.config) == config
            taken = (await bob_s.OfferRematch(offer)).challenge
            assert taken.status == ch.CHALLENGE_STATUS_MATCHED

            async def rematched() -> Any:
                return (await games.GetGame(c4.GetGameRequest(game_id=taken.match_id))).game

            again = await eventually(rematched, 60)
            assert [s.player_id for s in again.seats] == [s.player_id for s in game.seats][::-1]
            assert again.config.first_seat == 1
            assert again.config.blockers_count_toward_lines

    store = PostgresEventStore(database_url)
    try:
        [recorded] = await store.read_stream(match_stream(match_id))
    finally:
        await store.close()
    formed = mm_events.MatchFormed.FromString(recorded.data)
    assert formed.challenge_id == made.challenge_id
    assert c4.Config.FromString(formed.config) == config
