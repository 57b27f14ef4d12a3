"""Over gRPC, on real PostgreSQL and the dictionary service: in a game of three, a challenge
meant for the first play arrives after the next player has played. Naming the play it meant
(``play``), it is refused with ``FAILED_PRECONDITION`` ``PLAY_CHANGED`` and nothing is
appended; naming none (an old client), it is decided on the play pending now, as before.
"""

from __future__ import annotations

import uuid
from typing import Any

import grpc
import pytest

from parlor.client.errors import error_from
from parlor.common.v1 import common_pb2
from parlor.kit.status import reason_of
from parlor.rules import upwords as uw
from parlor.rules.upwords.bot import UpwordsBot
from parlor.upwords.v1 import upwords_pb2 as pb
from parlor.upwords.v1 import upwords_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration

NAMES = ("ada", "bob", "cy")


def board_of(game: pb.Game) -> uw.Board:
    return uw.Board(tuple(tuple(s.tiles) for s in game.board))


async def best(stub: Any, game_id: str, bot: UpwordsBot) -> Any:
    """The seat's best play on the board it sees, as a Play request (None: it has none)."""
    game = (await stub.GetGame(pb.GetGameRequest(game_id=game_id))).game
    play = bot.best_play(board_of(game), tuple(game.rack))
    if play is None:
        return None
    placements = [pb.Placement(row=p.row, col=p.col, tile=p.tile) for p in play.placements]
    return pb.PlayRequest(game_id=game_id, placements=placements)


async def test_a_late_challenge_naming_an_earlier_play_is_refused_in_a_game_of_three(
    upwords: Any, helper_bot: UpwordsBot
) -> None:
    async with (
        upwords.service_channel() as s_ch,
        upwords.channel("ada") as a_ch,
        upwords.channel("bob") as b_ch,
        upwords.channel("cy") as c_ch,
    ):
        stubs = [pb_grpc.UpwordsServiceStub(ch) for ch in (a_ch, b_ch, c_ch)]
        for _ in range(10):  # both plays need a word from the rack
            game_id = uuid.uuid4().hex
            created = await pb_grpc.UpwordsServiceStub(s_ch).CreateGame(
                pb.CreateGameRequest(
                    game_id=game_id,
                    seats=[common_pb2.Seat(player_id=n) for n in NAMES],
                    config=pb.Config(word_checking=pb.WORD_CHECKING_CHALLENGE),
                )
            )
            first = created.game.to_move
            second, third = (first + 1) % 3, (first + 2) % 3
            opening = await best(stubs[first], game_id, helper_bot)
            if opening is None:
                continue
            await stubs[first].Play(opening)
            seen = (await stubs[third].GetGame(pb.GetGameRequest(game_id=game_id))).game
            reply = await best(stubs[second], game_id, helper_bot)
            if reply is not None:
                break
        else:
            pytest.fail("no game of ten gave both players a word")
        assert (seen.pending.seat, seen.pending.number) == (first, 1)
        played = await stubs[second].Play(reply)  # closes the first play's window
        assert (played.game.pending.seat, played.game.pending.number) == (second, 2)

        late = pb.ChallengeRequest(game_id=game_id, play=seen.pending.number, command_id="late")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stubs[third].Challenge(late)
        e = refused.value
        assert (e.code(), reason_of(e)) == (grpc.StatusCode.FAILED_PRECONDITION, "PLAY_CHANGED")
        assert error_from(e).metadata == {"play": "2", "meant_for": "1"}
        accept = pb.AcceptPlayRequest(game_id=game_id, play=1)
        with pytest.raises(grpc.aio.AioRpcError) as also:
            await stubs[third].AcceptPlay(accept)
        assert reason_of(also.value) == "PLAY_CHANGED"
        now = (await stubs[third].GetGame(pb.GetGameRequest(game_id=game_id))).game
        assert now.version == played.game.version  # nothing appended
        history = await stubs[third].GetHistory(pb.GetHistoryRequest(game_id=game_id))
        assert history.events[-1].WhichOneof("body") == "word_played"

        # Unset: decided on the play pending now (the second's), as old clients expect.
        answered = await stubs[third].Challenge(pb.ChallengeRequest(game_id=game_id))
        outcome = answered.events[0]
        kind = outcome.WhichOneof("body")
        assert kind in ("challenge_failed", "play_withdrawn")
        assert getattr(outcome, kind).seat == second
