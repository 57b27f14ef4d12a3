"""The Take Four adapter without a server: drawing, typed commands, the notation."""

from __future__ import annotations

import asyncio
import io

import pytest
from kits.takefour import lexicon, tile_set
from rich.console import Console

from parlor.cli.games.takefour import (
    LEAVING,
    Cell,
    TakeFour,
    TileSpec,
    hand_tile,
    notation,
    parse_command,
)
from parlor.common.v1 import common_pb2
from parlor.core.decider import replay
from parlor.gamehost.table.seating import OpenTable, Table
from parlor.gametypes.seats import Seat
from parlor.rules import takefour as tf
from parlor.rules.takefour.rules import attach_verdicts
from parlor.services.takefour.game import Event, export, game_event_pb, game_pb, rules
from parlor.takefour.v1 import takefour_pb2 as pb

RULES = rules()
TILES = tile_set("C1 A1 T1 S1 D1 O1 G1 E1 H1 I1 N1", jokers=1)
SEATS = (Seat("ada", "Ada"), Seat("bot:easy", "Bot"))
WORDS = lexicon("CATS", "CAT", "AT", "DOG", "DO")


def adapter() -> TakeFour:
    return TakeFour.__new__(TakeFour)  # drawing and parsing need no channel


def drawn(game: object, me: str | None = "ada") -> str:
    out = io.StringIO()
    Console(file=out, width=100).print(adapter().draw(game, me))
    return out.getvalue()


class Game:
    """A game played through the engine as the service would: events kept, tiles by face."""

    def __init__(self, max_rounds: int = 1) -> None:
        config = tf.TakeFourConfig(tiles=TILES, max_rounds=max_rounds, lexicon="enable1-test")
        self.events: list[Event] = []
        self.table = RULES.initial_state()
        self.run(OpenTable(SEATS, tf.CreateGame(config, ("ada", "bot:easy/1"))))
        # The bag front first: ada gets C A T S, the bot D O G ?; E H I N stay in the bag.
        self.run(tf.StartRound((0, 1, 2, 3, 4, 5, 6, 11, 7, 8, 9, 10)))

    def run(self, command: object) -> None:
        if isinstance(command, tf.CallTakeFour | tf.CallDone):
            command = attach_verdicts(self.table.game, command, WORDS)
        decided = RULES.decide(self.table, command)
        self.events += decided
        self.table = replay(RULES, decided, self.table)

    def place(self, seat: int, face: str, x: int, y: int, letter: str | None = None) -> None:
        hand = self.table.game.players[seat].hand
        tile = next(t for t in hand if TILES.face(t) == face)
        self.run(tf.PlaceTile(seat, tile, x, y, letter))

    def seen(self, viewer: int | None) -> object:
        return game_pb("g1", len(self.events), Table(SEATS, self.table.game), viewer)

    def history(self, viewer: int | None, reveal: bool) -> list[object]:
        out = []
        for version, event in enumerate(self.events, 1):
            info = common_pb2.EventInfo(stream_id="takefour-g1", version=version)
            out.append(game_event_pb(event, info, viewer, reveal))
        return out


def finished() -> Game:
    game = Game()
    for x, letter in enumerate("CAT"):
        game.place(0, letter, x, 0)
    game.place(0, "S", 3, 0)
    for x, letter in enumerate("DOG"):
        game.place(1, letter, x, 0)
    game.place(1, "?", 0, 1, "O")  # the joker under D: "DO" down
    game.run(tf.CallTakeFour(0))  # the last deal: E H to ada, I N to the bot
    game.place(0, "E", 5, 5)
    game.place(0, "H", 9, 9)
    game.place(1, "I", 7, 7)
    game.place(1, "N", 8, 8)
    game.run(tf.CallDone(0))
    assert RULES.is_terminal(game.table)
    return game


def test_a_game_won_because_the_others_left_does_not_say_lowest_total() -> None:
    # `resign` (Leave) in a two-seat game: the bot is the one seat racing and wins at once,
    # whatever the totals (rules 3), so "lowest total" would misstate why
    game = Game()
    game.run(tf.Forfeit(0))
    assert RULES.is_terminal(game.table)
    outcome = adapter().outcome(game.seen(0))
    assert outcome.startswith("Bot wins (everyone else forfeited); totals: Ada 0, Bot 0")
    assert "lowest total" not in outcome


