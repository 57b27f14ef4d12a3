"""JoinLobby against a round that closes the lobby, interleaved on real PostgreSQL.

A JoinLobby landing while a round matched the lobby used to leave the joiner's waiting
ticket in a closed lobby (the round closed it without seeing the ticket), where it waited
for a game that never came until it expired. Both interleavings are forced here: the
round's rounds loop is off, and the test runs each round at the moment it wants.

The host's CancelTicket racing a join is forced both ways too (a lock held by the test, or
the cancel sent while the join writes its ticket), and joins at once into a lobby with
fewer seats than joiners: all of these meet on the lobby's row lock.

And what the host's leaving does to those already in the lobby: the host's cancel, or the
host's ticket expiring in a round, ends every other waiting ticket there, LOBBY_CLOSED;
a friend's own cancel closes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from typing import Any

import grpc
import psycopg
import pytest

from parlor.kit.status import reason_of
from parlor.matchmaking.v1 import matchmaking_pb2 as pb
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from parlor.services.matchmaking import component as component_module
from parlor.services.matchmaking import rounds as rounds_module

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("quiet_pool")]

GAME = "connect4x4"


async def _no_rounds(*args: Any) -> None:
    """The component's round loop, switched off: the test runs each round itself."""
    await asyncio.Event().wait()


@pytest.fixture
def manual_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(component_module, "run_rounds", _no_rounds)
    monkeypatch.setenv("PARLOR_MATCHMAKING_ACCEPT_MINIMUM_SECONDS", "0")


def _extra(platform: Any) -> dict[str, Any]:
    (mm,) = [c for c in platform.server.components if c.name == "matchmaking"]
    return mm.extra


async def _tickets_of(database_url: str, player: str) -> list[tuple[str, str | None]]:
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        rows = await conn.execute(
            "SELECT status, lobby FROM mm_tickets WHERE player_id = %s", (player,)
        )
        return [(s, lobby) for s, lobby in await rows.fetchall()]


async def _refused_lobby_closed(join: Awaitable[Any], database_url: str, player: str) -> None:
    """``join`` fails FAILED_PRECONDITION LOBBY_CLOSED and leaves ``player`` no ticket."""
    with pytest.raises(grpc.aio.AioRpcError) as closed:
        await join
    assert closed.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(closed.value) == "LOBBY_CLOSED"
    assert await _tickets_of(database_url, player) == []


async def _lobby_of_two(stubs: dict[str, pb_grpc.MatchmakingServiceStub]) -> str:
    """A lobby for 2 to 3 with its host and one friend in it: a round matches them now."""
    lobby = await stubs["host"].CreateLobby(
        pb.CreateLobbyRequest(game_type=GAME, min_players=2, max_players=3)
    )
    await stubs["pal"].JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
    return lobby.code


@pytest.mark.usefixtures("manual_rounds")
async def test_a_join_while_the_round_closes_the_lobby_is_lobby_closed(
    start_platform, monkeypatch, database_url, unique
):
    """The round has matched the lobby and not yet committed when JoinLobby comes: the
    joiner waits for the round, then gets LOBBY_CLOSED, and no ticket of theirs is left."""
    names = {p: f"{p}-{unique}" for p in ("host", "pal", "late")}
    async with start_platform("matchmaking") as platform:
        chans = {p: platform.channel(n) for p, n in names.items()}
        try:
            stubs = {p: pb_grpc.MatchmakingServiceStub(c) for p, c in chans.items()}
            code = await _lobby_of_two(stubs)
            joining: list[asyncio.Future[pb.JoinLobbyResponse]] = []
            append = rounds_module.append_matches

            async def join() -> pb.JoinLobbyResponse:
                return await stubs["late"].JoinLobby(pb.JoinLobbyRequest(code=code))

            async def append_then_join(*args: Any) -> None:
                await append(*args)  # the lobby is closed in this uncommitted round
                joining.append(asyncio.ensure_future(join()))
                await asyncio.wait(joining, timeout=0.5)  # before: done here, with a ticket

            monkeypatch.setattr(rounds_module, "append_matches", append_then_join)
            outcome = await _extra(platform)["rounds"].run(GAME)
            assert outcome is not None
            (formed,) = outcome[1]
            assert formed.match.lobby == code
            await _refused_lobby_closed(joining[0], database_url, names["late"])
        finally:
            for c in chans.values():
                await c.close()


