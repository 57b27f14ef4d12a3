"""Time controls and bots at once in the pure pool: equal clocks only, bots in the first round."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from parlor.core.errors import InvalidArgument
from parlor.gametypes.timecontrol import TimeControl
from parlor.matching import Policy, Pool, Ticket

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
BLITZ = TimeControl.fischer(300, 3)
MOVE = TimeControl.per_move(30)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def ticket(
    id: str,
    time_control: object = None,
    *,
    rating: float = 1500.0,
    players: tuple[int, int] = (2, 2),
    created: float = 0.0,
    lobby: str | None = None,
    bots_at_once: bool = False,
    bot_level: int | None = None,
) -> Ticket:
    return Ticket(
        id=id,
        player_id=f"player-{id}",
        game_type="connect4x4",
        min_players=players[0],
        max_players=players[1],
        rating=rating,
        created_at=at(created),
        lobby=lobby,
        time_control=time_control,
        bots_at_once=bots_at_once,
        bot_level=bot_level,
    )


def test_tickets_with_different_time_controls_never_share_a_table() -> None:
    pool = Pool.from_tickets([ticket("a", BLITZ), ticket("b", MOVE), ticket("c", None)])
    for seconds in (0, 40, 59):
        assert pool.match(at(seconds)).matches == ()
    assert len(pool) == 3


def test_equal_time_controls_match_and_the_match_names_it() -> None:
    pool = Pool.from_tickets(
        [ticket("a", BLITZ), ticket("b", MOVE), ticket("c", TimeControl.fischer(300, 3))]
    )
    (match,) = pool.match(at(1)).matches
    assert match.tickets == ("a", "c")
    assert match.time_control == BLITZ
    assert "b" in pool


def test_a_lobby_matches_only_holders_with_its_time_control() -> None:
    pool = Pool.from_tickets(
        [
            ticket("host", BLITZ, lobby="KITE"),
            ticket("odd", MOVE, lobby="KITE"),
            ticket("pal", BLITZ, lobby="KITE", created=1),
        ]
    )
    (match,) = pool.match(at(2)).matches
    assert match.tickets == ("host", "pal")
    assert match.time_control == BLITZ


def test_bot_fill_keeps_the_tickets_time_control() -> None:
    pool = Pool.from_tickets([ticket("solo", BLITZ)])
    (match,) = pool.match(at(60)).matches
    assert match.bots == 1
    assert match.time_control == BLITZ


def test_bots_at_once_fill_the_empty_seats_in_the_first_round() -> None:
    pool = Pool.from_tickets([ticket("now", MOVE, players=(3, 4), bots_at_once=True)])
    (match,) = pool.match(at(0)).matches
    assert match.tickets == ("now",)
    assert len(match.seats) == 3  # the ticket's minimum, as bot fill after the wait
    assert match.bots == 2
    assert match.time_control == MOVE


def test_bots_at_once_at_a_named_level() -> None:
    pool = Pool.from_tickets([ticket("easy", rating=2400.0, bots_at_once=True, bot_level=1)])
    (match,) = pool.match(at(0)).matches
    assert match.seats == ("player-easy", "bot:1")  # not the level of a 2400 table (3)


def test_a_named_level_applies_to_bot_fill_after_the_wait_too() -> None:
    pool = Pool.from_tickets([ticket("later", bot_level=2)])
    assert pool.match(at(59)).matches == ()
    (match,) = pool.match(at(60)).matches
    assert match.seats == ("player-later", "bot:2")


def test_bots_at_once_work_when_bot_fill_after_a_wait_is_off() -> None:
    pool = Pool.from_tickets(
        [ticket("now", bots_at_once=True), ticket("wait", MOVE, created=1)],
        Policy(bot_fill_after=None),
    )
    (match,) = pool.match(at(500)).matches
    assert match.tickets == ("now",)
    assert "wait" in pool


def test_a_human_waiting_in_the_same_round_is_preferred_to_bots() -> None:
    pool = Pool.from_tickets([ticket("now", bots_at_once=True), ticket("other", created=0.5)])
    (match,) = pool.match(at(1)).matches
    assert match.tickets == ("now", "other")
    assert match.bots == 0


def test_bots_at_once_take_people_at_any_size_in_their_range_from_the_first_round() -> None:
    # "wide" (2-3) would sit at 2 seats with a bot now, so it sits at 2 seats with a person:
    # whichever of the two anchors, they share one table and no bot is seated.
    for first, second in (("a-wide", "b-pair"), ("b-wide", "a-pair")):
        for pair_asked in (True, False):
            pool = Pool.from_tickets(
                [
                    ticket(first, players=(2, 3), bots_at_once=True),
                    ticket(second, bots_at_once=pair_asked),
                ]
            )
            (match,) = pool.match(at(0)).matches
            assert sorted(match.tickets) == sorted((first, second))
            assert match.bots == 0
            assert len(pool) == 0


def test_bots_at_once_still_prefer_the_largest_table_of_people() -> None:
    pool = Pool.from_tickets(
        [ticket("now", players=(2, 4), bots_at_once=True)]
        + [ticket(f"p{i}", players=(3, 3), created=0.5) for i in range(2)]
    )
    (match,) = pool.match(at(1)).matches
    assert match.tickets == ("now", "p0", "p1")
    assert match.bots == 0


def test_bots_at_once_never_seat_a_human_who_did_not_ask() -> None:
    # "fresh" accepts 3 seats and is near in rating, but has neither waited nor asked.
    pool = Pool.from_tickets(
        [ticket("now", players=(3, 3), bots_at_once=True), ticket("fresh", players=(3, 4))]
    )
    (match,) = pool.match(at(1)).matches
    assert match.tickets == ("now",)
    assert match.bots == 2
    assert "fresh" in pool


def test_humans_at_a_bot_table_named_the_same_level() -> None:
    pool = Pool.from_tickets(
        [
            ticket("a", players=(4, 4), bots_at_once=True, bot_level=1),
            ticket("b", players=(4, 4), bots_at_once=True, bot_level=3),
            ticket("c", players=(4, 4), bots_at_once=True, bot_level=1, created=0.5),
        ]
    )
    round_ = pool.match(at(1))
    assert [(m.tickets, m.seats[-1]) for m in round_.matches] == [
        (("a", "c"), "bot:1"),
        (("b",), "bot:3"),
    ]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bot_level": 0},
        {"bot_level": True},
        {"bots_at_once": True, "lobby": "KITE"},
        {"time_control": ["not", "hashable"]},
    ],
)
def test_malformed_bot_and_time_control_choices_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidArgument) as refused:
        ticket("x", **kwargs)  # type: ignore[arg-type]
    assert refused.value.reason == "BAD_TICKET"
