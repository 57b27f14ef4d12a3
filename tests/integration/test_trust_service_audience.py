"""A word game's service token opens the dictionary and nothing else, on real PostgreSQL/NATS.

Upwords holds a key of its own to sign its token for the dictionary. A service token holds
powers no player has (tickets for anyone at any rating, games seating anyone, any seat's
moves, anyone's tickets, no rate limit), so if it were taken everywhere a compromised
Upwords pod would hold all of them in every service. It names its audience (``aud``:
``dictionary``), the key's JWK (written by ``parlor-keys`` from the game's declared
``calls``) lets it sign for nothing else, and every other service refuses it with
UNAUTHENTICATED TOKEN_WRONG_AUDIENCE, storing nothing. Here one server hosts the
dictionary, matchmaking, Connect 4x4 and Take Four on one port, as the platform does: each
call is checked for the component serving its method.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import psycopg
import pytest

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.dictionary.v1 import dictionary_pb2 as dpb
from parlor.dictionary.v1 import dictionary_pb2_grpc as dpb_grpc
from parlor.gamehost.words.words import service_token
from parlor.kit import client
from parlor.kit.auth import WRONG_AUDIENCE, AuthSettings, issue_token
from parlor.kit.keys import write_keys
from parlor.kit.main import available
from parlor.kit.server import ServerSettings, running
from parlor.kit.status import reason_of
from parlor.matchmaking.v1 import matchmaking_pb2 as mm
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
from parlor.takefour.v1 import takefour_pb2 as tf
from parlor.takefour.v1 import takefour_pb2_grpc as tf_grpc

pytestmark = pytest.mark.integration


class Deployment:
    """The keys as ``parlor-keys`` writes them, and a server of four components on one port."""

    def __init__(self, keys: Path, target: str) -> None:
        self.keys = keys
        self.target = target
        jwks = str(keys / "jwks.json")
        self.identity = AuthSettings(private_key=str(keys / "identity.pem"), public_keys=jwks)
        # what the Upwords pod holds: its own key (kid upwords) and the JWKS
        self.upwords = AuthSettings(
            private_key=str(keys / "upwords.pem"), key_id="upwords", public_keys=jwks
        )

    def player(self, player_id: str) -> str:
        return issue_token(self.identity, player_id, player_id.title())


@pytest.fixture
async def deployment(
    migrated: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> AsyncIterator[Deployment]:
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "60")  # no rounds: tickets wait
    write_keys(tmp_path)
    monkeypatch.setenv("PARLOR_JWT_PRIVATE_KEY", str(tmp_path / "identity.pem"))
    auth = AuthSettings(
        private_key=str(tmp_path / "identity.pem"), public_keys=str(tmp_path / "jwks.json")
    )
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0, grace_seconds=2)
    factories = available()
    names = ("dictionary", "matchmaking", "connect4x4", "takefour")
    async with running(settings, [factories[n] for n in names], auth) as server:
        yield Deployment(tmp_path, f"127.0.0.1:{server.port}")


def wrong_audience(error: pytest.ExceptionInfo[grpc.aio.AioRpcError]) -> bool:
    return (
        error.value.code() == grpc.StatusCode.UNAUTHENTICATED
        and reason_of(error.value) == WRONG_AUDIENCE
    )


def tickets_of(database_url: str, player_id: str) -> int:
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM mm_tickets WHERE player_id = %s", (player_id,)
        ).fetchone()
    return int(row[0]) if row else 0


async def test_an_upwords_token_is_answered_by_the_dictionary_and_refused_by_the_rest(
    deployment: Deployment, database_url: str
) -> None:
    tag = uuid.uuid4().hex[:8]
    ada, bob, victim = f"ada-{tag}", f"bob-{tag}", f"victim-{tag}"
    upwords = service_token(deployment.upwords, "upwords")()  # the token Upwords calls with
    async with (
        client.channel(deployment.target, upwords) as ch,
        client.channel(deployment.target, deployment.player(ada)) as ada_ch,
    ):
        # What it is for: the dictionary answers it.
        dictionary = dpb_grpc.DictionaryServiceStub(ch)
        lexicons = await dictionary.ListLexicons(dpb.ListLexiconsRequest())
        checked = await dictionary.CheckWords(
            dpb.CheckWordsRequest(lexicon=lexicons.lexicons[0].id, words=["CAT", "QXZ"])
        )
        assert list(checked.invalid_indices) == [1]

        # Matchmaking: no ticket for another player at a rating of its choosing ...
        matchmaking = mm_grpc.MatchmakingServiceStub(ch)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await matchmaking.CreateTicket(
                mm.CreateTicketRequest(game_type="connect4x4", player_id=victim, rating=3000.0)
            )
        assert wrong_audience(refused)
        assert "'dictionary', not 'matchmaking'" in (refused.value.details() or "")
        assert tickets_of(database_url, victim) == 0
        # ... nor a look at (or the cancelling of) someone else's ticket.
        theirs = await mm_grpc.MatchmakingServiceStub(ada_ch).CreateTicket(
            mm.CreateTicketRequest(game_type="connect4x4", min_players=2, max_players=2)
        )
        ticket_id = theirs.ticket.ticket_id
        for refusal in (
            matchmaking.GetTicket(mm.GetTicketRequest(ticket_id=ticket_id)),
            matchmaking.CancelTicket(mm.CancelTicketRequest(ticket_id=ticket_id)),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await refusal
            assert wrong_audience(refused)
        still = await mm_grpc.MatchmakingServiceStub(ada_ch).CancelTicket(
            mm.CancelTicketRequest(ticket_id=theirs.ticket.ticket_id)
        )
        assert still.ticket.status == mm.TICKET_STATUS_CANCELLED  # it was still waiting

        # Another game: no game seating two people who never agreed ...
        game_id = uuid.uuid4().hex
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await tf_grpc.TakeFourServiceStub(ch).CreateGame(
                tf.CreateGameRequest(
                    game_id=game_id,
                    seats=[common_pb2.Seat(player_id=ada), common_pb2.Seat(player_id=bob)],
                )
            )
        assert wrong_audience(refused)
        with pytest.raises(grpc.aio.AioRpcError) as missing:
            await tf_grpc.TakeFourServiceStub(ada_ch).GetGame(tf.GetGameRequest(game_id=game_id))
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND

        # ... nor a move for a player's seat in their own game.
        c4_ada = c4_grpc.Connect4x4ServiceStub(ada_ch)
        made = await c4_ada.CreateGame(
            c4.CreateGameRequest(
                seats=[common_pb2.Seat(player_id=ada), common_pb2.Seat(player_id="bot:random")]
            )
        )
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await c4_grpc.Connect4x4ServiceStub(ch).PlayMove(
                c4.PlayMoveRequest(
                    game_id=made.game.game_id, move="af", command_id="m0", seat=made.game.turn
                )
            )
        assert wrong_audience(refused)
        after = await c4_ada.GetGame(c4.GetGameRequest(game_id=made.game.game_id))
        assert after.game.version == made.game.version


async def test_the_upwords_key_cannot_sign_a_token_for_another_service(
    deployment: Deployment, database_url: str
) -> None:
    victim = f"victim-{uuid.uuid4().hex[:8]}"
    forged = issue_token(
        deployment.upwords,
        "service:upwords",
        roles=("service",),
        audience=("matchmaking", "connect4x4", "takefour", "dictionary"),
    )
    async with client.channel(deployment.target, forged) as ch:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await mm_grpc.MatchmakingServiceStub(ch).CreateTicket(
                mm.CreateTicketRequest(game_type="connect4x4", player_id=victim, rating=3000.0)
            )
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert reason_of(refused.value) == "TOKEN_INVALID"
        assert "may sign tokens only for 'dictionary'" in (refused.value.details() or "")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await dpb_grpc.DictionaryServiceStub(ch).ListLexicons(dpb.ListLexiconsRequest())
        assert reason_of(refused.value) == "TOKEN_INVALID"
    assert tickets_of(database_url, victim) == 0


async def test_a_service_token_meant_for_matchmaking_still_acts_for_a_player(
    deployment: Deployment, database_url: str
) -> None:
    """The legitimate path: an identity-signed service token naming matchmaking (an operator's
    tool, a tournament service) makes a ticket for another player there, and only there."""
    player = f"for-a-player-{uuid.uuid4().hex[:8]}"
    token = issue_token(
        deployment.identity, "service:tools", roles=("service",), audience=("matchmaking",)
    )
    async with client.channel(deployment.target, token) as ch:
        made = await mm_grpc.MatchmakingServiceStub(ch).CreateTicket(
            mm.CreateTicketRequest(game_type="connect4x4", player_id=player, rating=1600.0)
        )
        assert (made.ticket.player_id, made.ticket.rating) == (player, 1600.0)
        await mm_grpc.MatchmakingServiceStub(ch).CancelTicket(
            mm.CancelTicketRequest(ticket_id=made.ticket.ticket_id)
        )
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await tf_grpc.TakeFourServiceStub(ch).CreateGame(
                tf.CreateGameRequest(
                    seats=[common_pb2.Seat(player_id=player), common_pb2.Seat(player_id="x")]
                )
            )
        assert wrong_audience(refused)
