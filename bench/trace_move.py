"""One Connect 4x4 ``PlayMove`` traced through the servicer, in-process (no gRPC, no store).

Prints, for the game host's modules, how many times the move enters each from another
file (a coroutine resumed is not a new entry) and how many of its functions run in all,
and how often the seat is resolved (``Table.seat_of``): the figures of issue 39 ("the
servicer and the pipeline each entered once", "seat resolutions per move: 1"). Run:
``.venv/bin/python bench/trace_move.py``.
"""

from __future__ import annotations

import asyncio
import collections
import sys
from types import FrameType
from typing import Any

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.kit import auth
from parlor.services.connect4x4.game import GAME
from parlor.services.connect4x4.game import SERVING as C4_SERVING

MODULES = ("gamehost/wire/service.py", "gamehost/pipeline/pipeline.py", "gamehost/host/host.py")


async def as_(identity: auth.Identity, call: Any) -> Any:
    token = auth.bind(identity)
    try:
        return await call
    finally:
        auth.unbind(token)


async def main() -> None:
    host: Any = GameHost(GAME.name, GAME.decider, GAME.codec, InMemoryEventStore())
    servicer = C4_SERVING.servicer(host)
    seats = [common_pb2.Seat(player_id="ada"), common_pb2.Seat(player_id="bob")]
    create = pb.CreateGameRequest(game_id="g", seats=seats, config=pb.Config(players=2))
    await as_(auth.Identity("host", roles=(auth.SERVICE_ROLE,)), servicer.CreateGame(create, None))
    first = pb.PlayMoveRequest(game_id="g", move="df", command_id="m1")
    await as_(auth.Identity("ada"), servicer.PlayMove(first, None))  # caches warmed
    entered: collections.Counter[str] = collections.Counter()
    ran: collections.Counter[str] = collections.Counter()
    names: dict[str, list[str]] = collections.defaultdict(list)
    frames: dict[int, FrameType] = {}  # held, so an id names one frame

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or id(frame) in frames:
            return
        frames[id(frame)] = frame
        here = frame.f_code.co_filename
        if frame.f_code.co_name == "seat_of" and here.endswith("gamehost/table/seating.py"):
            ran["seat_of"] += 1
        for module in MODULES:
            if here.endswith(module):
                ran[module] += 1
                caller = frame.f_back.f_code.co_filename if frame.f_back else ""
                if caller != here:
                    entered[module] += 1
                    names[module].append(frame.f_code.co_name)

    move = servicer.PlayMove(pb.PlayMoveRequest(game_id="g", move="af", command_id="m2"), None)
    sys.setprofile(profile)
    try:
        await as_(auth.Identity("bob"), move)
    finally:
        sys.setprofile(None)
    for module in MODULES:
        print(
            f"{module}: entered {entered[module]} times ({' '.join(names[module])}),"
            f" {ran[module]} of its functions ran"
        )
    print(f"seat resolutions (Table.seat_of): {ran['seat_of']}")


if __name__ == "__main__":
    asyncio.run(main())