def test_the_player_sees_their_grid_with_coordinates_and_their_hand_others_only_counts() -> None:
    game = Game()
    for x, letter in enumerate("CAT"):
        game.place(0, letter, x, 0)
    game.place(1, "D", 4, -2)
    text = drawn(game.seen(0))
    assert "Take Four, round 1: playing   bag 4   checking honor, target 100, 1 rounds" in text
    lines = text.splitlines()
    assert any(line.split() == ["0", "Ada", "(you)", "1", "3", "0", "-", "0"] for line in lines)
    assert any(line.split() == ["1", "Bot", "3", "1", "0", "-", "0"] for line in lines)
    grid = lines[lines.index("your grid") + 1 :]
    assert grid[0].split() == ["y\\x", "-1", "0", "1", "2", "3"]
    assert grid[1].split() == ["-1", "·", "·", "·", "·", "·"]
    assert grid[2].split() == ["0", "·", "C", "A", "T", "·"]
    assert grid[3].split() == ["1", "·", "·", "·", "·", "·"]
    assert "your hand: S(3)" in text
    assert "Bot's grid: 1 tile, hand: 3 tiles (hidden)" in text
    assert " D " not in text  # nothing of the bot's grid or hand
    spectator = drawn(game.seen(None), None)
    assert "your grid" not in spectator
    assert "Ada's grid: 3 tiles, hand: 1 tile (hidden)" in spectator


def test_an_empty_grid_says_how_to_start() -> None:
    text = drawn(Game().seen(0))
    assert "(empty: place a first tile anywhere, e.g. place A 0,0)" in text
    assert "your hand: C(0) A(1) T(2) S(3)" in text


def test_a_finished_game_shows_every_grid_the_scores_and_the_winner() -> None:
    game = finished()
    text = drawn(game.seen(1), "bot:easy")
    assert "Take Four, round 1: over" in text
    assert "Ada's grid" in text
    assert "your grid" in text  # the bot's own, seen from its seat
    rows = [line.split()[:5] for line in text.splitlines()]
    assert ["0", "·", "D", "O", "G"] in rows
    assert ["1", "·", "o", "·", "·"] in rows  # the joker shows its letter in lower case
    assert ["0", "·", "C", "A", "T"] in rows
    assert "rounds: 1: Ada" in text
    assert "(Done: Ada)" in text
    assert "(lowest total); totals: Ada" in text
    adapter_ = adapter()
    assert adapter_.is_over(game.seen(0))
    assert adapter_.to_move(game.seen(0)) is None


def test_a_grid_too_spread_out_is_listed_not_drawn() -> None:
    game = Game()
    game.place(0, "C", -1000, 0)
    game.place(0, "A", 1000, 0)
    text = drawn(game.seen(0))
    assert "(too spread out to draw) C@-1000,0 A@1000,0" in text
    assert len(text.splitlines()) < 20


def test_to_move_is_the_caller_while_a_round_is_played() -> None:
    game = Game()
    assert adapter().to_move(game.seen(0)) == "ada"
    assert adapter().to_move(game.seen(1)) == "bot:easy"
    assert adapter().to_move(game.seen(None)) is None