@pytest.mark.usefixtures("manual_rounds")
async def test_a_round_during_a_join_leaves_the_lobby_to_the_next_round(
    start_platform, monkeypatch, database_url, unique
):
    """JoinLobby has found the lobby open and is writing its ticket when a round runs: the
    round leaves that lobby alone (its lock is held), and the next round seats all three."""
    names = {p: f"{p}-{unique}" for p in ("host", "pal", "late")}
    async with start_platform("matchmaking") as platform:
        chans = {p: platform.channel(n) for p, n in names.items()}
        try:
            stubs = {p: pb_grpc.MatchmakingServiceStub(c) for p, c in chans.items()}
            code = await _lobby_of_two(stubs)
            extra = _extra(platform)
            rounds, tickets = extra["rounds"], extra["tickets"]
            create: Callable[..., Awaitable[Any]] = tickets.create
            during: list[Any] = []

            async def round_then_create(player: str, *args: Any, **kwargs: Any) -> Any:
                if player == names["late"]:
                    during.append(await asyncio.wait_for(rounds.run(GAME), 10))
                return await create(player, *args, **kwargs)

            monkeypatch.setattr(tickets, "create", round_then_create)
            joined = await stubs["late"].JoinLobby(pb.JoinLobbyRequest(code=code))
            (first,) = during
            assert first is not None
            assert first[1] == []  # before: host and pal matched, the lobby closed
            outcome = await rounds.run(GAME)
            assert outcome is not None
            (formed,) = outcome[1]
            assert set(formed.match.tickets) >= {joined.ticket.ticket_id}
            assert set(formed.match.players) == set(names.values())
            assert await _tickets_of(database_url, names["late"]) == [("matched", code)]
        finally:
            for c in chans.values():
                await c.close()


async def _blocked_by(conn: psycopg.AsyncConnection[Any], holder: int, count: int) -> None:
    """Until ``count`` backends wait, directly or in a queue, on the lock ``holder`` holds."""
    for _ in range(500):
        rows = await conn.execute(
            "SELECT pid, pg_blocking_pids(pid) FROM pg_stat_activity"
            " WHERE cardinality(pg_blocking_pids(pid)) > 0"
        )
        waits = dict(await rows.fetchall())
        behind, grew = {holder}, True
        while grew:
            more = {pid for pid, by in waits.items() if set(by) & behind} - behind
            behind |= more
            grew = bool(more)
        if len(behind) - 1 >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{count} waiting on pid {holder} never came: {waits}")


@pytest.mark.usefixtures("manual_rounds")
async def test_a_join_after_the_hosts_cancel_is_lobby_closed(start_platform, database_url, unique):
    """The host's CancelTicket and a JoinLobby come together: the cancel takes the lobby's
    lock first (here it queues first behind a lock the test holds), so the join, queued
    behind it, then finds no host: LOBBY_CLOSED, nothing written. Before, the cancel did not
    wait for the lobby at all, so a join could read the host waiting and let itself in
    after the host had gone."""
    names = {p: f"{p}-{unique}" for p in ("host", "pal")}
    async with start_platform("matchmaking") as platform:
        chans = {p: platform.channel(n) for p, n in names.items()}
        try:
            stubs = {p: pb_grpc.MatchmakingServiceStub(c) for p, c in chans.items()}
            lobby = await stubs["host"].CreateLobby(pb.CreateLobbyRequest(game_type=GAME))
            async with (
                await psycopg.AsyncConnection.connect(database_url) as held,
                await psycopg.AsyncConnection.connect(database_url, autocommit=True) as spy,
            ):
                await held.execute(
                    "SELECT 1 FROM mm_lobbies WHERE code = %s FOR UPDATE", (lobby.code,)
                )
                cancel = asyncio.ensure_future(
                    stubs["host"].CancelTicket(
                        pb.CancelTicketRequest(ticket_id=lobby.ticket.ticket_id)
                    )
                )
                await asyncio.wait([cancel], timeout=0.5)
                assert not cancel.done()  # before: cancelled without the lobby's lock
                await _blocked_by(spy, held.info.backend_pid, 1)
                join = asyncio.ensure_future(
                    stubs["pal"].JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
                )
                await _blocked_by(spy, held.info.backend_pid, 2)
                await held.rollback()
            cancelled = await asyncio.wait_for(cancel, 10)
            assert cancelled.ticket.status == pb.TICKET_STATUS_CANCELLED
            await _refused_lobby_closed(asyncio.wait_for(join, 10), database_url, names["pal"])
        finally:
            for c in chans.values():
                await c.close()


