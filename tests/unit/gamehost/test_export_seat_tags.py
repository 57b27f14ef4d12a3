"""Every game's export names its players alike: ``[Seat<i> "name"]`` and ``[Seat<i>Id "id"]``."""

from __future__ import annotations

from parlor.gamehost.table.seating import GameFinished, SeatsTaken, Standing
from parlor.gamehost.wire.export import export_parts, seat_tags, tag, with_seat_tags
from parlor.gametypes.seats import Seat


def test_each_seat_has_its_name_then_its_player_id() -> None:
    seats = (Seat("p-ada", "Ada"), Seat("bot:strong"))
    assert seat_tags(seats) == [
        '[Seat0 "Ada"]',
        '[Seat0Id "p-ada"]',
        '[Seat1 "bot:strong"]',  # no display name: the id is the name people see
        '[Seat1Id "bot:strong"]',
    ]


def test_a_value_is_quoted_as_pgn_quotes_it_and_stays_on_its_line() -> None:
    assert tag("Seat0", 'Ada "the" \\ best') == '[Seat0 "Ada \\"the\\" \\\\ best"]'
    assert tag("Seat0", "two\nlines") == '[Seat0 "two lines"]'


def test_the_tags_come_before_the_record() -> None:
    text = with_seat_tags((Seat("a", "A"),), ["a1 b2", "# end"])
    assert text.splitlines() == ['[Seat0 "A"]', '[Seat0Id "a"]', "a1 b2", "# end"]


def test_a_stream_splits_into_the_games_own_events_its_seat_tags_and_its_finish() -> None:
    seats = SeatsTaken((Seat("a", "A"), Seat("b")))
    moves, tags, finished = export_parts([seats, "move 1", "move 2"])
    assert (moves, tags, finished) == (["move 1", "move 2"], seat_tags(seats.seats), None)
    done = GameFinished("DONE", (Standing(2, 0), Standing(1, 5)))
    assert export_parts([seats, "move 1", done]) == (["move 1"], tags, ("DONE", [2, 1]))
