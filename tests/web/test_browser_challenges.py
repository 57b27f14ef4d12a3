"""Challenges in a real browser (issue 41): a challenge at a Fischer time control, with a seat
choice and the game's own configuration from the form, seen live,
accepted and played to a win, then a rematch offered while the other player's page is
closed, accepted later, seats rotated, the time control kept."""

from __future__ import annotations

from typing import Any

import pytest
from test_browser import SCREENSHOTS, browser, run_script

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc

pytestmark = [pytest.mark.integration, pytest.mark.slow]


async def test_a_challenge_is_accepted_live_and_a_rematch_waits_for_the_away_player(
    start_web: Any,
) -> None:
    browser()
    async with start_web("matchmaking", "connect4x4") as web:
        report = await run_script("challenges.mjs", web)
        stub = c4_grpc.Connect4x4ServiceStub(web.platform.service_channel())
        first = (await stub.GetGame(c4.GetGameRequest(game_id=report["first"]))).game
        rematch = (await stub.GetGame(c4.GetGameRequest(game_id=report["rematch"]))).game
    assert report["adaRematch"] == report["rematch"] != report["first"]
    assert "(3+2)" in report["challenge"]
    assert "(3+2) (its own rules) (rematch)" in report["offer"]  # the rematch keeps the rules
    assert report["bobId"] in {s.player_id for s in first.seats}
    seats = [s.player_id for s in first.seats]
    assert [s.player_id for s in rematch.seats] == seats[1:] + seats[:1]  # rotated
    # played to the end: four in column a by whoever started (seat 0), on the board
    assert first.status == c4.STATUS_WON
    assert list(first.winners) == [0]
    assert first.moves == 7
    assert (seats[0] == report["bobId"]) == (report["winner"] == "bob")
    # the form's seat choice (Bob first) and the game's own rules, carried to the game
    assert seats[0] == report["bobId"]
    assert first.config.blockers_count_toward_lines
    assert rematch.config.blockers_count_toward_lines
    assert "(its own rules)" in report["challenge"]
    assert report["shownFor"] == {"connect4x4": True, "takefour": [False, True]}
    fischer = common_pb2.TimeControl(
        kind=common_pb2.TimeControl.KIND_FISCHER, initial_seconds=180, increment_seconds=2
    )
    assert first.clocks.time_control == fischer  # chosen in the form, not the default 5+3
    assert rematch.clocks.time_control == fischer  # kept by the rematch
    assert rematch.status == c4.STATUS_IN_PROGRESS
    # the lobby's "Your turn": the rematch for its first seat, "(1)" on the title; the other: none
    starts = "bob" if rematch.seats[0].player_id == report["bobId"] else "ada"
    waits = "ada" if starts == "bob" else "bob"
    # (the title itself names the page: the game's players since the web client's a11y work)
    assert report["turns"][starts]["title"].startswith("(1) ")
    assert report["turns"][starts]["games"] == [report["rematch"]]
    assert not report["turns"][waits]["title"].startswith("(")
    assert report["turns"][waits]["games"] == []
    # a challenge from a name on the board: the form aimed at him; no button by one's own name
    assert report["aimed"] == report["bobId"]
    assert report["ownButtons"] == 0
    assert (SCREENSHOTS / "rematch.png").is_file()


async def test_next_game_goes_to_the_game_waiting_with_the_earliest_deadline(
    start_web: Any,
) -> None:
    """After a move (when ticked), by Alt+N and by its button: the next game waiting for the
    player, earliest deadline first, an untimed game last (web/tests/nextgame.mjs)."""
    browser()
    async with start_web("matchmaking", "connect4x4") as web:
        report = await run_script("nextgame.mjs", web)
        stub = c4_grpc.Connect4x4ServiceStub(web.platform.service_channel())
        games = {
            name: (await stub.GetGame(c4.GetGameRequest(game_id=report[name]))).game
            for name in ("days", "blitz", "untimed")
        }
    # the three games as made: the 5+3 one's deadline before the 2-day one's, the other untimed
    assert games["blitz"].clocks.time_control.kind == common_pb2.TimeControl.KIND_FISCHER
    assert games["days"].clocks.time_control.kind == common_pb2.TimeControl.KIND_CORRESPONDENCE
    assert not games["untimed"].HasField("clocks") or not games["untimed"].clocks.seats
    assert games["untimed"].moves >= 1  # the move that sent the page on
    assert games["blitz"].moves == games["days"].moves == 0
    assert report["afterMove"] == report["blitz"]  # after the move: the earliest deadline
    assert report["afterKey"] == report["days"]  # Alt+N: the next deadline, untimed last
    assert report["afterButton"] == report["blitz"]  # the button: the earliest, not this one
    assert report["kept"] == "true"
    assert "Alt+N" in report["shortcut"]


async def test_a_tournament_is_created_joined_started_and_its_standings_follow_live(
    start_web: Any,
) -> None:
    """The tournaments page and a tournament's page (issue 43, web/tests/tournament.mjs):
    created, joined by another player, bots added and started from the page; the standings
    on the organiser's page follow a result without a reload and equal the service's."""
    from parlor.tournaments.v1 import tournaments_pb2 as tn
    from parlor.tournaments.v1 import tournaments_pb2_grpc as tn_grpc

    browser()
    async with start_web("matchmaking", "connect4x4", "tournament") as web:
        report = await run_script("tournament.mjs", web)
        channel = web.platform.service_channel()
        got = await tn_grpc.TournamentServiceStub(channel).GetTournament(
            tn.GetTournamentRequest(tournament_id=report["tournamentId"])
        )
        c4_stub = c4_grpc.Connect4x4ServiceStub(channel)
        game = (await c4_stub.GetGame(c4.GetGameRequest(game_id=report["bobGame"]))).game
    t = got.tournament
    assert t.settings.name == "Friday Swiss"
    assert (t.settings.format, t.settings.game_type, t.settings.rounds) == (
        tn.FORMAT_SWISS,
        "connect4x4",
        1,
    )
    entrants = [e.player_id for e in t.entrants]
    assert len(entrants) == 4
    assert report["bobId"] in entrants
    assert sum(e.is_bot for e in t.entrants) == 3
    # the round the page showed is the service's, Bob's game among its tables
    tables = [table.game_id for r in t.rounds for table in r.tables]
    assert sorted(x["game"] for x in report["tables"]) == sorted(tables)
    assert report["bobGame"] in tables
    # its seats named as the service names its entrants (ids; Parlor's bots by level and number)
    seats = next(
        table.seats for r in t.rounds for table in r.tables if table.game_id == report["bobGame"]
    )
    named = [p if not p.startswith("bot:") else "random bot " + p.split("#")[1] for p in seats]
    assert report["named"] == f"{' v '.join(named)} · playing"
    assert report["before"] == {"bob": 0, "opponent": 0}  # before Bob's game ended
    # Bob resigned: the game over, and the standings the page shows now are the service's
    assert game.status == c4.STATUS_WON
    opponent = next(p for p in seats if p != report["bobId"])  # its entrant id
    assert report["opponent"] == opponent
    shown = {row["player"]: row["points"] for row in report["standings"]}
    assert shown[opponent] > 0
    assert shown[report["bobId"]] == 0
    scored = {s.player_id: s.points for s in t.standings}
    assert all(shown[p] <= scored[p] for p in shown)  # (the bots' own game may end later)
    assert shown[opponent] == scored[opponent]
    assert report["adaLoads"] == 0  # the organiser's page followed without a reload
