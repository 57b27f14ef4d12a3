"""parlor-client against a real grpc.aio server in this process: errors, retries, streams.

The server answers as a Parlor service does (``parlor.kit.status.to_status``: the code,
and an ErrorInfo in ``grpc-status-details-bin``), so these check that what a server sends
is what a client raises.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import pytest

from parlor import client as pc
from parlor.core import errors as core
from parlor.kit.status import to_status
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

FAST = pc.RetryPolicy(attempts=4, first_backoff=0.001, max_backoff=0.01, timeout=2.0)


class Scripted(pb_grpc.TakeFourServiceServicer):
    """Each call takes the next step of its script: an error to raise, a delay, or success."""

    def __init__(self) -> None:
        self.script: dict[str, list[Any]] = {}
        self.requests: dict[str, list[Any]] = {}
        self.metadata: list[dict[str, str]] = []

    async def _step(self, name: str, request: Any, context: Any) -> None:
        self.requests.setdefault(name, []).append(request)
        self.metadata.append(dict(context.invocation_metadata()))
        steps = self.script.get(name) or []
        step = steps.pop(0) if steps else None
        if isinstance(step, float):
            await asyncio.sleep(step)
        elif isinstance(step, core.ParlorError):
            await context.abort_with_status(to_status(step))
        elif isinstance(step, grpc.StatusCode):
            await context.abort(step, "plain")  # no details: no ErrorInfo

    async def PlaceTile(self, request: Any, context: Any) -> pb.PlaceTileResponse:
        await self._step("PlaceTile", request, context)
        return pb.PlaceTileResponse(game=pb.Game(game_id=request.game_id, version=7))

    async def BerserkGame(self, request: Any, context: Any) -> pb.BerserkGameResponse:
        await self._step("BerserkGame", request, context)
        return pb.BerserkGameResponse(game=pb.Game(game_id=request.game_id, version=2))

    async def CreateGame(self, request: Any, context: Any) -> pb.CreateGameResponse:
        await self._step("CreateGame", request, context)
        return pb.CreateGameResponse(game=pb.Game(game_id="new"))

    async def GetGame(self, request: Any, context: Any) -> pb.GetGameResponse:
        await self._step("GetGame", request, context)
        return pb.GetGameResponse(game=pb.Game(game_id=request.game_id, version=3))

    async def ListGames(self, request: Any, context: Any) -> pb.ListGamesResponse:
        await self._step("ListGames", request, context)
        return pb.ListGamesResponse(games=[pb.GameSummary(game_id="g1")])

    async def WatchGame(self, request: Any, context: Any) -> AsyncIterator[pb.WatchGameResponse]:
        self.requests.setdefault("WatchGame", []).append(request)
        versions, then = self.script["WatchGame"].pop(0)
        for v in versions:
            response = pb.WatchGameResponse()
            response.event.info.version = v
            yield response
        if then is not None:
            await context.abort_with_status(to_status(then))


@pytest.fixture
async def served() -> AsyncIterator[tuple[Scripted, Callable[..., pc.ParlorClient]]]:
    servicer = Scripted()
    server = grpc.aio.server()
    pb_grpc.add_TakeFourServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    made: list[pc.ParlorClient] = []

    def connect(**options: Any) -> pc.ParlorClient:
        options.setdefault("retry", FAST)
        made.append(pc.ParlorClient(f"127.0.0.1:{port}", "tok", **options))
        return made[-1]

    try:
        yield servicer, connect
    finally:
        for c in made:
            await c.close()
        await server.stop(None)


@pytest.mark.parametrize(
    ("raised", "family"),
    [
        (
            core.RuleViolation("ROUND_CHANGED", "round 2 now", metadata={"round": "2"}),
            pc.FailedPrecondition,
        ),
        (core.PermissionDenied("not yours", reason="NOT_YOUR_SEAT"), pc.PermissionDenied),
        (core.InvalidArgument("bad id", reason="INVALID_GAME_ID"), pc.InvalidArgument),
        (core.NotFound("no game", reason="GAME_NOT_FOUND"), pc.NotFound),
        (core.Unauthenticated("expired", reason="TOKEN_EXPIRED"), pc.Unauthenticated),
        (core.ResourceExhausted("busy", reason="TOO_MANY_STREAMS"), pc.ResourceExhausted),
        (core.AlreadyExists("taken", reason="GAME_EXISTS"), pc.AlreadyExists),
    ],
)
async def test_error_info_becomes_an_exception_with_reason_and_metadata(
    served: Any, raised: core.ParlorError, family: type[pc.ParlorError]
) -> None:
    servicer, connect = served
    servicer.script["PlaceTile"] = [raised]
    async with connect() as parlor:
        with pytest.raises(family) as caught:
            await parlor.takefour.command("PlaceTile", game_id="g", tile=1, round=1)
    error = caught.value
    assert error.reason == raised.reason
    assert error.metadata == raised.metadata
    assert error.message == raised.message
    assert error.domain == "parlor.dev"
    assert isinstance(error, pc.ParlorError)
    assert len(servicer.requests["PlaceTile"]) == 1  # never retried


async def test_a_renamed_reason_is_found_by_its_old_name_too(served: Any) -> None:
    servicer, connect = served
    servicer.script["PlaceTile"] = [core.InvalidNotation("cannot read", formerly="BAD_NOTATION")]
    async with connect() as parlor:
        with pytest.raises(pc.InvalidArgument) as caught:
            await parlor.takefour.command("PlaceTile", game_id="g", tile=1, round=1)
    error = caught.value
    assert error.reason == core.INVALID_NOTATION
    assert error.metadata == {"deprecated_reason": "BAD_NOTATION"}
    assert error.has_reason("INVALID_NOTATION")
    assert error.has_reason("BAD_NOTATION")
    assert not error.has_reason("OFF_BOARD")


async def test_an_error_without_details_is_named_by_its_code(served: Any) -> None:
    servicer, connect = served
    servicer.script["GetGame"] = [grpc.StatusCode.INTERNAL]
    async with connect() as parlor:
        with pytest.raises(pc.Internal) as caught:
            await parlor.takefour.get_game("g")
    assert caught.value.reason == "INTERNAL"
    assert caught.value.metadata == {}
    assert caught.value.message == "plain"


async def test_a_command_is_retried_with_its_command_id_until_it_goes_through(
    served: Any,
) -> None:
    servicer, connect = served
    down = core.Unavailable("dictionary down", reason="DICTIONARY_UNAVAILABLE")
    servicer.script["PlaceTile"] = [down, grpc.StatusCode.UNAVAILABLE]
    async with connect() as parlor:
        response = await parlor.takefour.command("PlaceTile", game_id="g", tile=3, x=1, y=2)
    assert response.game.version == 7
    sent = servicer.requests["PlaceTile"]
    assert len(sent) == 3
    assert len({r.command_id for r in sent}) == 1  # one command, sent three times
    assert sent[0].command_id
    assert servicer.metadata[0]["authorization"] == "Bearer tok"


async def test_a_missed_deadline_is_retried(served: Any) -> None:
    servicer, connect = served
    servicer.script["GetGame"] = [1.0]  # the first answer comes too late
    patient = pc.RetryPolicy(attempts=2, first_backoff=0.001, timeout=0.2)
    async with connect(retry=patient) as parlor:
        game = await parlor.takefour.get_game("g")
    assert game.version == 3
    assert len(servicer.requests["GetGame"]) == 2


async def test_retries_end_with_the_last_error(served: Any) -> None:
    servicer, connect = served
    servicer.script["GetGame"] = [core.Unavailable("down")] * 10
    async with connect() as parlor:
        with pytest.raises(pc.Unavailable) as caught:
            await parlor.takefour.get_game("g")
    assert caught.value.code is grpc.StatusCode.UNAVAILABLE
    assert len(servicer.requests["GetGame"]) == FAST.attempts


async def test_a_call_that_is_not_idempotent_is_sent_once(served: Any) -> None:
    servicer, connect = served
    servicer.script["CreateGame"] = [core.Unavailable("down")]
    async with connect() as parlor:
        with pytest.raises(pc.Unavailable):
            await parlor.takefour.create_game(["ada", "bot:easy"])
        assert (await parlor.takefour.create_game(["ada", "bot:easy"])).game_id == "new"
    assert len(servicer.requests["CreateGame"]) == 2
    assert [s.player_id for s in servicer.requests["CreateGame"][0].seats] == ["ada", "bot:easy"]


async def test_a_watch_goes_on_after_an_idle_close_and_a_broken_stream(served: Any) -> None:
    servicer, connect = served
    idle = core.DeadlineExceeded("idle", reason="STREAM_IDLE")
    servicer.script["WatchGame"] = [
        ([1, 2], idle),
        ([], core.Unavailable("restarting")),
        ([3], None),
    ]
    async with connect() as parlor:
        seen = [e.info.version async for e, _ in parlor.takefour.watch("g")]
    assert seen == [1, 2, 3]
    assert [r.after_version for r in servicer.requests["WatchGame"]] == [0, 2, 2]


async def test_other_errors_end_a_watch(served: Any) -> None:
    servicer, connect = served
    busy = core.ResourceExhausted("busy", reason="TOO_MANY_STREAMS")
    servicer.script["WatchGame"] = [([1], busy)]
    async with connect() as parlor:
        with pytest.raises(pc.ResourceExhausted, match="TOO_MANY_STREAMS"):
            async for _ in parlor.takefour.watch("g"):
                pass


async def test_list_games_passes_its_filters_through(served: Any) -> None:
    servicer, connect = served
    async with connect() as parlor:
        going = await parlor.takefour.list_games("ada", in_progress_only=True, page_size=5)
        assert [g.game_id for g in going] == ["g1"]
        await parlor.takefour.list_games("ada", finished_only=True)
    asked, finished = servicer.requests["ListGames"]
    assert (asked.player_id, asked.in_progress_only, asked.finished_only) == ("ada", True, False)
    assert asked.page_size == 5
    assert (finished.in_progress_only, finished.finished_only) == (False, True)


def test_each_game_is_found_by_its_descriptor() -> None:
    takefour = pc.game_api("takefour")
    assert takefour.service.full_name == "parlor.takefour.v1.TakeFourService"
    assert {"PlaceTile", "MoveTile", "CallDone"} <= set(takefour.commands)
    assert "GetGame" not in takefour.commands
    assert "CreateGame" not in takefour.commands
    assert set(pc.game_api("connect4x4").commands) >= {"PlayMove", "Resign"}
    assert "Play" in pc.game_api("upwords").commands
    with pytest.raises(KeyError, match="chess"):
        pc.game_api("chess")


async def test_export_reads_every_games_text() -> None:
    """Every game's ExportGameResponse carries ``text`` (Take Four's also its first name for
    it, ``notation``): ``GameClient.export`` gives the game's record for each."""
    from parlor.connect4x4.v1 import connect4x4_pb2 as c4
    from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc

    class Connect4x4Exports(c4_grpc.Connect4x4ServiceServicer):
        async def ExportGame(self, request: Any, context: Any) -> c4.ExportGameResponse:
            return c4.ExportGameResponse(text=f'[Seat0 "Ada"]\n1. R df {request.game_id}')

    class TakeFourExports(pb_grpc.TakeFourServiceServicer):
        async def ExportGame(self, request: Any, context: Any) -> pb.ExportGameResponse:
            text = f"takefour {request.game_id}"
            return pb.ExportGameResponse(text=text, notation=text)

    server = grpc.aio.server()
    c4_grpc.add_Connect4x4ServiceServicer_to_server(Connect4x4Exports(), server)
    pb_grpc.add_TakeFourServiceServicer_to_server(TakeFourExports(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with pc.ParlorClient(f"127.0.0.1:{port}", "tok", retry=FAST) as parlor:
            assert await parlor.connect4x4.export("g1") == '[Seat0 "Ada"]\n1. R df g1'
            assert await parlor.takefour.export("g2") == "takefour g2"
    finally:
        await server.stop(None)


async def test_berserk_asks_the_games_berserk_game_for_a_seat_with_a_command_id(
    served: Any,
) -> None:
    servicer, connect = served
    servicer.script["BerserkGame"] = [core.FailedPrecondition("moved", reason="BERSERK_TOO_LATE")]
    async with connect() as parlor:
        with pytest.raises(pc.FailedPrecondition) as late:
            await parlor.takefour.berserk("g", seat=1)
        assert late.value.reason == "BERSERK_TOO_LATE"
        answer = await parlor.takefour.berserk("g")
    assert answer.game.game_id == "g"
    first, second = servicer.requests["BerserkGame"]
    assert (first.seat, first.HasField("seat"), second.HasField("seat")) == (1, True, False)
    assert first.command_id
    assert second.command_id != first.command_id