@pytest.mark.usefixtures("manual_rounds")
async def test_a_hosts_cancel_during_a_join_waits_for_the_join(
    start_platform, monkeypatch, database_url, unique
):
    """JoinLobby has found the host waiting and is writing its ticket when the host cancels:
    the cancel waits for the join's commit (lobby lock, then ticket), so the join is in
    before the host leaves, and a join after that is LOBBY_CLOSED. Before, the cancel
    finished while the join was still deciding, and the join then let itself into a lobby
    whose host had already gone."""
    names = {p: f"{p}-{unique}" for p in ("host", "pal", "late")}
    async with start_platform("matchmaking") as platform:
        chans = {p: platform.channel(n) for p, n in names.items()}
        try:
            stubs = {p: pb_grpc.MatchmakingServiceStub(c) for p, c in chans.items()}
            lobby = await stubs["host"].CreateLobby(pb.CreateLobbyRequest(game_type=GAME))
            tickets = _extra(platform)["tickets"]
            create: Callable[..., Awaitable[Any]] = tickets.create
            cancelling: list[asyncio.Future[pb.CancelTicketResponse]] = []
            done_during_join: list[bool] = []

            async def cancel_then_create(player: str, *args: Any, **kwargs: Any) -> Any:
                if player == names["pal"]:
                    cancelling.append(
                        asyncio.ensure_future(
                            stubs["host"].CancelTicket(
                                pb.CancelTicketRequest(ticket_id=lobby.ticket.ticket_id)
                            )
                        )
                    )
                    await asyncio.wait(cancelling, timeout=0.5)
                    done_during_join.append(cancelling[0].done())
                return await create(player, *args, **kwargs)

            monkeypatch.setattr(tickets, "create", cancel_then_create)
            joined = await stubs["pal"].JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
            assert done_during_join == [False]  # before: [True], the host gone mid-join
            cancelled = await asyncio.wait_for(cancelling[0], 10)
            assert cancelled.ticket.status == pb.TICKET_STATUS_CANCELLED
            assert joined.ticket.status == pb.TICKET_STATUS_WAITING
            with pytest.raises(grpc.aio.AioRpcError) as closed:
                await stubs["late"].JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
            assert reason_of(closed.value) == "LOBBY_CLOSED"
        finally:
            for c in chans.values():
                await c.close()


@pytest.mark.usefixtures("manual_rounds")
async def test_a_full_lobby_takes_no_one_more(start_platform, database_url, unique):
    """A lobby takes at most its max_players waiting tickets: the next JoinLobby is
    FAILED_PRECONDITION LOBBY_FULL with nothing written, also when joins come at once (they
    are counted under the lobby's lock). Before, extra holders were let in and were left
    waiting after the game formed without them. A holder retrying is TICKET_EXISTS."""
    names = [f"{p}-{unique}" for p in ("host", "a", "b", "c", "d")]
    async with start_platform("matchmaking") as platform:
        chans = [platform.channel(n) for n in names]
        try:
            host, *joiners = [pb_grpc.MatchmakingServiceStub(c) for c in chans]
            lobby = await host.CreateLobby(
                pb.CreateLobbyRequest(game_type=GAME, min_players=3, max_players=3)
            )
            outcomes = await asyncio.gather(
                *(j.JoinLobby(pb.JoinLobbyRequest(code=lobby.code)) for j in joiners),
                return_exceptions=True,
            )
            joined = [o for o in outcomes if isinstance(o, pb.JoinLobbyResponse)]
            refused = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
            assert len(joined) == 2, outcomes
            assert len(refused) == 2, outcomes
            for error in refused:
                assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
                assert reason_of(error) == "LOBBY_FULL"
            in_lobby = [o.ticket.player_id for o in joined]
            again = joiners[names.index(in_lobby[0]) - 1]
            with pytest.raises(grpc.aio.AioRpcError) as retried:
                await again.JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
            assert reason_of(retried.value) == "TICKET_EXISTS"
            for name in names[1:]:
                if name not in in_lobby:
                    assert await _tickets_of(database_url, name) == []
            outcome = await _extra(platform)["rounds"].run(GAME)
            assert outcome is not None
            (formed,) = outcome[1]
            assert set(formed.match.players) == {names[0], *in_lobby}
        finally:
            for c in chans:
                await c.close()