@pytest.mark.parametrize(
    ("typed", "verb", "tile", "cells", "letter"),
    [
        ("place a 0,0", "place", TileSpec(None, "A", None), (Cell(0, 0),), None),
        ("place ?=e -1,2", "place", TileSpec(None, "?", "E"), (Cell(-1, 2),), None),
        ("place 98?=E @3,4", "place", TileSpec(98, "?", "E"), (Cell(3, 4),), None),
        ("place 17 0,1", "place", TileSpec(17, None, None), (Cell(0, 1),), None),
        ("move 0,0 2,1", "move", None, (Cell(0, 0), Cell(2, 1)), None),
        ("move 0,0 > 1,0 =s", "move", None, (Cell(0, 0), Cell(1, 0)), "S"),
        ("back 2,1", "back", None, (Cell(2, 1),), None),
        ("take 2,1", "back", None, (Cell(2, 1),), None),
        ("swap 1,0", "swap", None, (Cell(1, 0),), None),
        ("swap 1,0 e", "swap", TileSpec(None, "E", None), (Cell(1, 0),), None),
        ("takefour", "takefour", None, (), None),
        ("agree", "agree", None, (), None),
        ("withdraw", "withdraw", None, (), None),
        ("done", "done", None, (), None),
    ],
)
def test_typed_commands(
    typed: str, verb: str, tile: TileSpec | None, cells: tuple[Cell, ...], letter: str | None
) -> None:
    command = parse_command(typed)
    assert (command.verb, command.tile, command.cells, command.letter) == (
        verb,
        tile,
        cells,
        letter,
    )


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("jump", "unknown command 'jump'"),
        ("place a", "place <tile> <x,y>"),
        ("place a c3", "'c3' is not a cell"),
        ("place a=e 0,0", "only a joker takes a letter"),
        ("place ab 0,0", "is not a tile"),
        ("move 0,0", "move <x,y> <x,y>"),
        ("done now", "done takes nothing"),
    ],
)
def test_a_command_not_understood_says_why(typed: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        parse_command(typed)


def test_a_typed_tile_is_found_in_the_hand() -> None:
    game = Game().seen(0)
    assert hand_tile(game, TileSpec(None, "T", None)) == 2
    assert hand_tile(game, TileSpec(3, "S", None)) == 3
    with pytest.raises(ValueError, match="no E in your hand"):
        hand_tile(game, TileSpec(None, "E", None))
    with pytest.raises(ValueError, match="tile 4 is not in your hand"):
        hand_tile(game, TileSpec(4, None, None))


def test_resigning_leaves_the_game() -> None:
    """Take Four's rulebook has no resignation: 'resign' sends Leave (the seat forfeits)."""
    sent: list[tuple[str, dict[str, object]]] = []

    class Api:
        async def command(self, name: str, **fields: object) -> object:
            sent.append((name, fields))
            return pb.LeaveResponse(game=pb.Game(game_id="g1"))

    game = asyncio.run(TakeFour(Api()).resign("g1", "c1"))  # type: ignore[arg-type]
    assert sent == [("Leave", {"game_id": "g1", "command_id": "c1"})]
    assert game.game_id == "g1"
    assert "forfeits" in LEAVING
    assert "quit" in LEAVING


def test_the_transcript_of_a_finished_game_is_the_services_export() -> None:
    game = finished()
    events = game.history(0, reveal=True)
    assert notation(events) == export("g1", "enable1-test", game.events)
    assert adapter().transcript(events) == notation(events)


def test_the_transcript_of_a_game_in_progress_hides_what_the_caller_may_not_see() -> None:
    game = Game()
    game.place(0, "C", 0, 0)
    game.place(1, "D", 0, 0)
    text = notation(game.history(0, reveal=False))
    assert "R1 bag (hidden)" in text
    assert "D1 start s0:0C,1A,2T,3S s1:(4 hidden) unused:- left:4" in text
    assert "s0 place 0C @0,0" in text
    assert "s1 place (hidden)" in text
    described = [adapter().event_text(e, ["Ada", "Bot"]) for e in game.history(0, reveal=False)]
    assert "Ada placed C (0) on 0,0" in described
    assert "Bot placed a tile" in described


class Commands:
    """A game client that records the commands sent and answers with the game it holds."""

    def __init__(self, game: object) -> None:
        self.game = game
        self.sent: list[tuple[str, dict[str, object]]] = []

    async def get_game(self, game_id: str, version: int = 0) -> object:
        return self.game

    async def command(self, name: str, **fields: object) -> object:
        self.sent.append((name, fields))
        return type("Response", (), {"game": self.game, "events": []})()


@pytest.mark.parametrize(
    ("typed", "rpc"),
    [
        ("place t 0,0", "PlaceTile"),
        ("move 0,0 1,0", "MoveTile"),
        ("back 0,0", "TakeBackTile"),
        ("takefour", "CallTakeFour"),
        ("agree", "AgreeToDeal"),
        ("withdraw", "WithdrawAgreement"),
        ("done", "CallDone"),
    ],
)
async def test_every_command_names_the_round_on_the_screen(typed: str, rpc: str) -> None:
    shown = Game().seen(0)
    api = Commands(shown)
    await TakeFour(api).play(shown, typed, "c1")  # type: ignore[arg-type]
    ((name, fields),) = api.sent
    assert name == rpc
    assert fields["round"] == 1 == shown.round  # type: ignore[attr-defined]
    assert (fields["game_id"], fields["command_id"]) == ("g1", "c1")
