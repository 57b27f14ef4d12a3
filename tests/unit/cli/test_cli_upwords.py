"""The Upwords adapter without a server: typed turns, the board drawing, the record.

Games and views come from the real rule engine and the service's codec (``game_pb``,
``game_event_pb``), so the adapter reads exactly the messages the service sends.
"""

from __future__ import annotations

import io
import random
import re
from typing import Any

import pytest
from rich.console import Console

from parlor.cli.games.upwords import Turn, Upwords, read_turn
from parlor.gamehost.table.seating import GameFinished, OpenTable, SeatsTaken, Table
from parlor.gamehost.wire.export import with_seat_tags
from parlor.gametypes.seats import Seat
from parlor.lexicon import enable1
from parlor.rules import upwords as uw
from parlor.rules.upwords.bot import BotPlay, UpwordsBot
from parlor.rules.upwords.dawg import Dawg
from parlor.rules.upwords.record import export_game
from parlor.services.upwords.game import game_event_pb, game_pb, rules
from parlor.upwords.v1 import upwords_pb2 as pb

RULES = rules()
SEATS = (Seat("ada", "Ada"), Seat("bot:best", "Bot"))


@pytest.mark.parametrize(
    ("typed", "turn"),
    [
        ("5e word", Turn("play", "5E WORD")),
        ("E5  W(O)rd", Turn("play", "E5 W(O)RD")),
        ("e5 across word", Turn("play", "5E WORD")),
        ("5E down quit", Turn("play", "E5 QUIT")),
        ("10j across at", Turn("play", "10J AT")),
        ("pass", Turn("pass")),
        ("-", Turn("pass")),
        ("exchange qu", Turn("exchange", "QU")),
        ("-x", Turn("exchange", "X")),
        ("challenge", Turn("challenge")),
        ("Accept", Turn("accept")),
        ("nonsense here too", Turn("play", "NONSENSE HERE TOO")),
    ],
)
def test_typed_turns_are_read_as_the_service_expects(typed: str, turn: Turn) -> None:
    assert read_turn(typed) == turn


def table(
    board: uw.Board,
    racks: tuple[str, str] = ("ABCDEFG", "HIJKLMN"),
    **changes: Any,
) -> Table[uw.UpwordsState]:
    state = uw.UpwordsState(
        phase=uw.Phase.PLAYING,
        seats=("ada", "bot:best"),
        board=board,
        racks=(tuple(racks[0]), tuple(racks[1])),
        bag=tuple("EEEEEEEEE"),
        scores=(14, 9),
        **changes,
    )
    return Table(SEATS, state)


def drawn(game: pb.Game, me: str | None = "ada") -> str:
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(Upwords.__new__(Upwords).draw(game, me))
    return out.getvalue()


def stacked_board() -> uw.Board:
    """CAT across the centre row, with the A covered twice (A, then R, then O: height 3)."""
    board = uw.Board().placed([(4, 3, "C"), (4, 4, "A"), (4, 5, "T")])
    board = board.placed([(4, 4, "R")]).placed([(4, 4, "O")])
    return board.placed([(5, 4, uw.QU)])


def test_the_board_shows_every_letter_with_its_stack_height() -> None:
    text = drawn(game_pb("g", 9, table(stacked_board()), 0))
    rows = text.splitlines()
    assert rows[0].split() == list("ABCDEFGHIJ")
    row5 = next(r for r in rows if r.startswith("  5 "))
    assert row5.split()[1:] == [".", ".", ".", "C1", "O3", "T1", ".", ".", ".", "."]
    row6 = next(r for r in rows if r.startswith("  6 "))
    assert row6.split()[1:7] == [".", ".", ".", ".", "Qu1", "+"]  # the empty centre square
    assert "E2: an E on a stack of 2" in text


def test_heights_are_coloured_so_stacks_stand_out() -> None:
    game = game_pb("g", 9, table(stacked_board()), 0)
    out = io.StringIO()
    Console(file=out, width=100, force_terminal=True, color_system="standard").print(
        Upwords.__new__(Upwords).draw(game, "ada")
    )
    coloured = out.getvalue()
    style = {
        cell: code for code, cell in re.findall(r"\x1b\[([0-9;]+)m\s*([A-Z][a-z]?\d)", coloured)
    }
    assert style["C1"] == style["T1"]
    assert style["O3"] != style["C1"]  # height 3 and height 1 look different


def test_only_the_viewers_own_rack_is_drawn_with_scores_turn_and_bag() -> None:
    game = game_pb("g", 9, table(stacked_board()), 0)
    text = drawn(game)
    assert "→ Ada (you): 14 points, 7 tiles" in text
    assert "Bot: 9 points, 7 tiles" in text
    assert "your rack: A B C D E F G" in text
    assert "H I J" not in text  # the bot's rack never reaches this viewer
    assert "bag: 9 tiles" in text
    assert "Ada to play" in text

    spectator = drawn(game_pb("g", 9, table(stacked_board()), None), me="carol")
    assert "your rack" not in spectator
    assert "A B C" not in spectator
    assert "H I J" not in spectator


def test_a_play_awaiting_challenge_is_marked() -> None:
    pending = uw.PendingPlay(
        1, (uw.Placement(5, 4, uw.QU),), ("qua",), 6, passes_before=0
    )  # the bot's Qu
    config = uw.UpwordsConfig(word_checking=uw.WordChecking.CHALLENGE)
    game = game_pb("g", 9, table(stacked_board(), pending=pending, config=config), 0)
    text = drawn(game)
    assert "awaiting challenge: qua by Bot (+6)" in text
    assert "type challenge or accept" in text
    assert "challenge word checking" in text


