"""Tournaments over gRPC on a running platform: Parlor's own bots play whole events.

The games are made as the platform makes matches (the game services' match consumers
create them from ``MatchFormed``), played by the game services' bots, and scored from
``GameFinished`` as the store holds it. Each test checks what the issue shows against an
independent recomputation from the export (or the event history), not against the service's
own arithmetic.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections import Counter
from collections.abc import Iterable
from typing import Any

import pytest

from parlor.accounts.codec import decode
from parlor.eventstore import PostgresEventStore
from parlor.tournamentrules import EVENT_TYPES, GameScored, TablesPaired
from parlor.tournaments.v1 import tournaments_pb2 as pb
from parlor.tournaments.v1 import tournaments_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration

FAST = {
    "PARLOR_TOURNAMENT_DRIVER_INTERVAL_SECONDS": "0.2",
    "PARLOR_MATCHMAKING_ROUND_SECONDS": "0.05",
}


@pytest.fixture(autouse=True)
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in FAST.items():
        monkeypatch.setenv(name, value)


async def enter_bots(stub: Any, tournament_id: str, levels: Iterable[str]) -> list[str]:
    return [
        (
            await stub.JoinTournament(
                pb.JoinTournamentRequest(tournament_id=tournament_id, bot_level=level)
            )
        ).player_id
        for level in levels
    ]


async def until_finished(stub: Any, tournament_id: str, seconds: float) -> pb.Tournament:
    deadline = time.monotonic() + seconds
    while True:
        got = await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tournament_id))
        tournament: pb.Tournament = got.tournament
        if tournament.status == pb.STATUS_FINISHED:
            return tournament
        assert time.monotonic() < deadline, f"not finished: {len(got.tournament.rounds)} rounds"
        await asyncio.sleep(0.2)


def recomputed(export: dict[str, Any], table_size: int, bye_points: int) -> dict[str, int]:
    """Each player's points from the exported pairings and places alone (docs/tournaments.md,
    "Scoring": 2 for each player one finishes ahead of, shared places averaged, rounded down)."""
    points: Counter[str] = Counter()
    for r in export["rounds"]:
        for table in r["tables"]:
            places = {s["player"]: s["place"] for s in table["result"]}
            assert list(places) == table["seats"]
            scale = [2 * (table_size - p) for p in range(1, table_size + 1)][-len(places) :]
            ordered = sorted(places.values())
            for player, place in places.items():
                first, span = ordered.index(place), ordered.count(place)
                points[player] += sum(scale[first : first + span]) // span
        for bye in r["byes"]:
            points[bye["player"]] += bye_points
    return dict(points)


def tie_breaks(export: dict[str, Any], points: dict[str, int]) -> dict[str, dict[str, float]]:
    """Two-seat Buchholz, Buchholz cut-1 and Sonneborn-Berger from the export's pairings and
    places and the recomputed points (docs/tournaments.md, "Tie-breaks")."""
    rounds = export["rounds"]
    contributions: dict[str, list[float]] = {p: [0.0] * len(rounds) for p in points}
    sb: dict[str, float] = {}
    for i, r in enumerate(rounds):
        for table in r["tables"]:
            (a, pa), (b, pb_) = ((s["player"], s["place"]) for s in table["result"])
            for me, mine, other, theirs in ((a, pa, b, pb_), (b, pb_, a, pa)):
                contributions.setdefault(me, [0.0] * len(rounds))[i] = float(points.get(other, 0))
                share = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
                sb[me] = sb.get(me, 0.0) + share * points.get(other, 0)
    return {
        p: {
            "buchholz": sum(c),
            "buchholz_cut1": sum(c) - min(c),
            "sonneborn_berger": sb.get(p, 0.0),
        }
        for p, c in contributions.items()
    }


async def test_a_64_bot_swiss_of_connect4x4_pairs_fairly_and_scores_as_recomputed(
    start_platform: Any,
) -> None:
    organiser = f"org-{secrets.token_hex(4)}"
    async with (
        start_platform("connect4x4", "matchmaking", "tournament") as platform,
        platform.channel(organiser) as channel,
    ):
        stub = pb_grpc.TournamentServiceStub(channel)
        created = await stub.CreateTournament(
            pb.CreateTournamentRequest(
                settings=pb.Settings(
                    name="CI Swiss",
                    format=pb.FORMAT_SWISS,
                    game_type="connect4x4",
                    max_players=64,
                    rounds=4,
                )
            )
        )
        tid = created.tournament.tournament_id
        bots = await enter_bots(stub, tid, ["random"] * 64)
        assert len(set(bots)) == 64
        await stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid))
        # after the first round one bot is removed: 63 play on, so byes are given
        while True:
            got = (await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))).tournament
            if got.rounds:
                break
            await asyncio.sleep(0.1)
        await stub.RemoveFromTournament(
            pb.RemoveFromTournamentRequest(tournament_id=tid, player_id=bots[0], reason="test")
        )
        final = await until_finished(stub, tid, 300)
        exported = await stub.ExportTournament(pb.ExportTournamentRequest(tournament_id=tid))
    export = json.loads(exported.content)
    assert len(final.rounds) == 4
    pairs = [frozenset(t.seats) for r in final.rounds for t in r.tables]
    assert len(pairs) == len(set(pairs)), "a repeat pairing"
    byes = Counter(b for r in final.rounds for b in r.byes)
    assert len(byes) == 3, "63 players: a bye each round from the second"
    assert max(byes.values()) == 1, "a bye twice"
    first = Counter(t.seats[0] for r in final.rounds for t in r.tables)
    second = Counter(t.seats[1] for r in final.rounds for t in r.tables)
    assert all(abs(first[p] - second[p]) <= 1 for p in bots), "first seat not balanced"
    assert all(t.scored for r in final.rounds for t in r.tables)
    expected = recomputed(export, 2, final.settings.bye_points)
    assert {s.player_id: s.points for s in final.standings if s.points} == {
        p: v for p, v in expected.items() if v
    }
    breaks = tie_breaks(export, expected)
    for standing in final.standings:
        named = dict(zip(standing.tie_break_names, standing.tie_breaks, strict=True))
        assert named == pytest.approx(breaks[standing.player_id]), standing.player_id
    order = [(-s.points, *(-v for v in s.tie_breaks)) for s in final.standings]
    assert order == sorted(order), "standings not ordered by points, then tie-breaks"


async def test_an_arena_of_40_bots_with_a_restart_counts_every_game_once(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch, database_url: str
) -> None:
    # a 30-minute arena, its clock 300 times faster: 6 s
    monkeypatch.setenv("PARLOR_TOURNAMENT_TIME_SCALE", "300")
    organiser = f"org-{secrets.token_hex(4)}"
    settings = pb.Settings(
        name="CI arena",
        format=pb.FORMAT_ARENA,
        game_type="connect4x4",
        max_players=40,
        duration_seconds=1800,
        berserk=True,
    )
    async with start_platform("connect4x4", "matchmaking") as games:
        assert games.components
        async with start_platform("tournament") as first, first.channel(organiser) as channel:
            stub = pb_grpc.TournamentServiceStub(channel)
            tid = (
                await stub.CreateTournament(pb.CreateTournamentRequest(settings=settings))
            ).tournament.tournament_id
            await enter_bots(stub, tid, ["random", "greedy"] * 20)
            await stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid))
            await asyncio.sleep(2)
        # the tournament service stopped mid-arena (games went on finishing); another starts
        async with start_platform("tournament") as second, second.channel(organiser) as channel:
            stub = pb_grpc.TournamentServiceStub(channel)
            halfway = await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))
            assert halfway.tournament.status == pb.STATUS_RUNNING
            final = await until_finished(stub, tid, 90)
    store = PostgresEventStore(database_url)
    try:
        history = [
            decode(dict(EVENT_TYPES), e.type, e.data)
            for e in await store.read_stream(f"tournament-{tid}")
        ]
    finally:
        await store.close()
    paired = [g for e in history if isinstance(e, TablesPaired) for g, _ in e.tables]
    scored = [e.game_id for e in history if isinstance(e, GameScored)]
    assert len(paired) > 20, "the arena paired again and again"
    assert len(scored) == len(set(scored)), "a game counted twice"
    assert sorted(scored) == sorted(paired), "a game not counted"
    points: Counter[str] = Counter()
    for e in history:
        if isinstance(e, GameScored):
            for player, _, got, _, _ in e.scores:
                points[player] += got
    assert {s.player_id: s.points for s in final.standings if s.points} == {
        p: v for p, v in points.items() if v
    }


async def test_a_players_own_stream_tells_them_of_their_tournament_game(
    start_platform: Any,
) -> None:
    from parlor.challenges.v1 import challenges_pb2 as ch
    from parlor.challenges.v1 import challenges_pb2_grpc as ch_grpc

    organiser = f"org-{secrets.token_hex(4)}"
    ada = f"ada-{secrets.token_hex(4)}"
    async with (
        start_platform("connect4x4", "matchmaking", "tournament") as platform,
        platform.channel(organiser) as mine,
        platform.channel(ada) as hers,
    ):
        stub = pb_grpc.TournamentServiceStub(mine)
        tid = (
            await stub.CreateTournament(
                pb.CreateTournamentRequest(
                    settings=pb.Settings(
                        name="Ada's Swiss",
                        format=pb.FORMAT_SWISS,
                        game_type="connect4x4",
                        max_players=2,
                        rounds=1,
                    )
                )
            )
        ).tournament.tournament_id
        await pb_grpc.TournamentServiceStub(hers).JoinTournament(
            pb.JoinTournamentRequest(tournament_id=tid)
        )
        await enter_bots(stub, tid, ["random"])
        await stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid))

        async def told() -> Any:
            watch = ch_grpc.ChallengeServiceStub(hers).WatchPlayer(ch.WatchPlayerRequest(after=0))
            async for said in watch:
                for notice in said.notices:
                    if notice.kind == ch.NOTICE_KIND_YOUR_TURN:
                        return notice
            raise AssertionError("ada's WatchPlayer ended without her game")

        notice = await asyncio.wait_for(told(), 60)
        got = await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))
        (table,) = got.tournament.rounds[0].tables
        assert ada in table.seats
        assert (notice.game_type, notice.game_id) == ("connect4x4", table.game_id)


async def test_a_takefour_swiss_at_tables_of_4_scores_each_place_as_recomputed(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Bots of Take Four among themselves at full speed; the runner looking at its games with
    # an idle of 0 once starved the process's loop (docs/tournaments.md, "What the tests
    # show"). With no person at a table the bots leave it after 3 s, which ends the game by
    # forfeits in the order they left: places 1 to 4 without waiting for whole rounds.
    for name, value in {
        "PARLOR_TAKEFOUR_BOT_PAUSE_SECONDS": "0",
        "PARLOR_TAKEFOUR_BOT_IDLE_SECONDS": "0",
        "PARLOR_TAKEFOUR_BOT_HUMAN_PACE": "false",
        "PARLOR_TAKEFOUR_BOT_ALONE_SECONDS": "3",
    }.items():
        monkeypatch.setenv(name, value)
    organiser = f"org-{secrets.token_hex(4)}"
    async with start_platform("dictionary") as dictionary:
        monkeypatch.setenv("PARLOR_DICTIONARY_TARGET", dictionary.target)
        async with (
            start_platform("takefour", "matchmaking", "tournament") as platform,
            platform.channel(organiser) as channel,
        ):
            stub = pb_grpc.TournamentServiceStub(channel)
            fours = pb.Settings(format=pb.FORMAT_SWISS, game_type="takefour", table_size=4)
            fours.max_players, fours.rounds = 8, 2
            # once, the platform answered no call at all: a hang fails here, in 10 s
            request = pb.CreateTournamentRequest(settings=fours)
            created = await asyncio.wait_for(stub.CreateTournament(request), 10)
            tid = created.tournament.tournament_id
            await enter_bots(stub, tid, ["easy"] * 8)
            await stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid))
            final = await until_finished(stub, tid, 150)
            exported = await stub.ExportTournament(pb.ExportTournamentRequest(tournament_id=tid))
    export = json.loads(exported.content)
    assert len(final.rounds) == 2
    assert all(len(t.seats) == 4 and t.scored for r in final.rounds for t in r.tables)
    assert sum(len(r.tables) for r in final.rounds) == 4
    for r in export["rounds"]:
        for table in r["tables"]:
            places = sorted(s["place"] for s in table["result"])
            assert places[0] == 1, places
            assert all(1 <= p <= 4 for p in places), places
    expected = recomputed(export, 4, final.settings.bye_points)
    assert {s.player_id: s.points for s in final.standings if s.points} == {
        p: v for p, v in expected.items() if v
    }
    assert sum(expected.values()) <= 4 * (6 + 4 + 2), "more than the scale gives a table"


async def test_a_berserk_halves_the_clock_in_the_game_and_scores_one_more_for_a_win(
    start_platform: Any,
) -> None:
    """Issue 43's berserk end to end: the arena's pairing allows it, the second seat goes
    berserk in the game (its clock shows half the time), the first seat may not once it has
    moved, and the berserk win of enough moves scores 2 + 1 in the tournament."""
    import grpc

    from parlor.common.v1 import common_pb2
    from parlor.connect4x4.v1 import connect4x4_pb2 as c4
    from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
    from parlor.kit.status import reason_of

    organiser = f"org-{secrets.token_hex(4)}"
    ada, bob = f"ada-{secrets.token_hex(4)}", f"bob-{secrets.token_hex(4)}"
    async with (
        start_platform("connect4x4", "matchmaking", "tournament") as platform,
        platform.channel(organiser) as theirs,
        platform.channel(ada) as hers,
        platform.channel(bob) as his,
    ):
        stub = pb_grpc.TournamentServiceStub(theirs)
        settings = pb.Settings(
            name="Berserk arena",
            format=pb.FORMAT_ARENA,
            game_type="connect4x4",
            max_players=2,
            duration_seconds=600,
            berserk=True,
            berserk_min_moves=2,
            time_control=common_pb2.TimeControl(
                kind=common_pb2.TimeControl.KIND_FISCHER, initial_seconds=60, increment_seconds=2
            ),
        )
        created = await stub.CreateTournament(pb.CreateTournamentRequest(settings=settings))
        tid = created.tournament.tournament_id
        for channel in (hers, his):
            await pb_grpc.TournamentServiceStub(channel).JoinTournament(
                pb.JoinTournamentRequest(tournament_id=tid)
            )
        await stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid))
        deadline = time.monotonic() + 60
        while True:
            got = await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))
            if got.tournament.rounds and got.tournament.rounds[0].tables:
                break
            assert time.monotonic() < deadline, "never paired"
            await asyncio.sleep(0.1)
        table = got.tournament.rounds[0].tables[0]
        game_id = table.game_id
        game = {ada: c4_grpc.Connect4x4ServiceStub(hers), bob: c4_grpc.Connect4x4ServiceStub(his)}
        first, second = (game[p] for p in table.seats)
        while True:  # the game service makes the game from the match
            try:
                await first.GetGame(c4.GetGameRequest(game_id=game_id))
                break
            except grpc.aio.AioRpcError as exc:
                assert exc.code() == grpc.StatusCode.NOT_FOUND
                assert time.monotonic() < deadline, "the game was never made"
                await asyncio.sleep(0.1)

        went = await second.BerserkGame(c4.BerserkGameRequest(game_id=game_id))
        clocks = {s.seat: s.remaining.ToTimedelta().total_seconds() for s in went.game.clocks.seats}
        assert clocks[1] == 30  # half of 60, stopped: the first seat is to move
        assert clocks[0] > 30
        await first.PlayMove(c4.PlayMoveRequest(game_id=game_id, move="df"))
        with pytest.raises(grpc.aio.AioRpcError) as late:
            await first.BerserkGame(c4.BerserkGameRequest(game_id=game_id))
        assert late.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert reason_of(late.value) == "BERSERK_TOO_LATE"
        await second.PlayMove(c4.PlayMoveRequest(game_id=game_id, move="ef"))
        await first.Resign(c4.ResignRequest(game_id=game_id))

        winner = table.seats[1]
        while True:
            got = await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))
            points = {s.player_id: s.points for s in got.tournament.standings}
            if points.get(winner):
                break
            assert time.monotonic() < deadline, "the game was never scored"
            await asyncio.sleep(0.1)
        assert points[winner] == 2 + 1
