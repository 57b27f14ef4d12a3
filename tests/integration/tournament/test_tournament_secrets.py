"""An invitation-only tournament's code reaches no one but its organiser, once.

Every RPC of TournamentService (found from the descriptors: one added later is checked
too) is called by a third player naming the tournament; no answer, streamed item, error
message or error detail carries the code, nor does any message the relay put on NATS for
the tournament (the lane carries each event's type only, its payload emptied). Without a
token, every RPC is refused UNAUTHENTICATED (test_secrets_every_rpc.py checks that for every
service, this one included).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import Any

import grpc
import nats
import pytest
from google.protobuf.message_factory import GetMessageClass

from parlor.tournaments.v1 import tournaments_pb2 as pb
from parlor.tournaments.v1 import tournaments_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration

SERVICE = pb.DESCRIPTOR.services_by_name["TournamentService"]


async def test_no_rpc_and_no_bus_message_carries_an_invitation_code(
    start_platform: Any, nats_url: str, subject_prefix: str
) -> None:
    organiser, cyd = f"org-{secrets.token_hex(4)}", f"cyd-{secrets.token_hex(4)}"
    async with (
        start_platform("tournament") as platform,
        platform.channel(organiser) as mine,
        platform.channel(cyd) as theirs,
    ):
        created = await pb_grpc.TournamentServiceStub(mine).CreateTournament(
            pb.CreateTournamentRequest(
                settings=pb.Settings(
                    name="Invited only",
                    format=pb.FORMAT_SWISS,
                    game_type="connect4x4",
                    max_players=8,
                    rounds=2,
                    access=pb.ACCESS_INVITE,
                )
            )
        )
        code, tid = created.invite_code, created.tournament.tournament_id
        assert code
        answered = 0
        for method in SERVICE.methods:
            request = GetMessageClass(method.input_type)()
            if "tournament_id" in method.input_type.fields_by_name:
                request.tournament_id = tid
            path = f"/{SERVICE.full_name}/{method.name}"
            serialize, parse = request.SerializeToString, GetMessageClass(method.output_type)
            said: list[str] = []
            try:
                if method.server_streaming:
                    call = theirs.unary_stream(path, serialize, parse.FromString)(request)
                    with contextlib.suppress(asyncio.TimeoutError):
                        async with asyncio.timeout(2):
                            async for item in call:
                                said.append(str(item))
                    call.cancel()
                else:
                    said.append(
                        str(await theirs.unary_unary(path, serialize, parse.FromString)(request))
                    )
                answered += 1
            except grpc.aio.AioRpcError as error:
                said += [str(error.details()), str(error.trailing_metadata())]
            assert all(code not in s for s in said), method.name
        assert answered >= 3
    nc = await nats.connect(nats_url)
    try:
        sub = await nc.jetstream().subscribe(
            f"{subject_prefix}.tournament.{tid}.>", ordered_consumer=True
        )
        seen = 0
        with contextlib.suppress(nats.errors.TimeoutError):
            while True:
                msg = await sub.next_msg(timeout=3)
                assert msg.data == b"", msg.subject
                assert code not in str(msg.headers), msg.subject
                seen += 1
        await sub.unsubscribe()
    finally:
        await nc.close()
    assert seen >= 1
