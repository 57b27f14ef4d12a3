"""TournamentService over the event store, on the in-memory store and on PostgreSQL.

The games a pairing makes are matches in the store (``MatchFormed`` in
``matchmaking-<game id>``); here no game service runs, so each game's stream is written as
the game host writes it (``SeatsTaken``, then ``GameFinished`` with each seat's rank), and the
driver finds the result in the store as it does after a lost message.
"""

from __future__ import annotations

import json
import secrets
from collections import Counter
from typing import Any

import pytest
from kits.callers import calling

from parlor.common.v1 import common_pb2
from parlor.core.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ParlorError,
    PermissionDenied,
    ResourceExhausted,
)
from parlor.eventstore import NO_STREAM, EventStore, NewEvent
from parlor.gamehost.pipeline.games import games
from parlor.matchmaking.v1 import events_pb2
from parlor.matchrecords.consent import MATCH_FORMED, match_stream
from parlor.runtime.bells import GameBells
from parlor.services.tournament.driver import Driver
from parlor.services.tournament.games import GAME_FINISHED, SEATS_TAKEN
from parlor.services.tournament.servicer import TournamentServicer
from parlor.services.tournament.settings import TournamentSettings
from parlor.services.tournament.tournaments import Tournaments
from parlor.tournaments.v1 import tournaments_pb2 as pb

NOW_MS = 1_800_000_000_000


class Platform:
    def __init__(self, store: EventStore, **settings: Any) -> None:
        self.store = store
        self.clock = lambda: NOW_MS
        self.tournaments = Tournaments(store)
        self.driver = Driver(self.tournaments, games(), self.clock)
        self.service = TournamentServicer(
            self.tournaments,
            games(),
            TournamentSettings(**settings),
            GameBells(),
            self.clock,
        )

    async def play_out(self, tournament_id: str, winner: Any = None) -> int:
        """Finish every game in play as its game service would (the first seat wins unless
        ``winner(seats)`` names another seat); the games finished."""
        played = 0
        state, _ = await self.tournaments.load(tournament_id)
        for game in list(state.games.values()):
            if game.scored:
                continue
            match = await self.store.read_stream(match_stream(game.game_id))
            formed = events_pb2.MatchFormed.FromString(match[0].data)
            assert formed.tournament_id == tournament_id
            assert match[0].type == MATCH_FORMED
            seats = list(formed.seats)
            won = winner(game.seats) if winner else 0
            finished = common_pb2.GameFinished(
                game_type=formed.game_type,
                game_id=game.game_id,
                reason="LINE",
                results=[
                    common_pb2.SeatResult(seat=s, rank=1 if i == won else 2)
                    for i, s in enumerate(seats)
                ],
            )
            stream = f"{formed.game_type}-{game.game_id}"
            taken = common_pb2.SeatsTaken(seats=seats).SerializeToString()
            await self.store.append(
                stream,
                [
                    NewEvent(SEATS_TAKEN, taken),
                    NewEvent(GAME_FINISHED, finished.SerializeToString()),
                ],
                NO_STREAM,
            )
            played += 1
        return played


def swiss(players: int, rounds: int, **more: Any) -> pb.Settings:
    return pb.Settings(
        name="Friday Swiss",
        format=pb.FORMAT_SWISS,
        game_type="connect4x4",
        max_players=players,
        rounds=rounds,
        **more,
    )


async def create(
    platform: Platform, organiser: str, settings: pb.Settings
) -> pb.CreateTournamentResponse:
    with calling(organiser):
        return await platform.service.CreateTournament(
            pb.CreateTournamentRequest(settings=settings), None
        )


async def test_a_swiss_of_bots_runs_to_its_end(tournament_store: EventStore) -> None:
    platform = Platform(tournament_store)
    organiser = f"org-{secrets.token_hex(4)}"
    created = await create(platform, organiser, swiss(9, 4))
    tid = created.tournament.tournament_id
    assert len(tid) == 32
    assert created.invite_code == ""
    with calling(organiser):
        for _ in range(9):
            joined = await platform.service.JoinTournament(
                pb.JoinTournamentRequest(tournament_id=tid, bot_level="random"), None
            )
            assert joined.player_id.startswith("bot:random#")
        await platform.service.StartTournament(pb.StartTournamentRequest(tournament_id=tid), None)
    for _ in range(4):
        await platform.driver.step()  # pairs the round
        assert await platform.play_out(tid) == 4  # 9 players: 4 tables and a bye
        await platform.driver.step()  # scores the results, pairs the next
    await platform.driver.step()
    with calling("someone"):
        got = await platform.service.GetTournament(pb.GetTournamentRequest(tournament_id=tid), None)
        exported = await platform.service.ExportTournament(
            pb.ExportTournamentRequest(tournament_id=tid), None
        )
        text = await platform.service.ExportTournament(
            pb.ExportTournamentRequest(tournament_id=tid, format=pb.EXPORT_FORMAT_TEXT), None
        )
    t = got.tournament
    assert t.status == pb.STATUS_FINISHED
    assert len(t.rounds) == 4
    pairs = [frozenset(table.seats) for r in t.rounds for table in r.tables]
    assert len(pairs) == len(set(pairs)) == 16  # no repeat pairing
    byes = [b for r in t.rounds for b in r.byes]
    assert len(byes) == len(set(byes)) == 4  # a bye at most once each
    assert sorted(s.rank for s in t.standings)[0] == 1
    assert sum(s.games for s in t.standings) == 32
    assert json.loads(exported.content)
    assert text.content_type.startswith("text/plain")
    assert text.content