@contextlib.asynccontextmanager
async def _players(
    platform: Any, names: dict[str, str]
) -> AsyncIterator[dict[str, pb_grpc.MatchmakingServiceStub]]:
    """A matchmaking stub per role, on a channel as that role's player, closed after."""
    chans = {p: platform.channel(n) for p, n in names.items()}
    try:
        yield {p: pb_grpc.MatchmakingServiceStub(c) for p, c in chans.items()}
    finally:
        for c in chans.values():
            await c.close()


async def _lobby_of_three(
    stubs: dict[str, pb_grpc.MatchmakingServiceStub],
) -> tuple[pb.CreateLobbyResponse, pb.Ticket, pb.Ticket]:
    """A lobby for 2 to 4: its host, and friends "pal" and "mate" waiting in it."""
    lobby = await stubs["host"].CreateLobby(
        pb.CreateLobbyRequest(game_type=GAME, min_players=2, max_players=4)
    )
    pal = await stubs["pal"].JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
    mate = await stubs["mate"].JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
    return lobby, pal.ticket, mate.ticket


async def _watched_to_the_end(
    stub: pb_grpc.MatchmakingServiceStub, ticket_id: str
) -> asyncio.Future[list[int]]:
    """A task with every status WatchTicket streams after the first (waiting) one."""
    updates = stub.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket_id)).__aiter__()
    first = await anext(updates)
    assert first.ticket.status == pb.TICKET_STATUS_WAITING

    async def rest() -> list[int]:
        return [update.ticket.status async for update in updates]

    return asyncio.ensure_future(rest())


async def _assert_lobby_closed_for(
    stubs: dict[str, pb_grpc.MatchmakingServiceStub], tickets: dict[str, pb.Ticket]
) -> None:
    """Each of these players' tickets reads LOBBY_CLOSED, and cancelling it is refused."""
    for player, ticket in tickets.items():
        got = await stubs[player].GetTicket(pb.GetTicketRequest(ticket_id=ticket.ticket_id))
        assert got.ticket.status == pb.TICKET_STATUS_LOBBY_CLOSED
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            await stubs[player].CancelTicket(pb.CancelTicketRequest(ticket_id=ticket.ticket_id))
        assert ended.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert reason_of(ended.value) == "TICKET_LOBBY_CLOSED"


@pytest.mark.usefixtures("manual_rounds")
async def test_a_hosts_cancel_closes_the_lobby_for_everyone_in_it(
    start_platform, database_url, unique
):
    """The host cancels: every friend's waiting ticket in the lobby ends at once,
    LOBBY_CLOSED, streamed by WatchTicket, which then ends; a later JoinLobby is
    LOBBY_CLOSED, and no round seats the friends without their host. Before, the friends
    waited in the hostless lobby until their tickets expired, ten minutes, or were seated
    together without the host once they accepted a smaller table."""
    names = {p: f"{p}-{unique}" for p in ("host", "pal", "mate", "late")}
    async with start_platform("matchmaking") as platform, _players(platform, names) as stubs:
        lobby, pal, mate = await _lobby_of_three(stubs)
        watching = await _watched_to_the_end(stubs["pal"], pal.ticket_id)
        cancelled = await stubs["host"].CancelTicket(
            pb.CancelTicketRequest(ticket_id=lobby.ticket.ticket_id)
        )
        assert cancelled.ticket.status == pb.TICKET_STATUS_CANCELLED
        streamed = await asyncio.wait_for(watching, 5)  # before: still waiting
        assert streamed == [pb.TICKET_STATUS_LOBBY_CLOSED]
        await _assert_lobby_closed_for(stubs, {"pal": pal, "mate": mate})
        join = stubs["late"].JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
        await _refused_lobby_closed(join, database_url, names["late"])
        outcome = await _extra(platform)["rounds"].run(GAME)
        assert outcome is not None
        assert outcome[1] == []


