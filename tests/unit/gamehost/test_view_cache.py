"""Each version's per-viewer picture built once; boards go in as kept wire bytes."""

from __future__ import annotations

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4pb
from parlor.gamehost.wire.views import ElementWire, ViewCache
from parlor.upwords.v1 import upwords_pb2 as uwpb


def test_a_picture_is_built_once_per_game_version_viewer_and_everything() -> None:
    built: list[tuple[str, int, int | None, bool]] = []
    cache: ViewCache[c4pb.Game] = ViewCache(size=3)

    def get(game: str, version: int, viewer: int | None, everything: bool) -> c4pb.Game:
        def build() -> c4pb.Game:
            built.append((game, version, viewer, everything))
            return c4pb.Game(game_id=game, version=version)

        return cache.get(game, version, viewer, everything, build)

    first = get("g", 1, 0, False)
    assert get("g", 1, 0, False) is first
    assert get("g", 1, 1, False) is not first  # another seat: its own picture
    assert get("g", 1, 0, True) is not first  # the game over: everything shown
    assert len(built) == 3
    get("g", 2, 0, False)  # the oldest goes
    get("g", 1, 0, False)
    assert built[-1] == ("g", 1, 0, False)
    assert len(built) == 5


def test_joined_wire_bytes_give_the_message_built_element_by_element() -> None:
    holes = [(c4pb.CONTENT_CHECKER, 1), (c4pb.CONTENT_EMPTY, 0), (c4pb.CONTENT_CHECKER, 1)]
    wire = ElementWire(c4pb.Game, "front", lambda h: c4pb.Hole(content=h[0], seat=h[1]))
    merged = c4pb.Game(game_id="g", version=3)
    wire.merge_into(merged, holes)
    built = c4pb.Game(
        game_id="g", version=3, front=[c4pb.Hole(content=c, seat=s) for c, s in holes]
    )
    assert merged == built
    stacks = [(), ("A", "B"), ("QU",), ()]
    board = ElementWire(uwpb.Game, "board", lambda t: uwpb.Stack(tiles=list(t)), limit=1)
    game = uwpb.Game(seats=[common_pb2.Seat(index=0, player_id="ada")])
    board.merge_into(game, stacks)  # past its limit it builds without keeping: same bytes
    assert [tuple(s.tiles) for s in game.board] == stacks
    assert game.seats[0].player_id == "ada"