async def test_each_result_counts_once_whoever_brings_it(tournament_store: EventStore) -> None:
    platform = Platform(tournament_store)
    organiser = f"org-{secrets.token_hex(4)}"
    tid = (await create(platform, organiser, swiss(4, 1))).tournament.tournament_id
    with calling(organiser):
        for _ in range(4):
            await platform.service.JoinTournament(
                pb.JoinTournamentRequest(tournament_id=tid, bot_level="greedy"), None
            )
        await platform.service.StartTournament(pb.StartTournamentRequest(tournament_id=tid), None)
    await platform.driver.step()
    await platform.play_out(tid)
    # a second replica's driver, and the same results again as if redelivered
    other = Driver(Tournaments(tournament_store), games(), platform.clock)
    await other.step()
    await platform.driver.step()
    state, _ = await platform.tournaments.load(tid)
    for game in state.games.values():
        await platform.driver.collect(tid, game.game_id, "connect4x4")
    state, _ = await platform.tournaments.load(tid)
    assert all(g.scored for g in state.games.values())
    assert sum(state.points.values()) == 2 * 2  # two games, a win each, counted once


async def test_refusals_say_why(tournament_store: EventStore) -> None:
    platform = Platform(tournament_store, max_players=32)
    organiser = f"org-{secrets.token_hex(4)}"
    with pytest.raises(ResourceExhausted) as big:
        await create(platform, organiser, swiss(64, 3))
    assert big.value.reason == "TOURNAMENT_TOO_BIG"
    with pytest.raises(InvalidArgument) as bad:
        await create(platform, organiser, swiss(8, 0))
    assert bad.value.reason == "BAD_SETTINGS"
    tid = (await create(platform, organiser, swiss(8, 3))).tournament.tournament_id
    with calling("mallory"), pytest.raises(PermissionDenied) as bots:
        await platform.service.JoinTournament(
            pb.JoinTournamentRequest(tournament_id=tid, bot_level="random"), None
        )
    assert bots.value.reason == "NOT_ORGANISER"
    with calling("mallory"), pytest.raises(ParlorError) as start:
        await platform.service.StartTournament(pb.StartTournamentRequest(tournament_id=tid), None)
    assert start.value.reason == "NOT_ORGANISER"
    with calling("mallory"), pytest.raises(NotFound) as missing:
        await platform.service.GetTournament(
            pb.GetTournamentRequest(tournament_id=secrets.token_hex(16)), None
        )
    assert missing.value.reason == "TOURNAMENT_NOT_FOUND"
    with calling("mallory"), pytest.raises(FailedPrecondition) as withdraw:
        await platform.service.WithdrawFromTournament(
            pb.WithdrawFromTournamentRequest(tournament_id=tid), None
        )
    assert withdraw.value.reason == "NOT_REGISTERED"


async def test_an_invitation_code_admits(tournament_store: EventStore) -> None:
    platform = Platform(tournament_store)
    organiser = f"org-{secrets.token_hex(4)}"
    created = await create(platform, organiser, swiss(8, 3, access=pb.ACCESS_INVITE))
    tid, code = created.tournament.tournament_id, created.invite_code
    assert code
    for wrong in ("", code + "x"):
        with calling("ada"), pytest.raises(PermissionDenied) as refused:
            await platform.service.JoinTournament(
                pb.JoinTournamentRequest(tournament_id=tid, invite_code=wrong), None
            )
        assert refused.value.reason == "BAD_INVITE_CODE"
    with calling("ada"):
        await platform.service.JoinTournament(
            pb.JoinTournamentRequest(tournament_id=tid, invite_code=code), None
        )
        listed = await platform.service.ListTournaments(pb.ListTournamentsRequest(), None)
    assert tid not in [t.tournament_id for t in listed.tournaments]  # never listed
    events = await tournament_store.read_stream(f"tournament-{tid}")
    assert all(code not in e.data.decode() for e in events)  # only its digest is kept


async def test_create_again_with_the_same_command_id_creates_nothing(
    tournament_store: EventStore,
) -> None:
    platform = Platform(tournament_store)
    organiser = f"org-{secrets.token_hex(4)}"
    request = pb.CreateTournamentRequest(settings=swiss(8, 3), command_id=secrets.token_hex(8))
    with calling(organiser):
        first = await platform.service.CreateTournament(request, None)
        again = await platform.service.CreateTournament(request, None)
    assert first.tournament.tournament_id == again.tournament.tournament_id
    assert again.tournament.version == 1