@pytest.mark.usefixtures("manual_rounds")
async def test_a_friends_cancel_leaves_the_lobby_open(start_platform, database_url, unique):
    """Only the host's leaving closes a lobby: after a friend cancels, the host and the
    other friend still wait, a newcomer may join, and the three play."""
    names = {p: f"{p}-{unique}" for p in ("host", "pal", "mate", "late")}
    async with start_platform("matchmaking") as platform, _players(platform, names) as stubs:
        lobby, pal, _ = await _lobby_of_three(stubs)
        cancelled = await stubs["pal"].CancelTicket(pb.CancelTicketRequest(ticket_id=pal.ticket_id))
        assert cancelled.ticket.status == pb.TICKET_STATUS_CANCELLED
        for player in ("host", "mate"):
            assert await _tickets_of(database_url, names[player]) == [("waiting", lobby.code)]
        await stubs["late"].JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
        outcome = await _extra(platform)["rounds"].run(GAME)
        assert outcome is not None
        (formed,) = outcome[1]
        assert set(formed.match.players) == {names[p] for p in ("host", "mate", "late")}


async def _age_ticket(database_url: str, ticket_id: str, by: timedelta) -> None:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await conn.execute(
            "UPDATE mm_tickets SET created_at = created_at - %s WHERE ticket_id = %s",
            (by, ticket_id),
        )


@pytest.mark.usefixtures("manual_rounds")
async def test_the_hosts_ticket_expiring_closes_the_lobby(start_platform, database_url, unique):
    """The round that expires the host's ticket ends the friends' tickets in that lobby,
    LOBBY_CLOSED (their watches end with it), and seats no one. Before, that round seated
    the two friends together in a game without the host who had invited them."""
    names = {p: f"{p}-{unique}" for p in ("host", "pal", "mate", "late")}
    async with start_platform("matchmaking") as platform, _players(platform, names) as stubs:
        lobby, pal, mate = await _lobby_of_three(stubs)
        watching = await _watched_to_the_end(stubs["mate"], mate.ticket_id)
        # Made eleven minutes ago, by its clock: past the ten a ticket may wait.
        await _age_ticket(database_url, lobby.ticket.ticket_id, timedelta(minutes=11))
        outcome = await _extra(platform)["rounds"].run(GAME)
        assert outcome is not None
        round_, formed = outcome
        assert formed == []  # before: pal and mate seated without the host
        assert round_.expired == (lobby.ticket.ticket_id,)
        assert set(round_.closed) == {pal.ticket_id, mate.ticket_id}
        assert await _tickets_of(database_url, names["host"]) == [("expired", lobby.code)]
        assert await asyncio.wait_for(watching, 5) == [pb.TICKET_STATUS_LOBBY_CLOSED]
        await _assert_lobby_closed_for(stubs, {"pal": pal, "mate": mate})
        join = stubs["late"].JoinLobby(pb.JoinLobbyRequest(code=lobby.code))
        await _refused_lobby_closed(join, database_url, names["late"])


@pytest.mark.usefixtures("manual_rounds")
async def test_a_lobby_its_host_left_before_closes_at_the_next_round(
    start_platform, database_url, unique
):
    """Friends still waiting in a lobby whose host's ticket is no longer waiting (left so by
    a replica of an older version, whose CancelTicket closed nothing) are closed by the next
    round, never seated without the host."""
    names = {p: f"{p}-{unique}" for p in ("host", "pal", "mate")}
    async with start_platform("matchmaking") as platform, _players(platform, names) as stubs:
        lobby, pal, mate = await _lobby_of_three(stubs)
        async with await psycopg.AsyncConnection.connect(database_url) as conn:
            await conn.execute(
                "UPDATE mm_tickets SET status = 'cancelled', closed_at = now()"
                " WHERE ticket_id = %s",
                (lobby.ticket.ticket_id,),
            )
        outcome = await _extra(platform)["rounds"].run(GAME)
        assert outcome is not None
        assert outcome[1] == []  # before: pal and mate seated without the host
        await _assert_lobby_closed_for(stubs, {"pal": pal, "mate": mate})