class Commands:
    """The service's side of the adapter's calls: what was sent, the same game back."""

    def __init__(self, game: pb.Game) -> None:
        self.game = game
        self.sent: list[tuple[str, dict[str, object]]] = []

    async def command(self, name: str, **fields: object) -> object:
        self.sent.append((name, fields))
        return type("Response", (), {"game": self.game, "events": []})()


@pytest.mark.parametrize(("typed", "rpc"), [("challenge", "Challenge"), ("accept", "AcceptPlay")])
async def test_a_challenge_or_accept_names_the_play_on_the_screen(typed: str, rpc: str) -> None:
    pending = uw.PendingPlay(1, (uw.Placement(5, 4, uw.QU),), ("qua",), 6, 0, number=7)
    config = uw.UpwordsConfig(word_checking=uw.WordChecking.CHALLENGE)
    shown = game_pb("g", 9, table(stacked_board(), pending=pending, config=config), 0)
    api = Commands(shown)
    await Upwords(api).play(shown, typed, "c1")  # type: ignore[arg-type]
    ((name, fields),) = api.sent
    assert (name, fields) == (rpc, {"game_id": "g", "command_id": "c1", "play": 7})


def test_a_finished_game_names_the_winner_and_shows_every_rack() -> None:
    state = table(stacked_board()).game
    ended = RULES.engine.evolve(state, uw.GameEnded("RESIGNED", state.racks, (0, 0), (14, 9), (0,)))
    game = game_pb("g", 12, Table(SEATS, ended), None, reveal=True)
    text = drawn(game, me=None)
    assert "Ada wins (RESIGNED); final scores: Ada 14, Bot 9" in text
    assert "[H I J K L M N]" in text  # after the end everything may be shown


# -- the record ----------------------------------------------------------------------------------


JUDGE = Dawg(w for w in enable1().words() if 2 <= len(w) <= 4)
BLUFFER = UpwordsBot([*JUDGE.words, *(w[::-1] for w in sorted(JUDGE.words)[::4])])


def played(seed: int) -> list[Any]:
    """A challenge-mode game between bluffing bots: plays, draws, challenges won and lost."""
    rng = random.Random(seed)
    draw, bag = list(uw.full_bag()), list(uw.full_bag())
    rng.shuffle(draw)
    rng.shuffle(bag)
    config = uw.UpwordsConfig(word_checking=uw.WordChecking.CHALLENGE, lexicon="enable")
    create = uw.CreateGame(config, ("ada", "bot:best"), tuple(draw), tuple(bag))
    events: list[Any] = list(RULES.decide(RULES.initial_state(), OpenTable(SEATS, create)))
    state = RULES.replay(events)
    while not RULES.is_terminal(state):
        game = state.game
        seat = game.to_move
        command: uw.Command
        if game.pending is not None and (rng.random() < 0.4 or game.pending_is_final()):
            command = uw.Challenge(
                1 - game.pending.seat, {w: w in JUDGE for w in game.pending.words}
            )
        elif rng.random() < 0.05 and uw.exchange_positions(game) and not game.retry:
            positions = uw.exchange_positions(game)
            command = uw.Exchange(seat, game.racks[seat][0], rng.randrange(positions))
        else:
            move = BLUFFER.choose(uw.view(game, seat))
            command = uw.Play(seat, move.placements) if isinstance(move, BotPlay) else uw.Pass(seat)
        for event in RULES.decide(state, command):
            events.append(event)
            state = RULES.evolve(state, event)
    return events


def as_sent(events: list[Any]) -> list[pb.GameEvent]:
    """The events as GetHistory sends them after the end: everything, with notation."""
    from parlor.common.v1 import common_pb2

    out = []
    state = RULES.initial_state()
    for version, event in enumerate(events, 1):
        before = state.game.board
        state = RULES.evolve(state, event)
        out.append(game_event_pb(event, common_pb2.EventInfo(version=version), before))
    return out


def test_the_record_is_the_services_export_line_for_line() -> None:
    events = played(3)
    kinds = {type(e) for e in events}
    assert {uw.PlayWithdrawn, uw.ChallengeFailed, uw.WordPlayed, uw.TileExchanged} <= kinds
    game_events = [e for e in events if not isinstance(e, SeatsTaken | GameFinished)]
    seats = next(e for e in events if isinstance(e, SeatsTaken)).seats
    expected = with_seat_tags(seats, [export_game(game_events)])
    assert Upwords.__new__(Upwords).transcript(as_sent(events)) == expected
    assert "#challenge ada won" in expected or "#challenge bot:best won" in expected


def test_every_event_has_a_line_of_text() -> None:
    adapter = Upwords.__new__(Upwords)
    sent = as_sent(played(4))
    lines = [adapter.event_text(e, ["Ada", "Bot"]) for e in sent]
    assert lines[0] == "seats: 0=Ada, 1=Bot"
    assert lines[1].startswith("created: challenge word checking, lexicon enable; first draw")
    assert lines[-1] == "game over"
    assert lines[-2].startswith("game ends (")
    plays = [line for line, e in zip(lines, sent, strict=True) if e.HasField("word_played")]
    assert all(re.match(r"^(Ada|Bot) \S+ \S+ \+\d+ \(", line) for line in plays), plays[:3]
    assert any("not a word; play taken back" in line for line in lines)
