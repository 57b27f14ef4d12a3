"""The record an export writes: one line per move in notation, then how the game ended."""

from parlor.rules.connect4x4 import (
    CheckerDropped,
    GameTied,
    GameWon,
    PlayerResigned,
    PlayerTimedOut,
    Side,
    event_notation,
    play,
    record,
)


def test_each_drop_is_recorded_by_seat_in_its_notation_and_other_events_are_not() -> None:
    _, events = play("df gb cx")
    assert record(events) == ["0 df", "1 gb", "0 cx"]
    assert [event_notation(e) for e in events if event_notation(e)] == ["df", "gb", "cx"]


def test_a_resignation_and_the_end_close_the_record() -> None:
    dropped = CheckerDropped(1, 0, Side.BACK, 0)
    events = [dropped, PlayerResigned(0), GameWon(1, (), "RESIGNED")]
    assert record(events) == ["1 ab", "0 resign", "# won 1 RESIGNED"]
    assert record([GameTied("BOARD_FULL")]) == ["# tied BOARD_FULL"]


def test_a_seat_out_of_time_is_recorded_as_a_timeout_not_a_resignation() -> None:
    events = [PlayerTimedOut(2), PlayerResigned(0), GameWon(1, (), "RESIGNATION")]
    assert record(events) == ["2 timeout", "0 resign", "# won 1 RESIGNATION"]