async def test_a_take_four_swiss_seats_tables_of_four(tournament_store: EventStore) -> None:
    platform = Platform(tournament_store)
    organiser = f"org-{secrets.token_hex(4)}"
    settings = pb.Settings(
        name="Take Four at fours",
        format=pb.FORMAT_SWISS,
        game_type="takefour",
        table_size=4,
        max_players=8,
        rounds=2,
    )
    tid = (await create(platform, organiser, settings)).tournament.tournament_id
    with calling(organiser):
        for _ in range(8):
            await platform.service.JoinTournament(
                pb.JoinTournamentRequest(tournament_id=tid, bot_level="easy"), None
            )
        await platform.service.StartTournament(pb.StartTournamentRequest(tournament_id=tid), None)
    for _ in range(2):
        await platform.driver.step()
        assert await platform.play_out(tid) == 2
        await platform.driver.step()
    with calling(organiser):
        final = (
            await platform.service.GetTournament(pb.GetTournamentRequest(tournament_id=tid), None)
        ).tournament
    assert final.status == pb.STATUS_FINISHED
    assert [len(t.seats) for r in final.rounds for t in r.tables] == [4, 4, 4, 4]
    # 6/4/2/0 by place at tables of four: each first seat won, the others shared place 2
    # ((4 + 2 + 0) / 3 = 2 each)
    firsts = Counter(t.seats[0] for r in final.rounds for t in r.tables)
    for standing in final.standings:
        wins = firsts[standing.player_id]
        assert standing.points == 6 * wins + 2 * (2 - wins)


async def test_berserk_is_scored_as_the_games_stream_records_it(
    tournament_store: EventStore,
) -> None:
    """The pairing's match allows berserk in an arena that does; the game's stream records who
    went berserk (``SeatBerserked``, the game halving that clock) and the result scores it:
    the berserk winner of a game of enough moves gets one point more. The tournament's own
    ``Berserk`` only says where to go."""
    from parlor.eventstore import Metadata
    from parlor.gametypes.clockkeys import AT, SEAT
    from parlor.services.tournament.games import SEAT_BERSERKED

    platform = Platform(tournament_store)
    organiser = f"org-{secrets.token_hex(4)}"
    ada, bob = f"ada-{secrets.token_hex(4)}", f"bob-{secrets.token_hex(4)}"
    settings = pb.Settings(
        name="Berserk arena",
        format=pb.FORMAT_ARENA,
        game_type="connect4x4",
        max_players=8,
        duration_seconds=600,
        berserk=True,
        berserk_min_moves=2,
        time_control=common_pb2.TimeControl(
            kind=common_pb2.TimeControl.KIND_FISCHER, initial_seconds=60
        ),
    )
    tid = (await create(platform, organiser, settings)).tournament.tournament_id
    for player in (ada, bob):
        with calling(player):
            await platform.service.JoinTournament(pb.JoinTournamentRequest(tournament_id=tid), None)
    with calling(organiser):
        await platform.service.StartTournament(pb.StartTournamentRequest(tournament_id=tid), None)
    await platform.driver.step()
    state, _ = await platform.tournaments.load(tid)
    (game,) = state.games.values()
    first, second = game.seats
    formed = events_pb2.MatchFormed.FromString(
        (await tournament_store.read_stream(match_stream(game.game_id)))[0].data
    )
    assert formed.berserk_allowed
    request = pb.BerserkRequest(tournament_id=tid, game_id=game.game_id)
    with calling(second), pytest.raises(FailedPrecondition) as elsewhere:
        await platform.service.Berserk(request, None)
    assert elsewhere.value.reason == "BERSERK_IN_GAME"

    # the game as its service writes it: seats, the second seat's berserk, two moves, its win
    def moved(seat: int) -> Metadata:
        return Metadata(extra={SEAT: str(seat), AT: "2026-12-07T12:00:00+00:00"})

    taken = common_pb2.SeatsTaken(seats=formed.seats, berserk_allowed=True)
    finished = common_pb2.GameFinished(
        game_type="connect4x4",
        game_id=game.game_id,
        reason="LINE",
        results=[
            common_pb2.SeatResult(seat=s, rank=2 if i == 0 else 1)
            for i, s in enumerate(formed.seats)
        ],
    )
    await tournament_store.append(
        f"connect4x4-{game.game_id}",
        [
            NewEvent(SEATS_TAKEN, taken.SerializeToString()),
            NewEvent(SEAT_BERSERKED, common_pb2.SeatBerserked(seat=1).SerializeToString()),
            NewEvent("parlor.connect4x4.v1.CheckerDropped", b"", metadata=moved(0)),
            NewEvent("parlor.connect4x4.v1.CheckerDropped", b"", metadata=moved(1)),
            NewEvent(GAME_FINISHED, finished.SerializeToString()),
        ],
        NO_STREAM,
    )
    await platform.driver.step()
    await platform.driver.step()  # a second look scores nothing twice
    state, _ = await platform.tournaments.load(tid)
    scored = state.games[game.game_id]
    assert scored.berserk == frozenset({second})
    assert scored.scores == ((first, 2, 0, False, False), (second, 1, 3, False, True))
