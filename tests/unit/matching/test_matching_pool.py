"""Matchmaking rules, one test per rule, and random pools checked against every invariant."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlor.core.errors import AlreadyExists, InvalidArgument, NotFound
from parlor.matching import Match, Policy, Pool, Round, Ticket, form_matches

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
POLICY = Policy(
    window_base=100.0,
    window_growth=10.0,
    window_cap=800.0,
    accept_minimum_after=timedelta(seconds=30),
    bot_fill_after=timedelta(seconds=60),
    expires_after=timedelta(minutes=10),
)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def ticket(
    id: str,
    rating: float = 1500.0,
    *,
    player: str | None = None,
    game: str = "connect4x4",
    players: tuple[int, int] = (2, 2),
    created: float = 0.0,
    lobby: str | None = None,
    host: str | None = None,
) -> Ticket:
    return Ticket(
        id=id,
        player_id=player or f"player-{id}",
        game_type=game,
        min_players=players[0],
        max_players=players[1],
        rating=rating,
        created_at=at(created),
        lobby=lobby,
        lobby_host=host,
    )


def pool(*tickets: Ticket, policy: Policy = POLICY) -> Pool:
    return Pool.from_tickets(tickets, policy)


def seated(round_: Round) -> list[tuple[str, ...]]:
    return [m.tickets for m in round_.matches]


def test_rating_windows_widen_with_time() -> None:
    fresh = ticket("a")
    assert POLICY.window(fresh, at(0)) == 100.0
    assert POLICY.window(fresh, at(10)) == 200.0
    assert POLICY.window(fresh, at(1000)) == 800.0
    waiting = pool(ticket("a", 1500.0), ticket("b", 1750.0))
    assert waiting.match(at(10)).matches == ()
    assert seated(waiting.match(at(15))) == [("a", "b")]


def test_a_pair_must_be_within_both_tickets_windows() -> None:
    # "old" has waited 50 s (window 600); "new" is fresh (window 100): 300 apart is too far.
    waiting = pool(ticket("old", 1500.0, created=0), ticket("new", 1800.0, created=50))
    assert waiting.match(at(50)).matches == ()
    assert seated(waiting.match(at(70))) == [("old", "new")]


def test_a_cancelled_ticket_is_never_matched() -> None:
    waiting = pool(ticket("a"), ticket("b"), ticket("c", created=1))
    assert waiting.cancel("a").id == "a"
    round_ = waiting.match(at(5))
    assert seated(round_) == [("b", "c")]
    assert "a" not in round_.consumed
    with pytest.raises(NotFound):
        waiting.cancel("a")


def test_a_cancelled_ticket_is_never_matched_even_with_bots() -> None:
    waiting = pool(ticket("a"))
    waiting.cancel("a")
    assert waiting.match(at(500)).matches == ()


def test_an_expired_ticket_is_never_matched() -> None:
    waiting = pool(ticket("old", created=0), ticket("new", created=599))
    round_ = waiting.match(at(600))
    assert round_.matches == ()
    assert round_.expired == ("old",)
    assert "old" not in waiting
    assert "new" in waiting


def test_a_private_lobby_starts_only_with_its_code_holders() -> None:
    waiting = pool(
        ticket("host", lobby="KITE", players=(3, 3)),
        ticket("stranger", created=1, players=(3, 3)),
        ticket("other-lobby", created=1, lobby="MOTH", players=(3, 3)),
        ticket("friend", created=2, lobby="KITE", players=(3, 3)),
    )
    assert waiting.match(at(10)).matches == ()
    waiting.add(ticket("second-friend", created=11, lobby="KITE", players=(3, 3)))
    round_ = waiting.match(at(12))
    assert seated(round_) == [("host", "friend", "second-friend")]
    assert round_.matches[0].lobby == "KITE"
    assert {"stranger", "other-lobby"} <= {t.id for t in waiting}


def test_a_private_lobby_ignores_rating_windows() -> None:
    waiting = pool(ticket("a", 900.0, lobby="KITE"), ticket("b", 2400.0, lobby="KITE"))
    assert seated(waiting.match(at(0))) == [("a", "b")]


def test_public_tickets_never_join_a_lobby_table() -> None:
    waiting = pool(ticket("a", lobby="KITE"), ticket("b"))
    assert waiting.match(at(59)).matches == ()


def test_bot_fill_happens_after_the_wait_and_not_before() -> None:
    waiting = pool(ticket("lonely", players=(2, 4)))
    assert waiting.match(at(59)).matches == ()
    round_ = waiting.match(at(60))
    (match,) = round_.matches
    assert match.seats == ("player-lonely", "bot:3")
    assert match.bots == 1
    assert match.tickets == ("lonely",)


def test_bot_fill_is_disabled_without_a_wait() -> None:
    waiting = pool(ticket("lonely"), policy=Policy(bot_fill_after=None))
    assert waiting.match(at(590)).matches == ()


def test_bot_fill_fills_a_public_table_to_its_minimum_count() -> None:
    waiting = pool(ticket("a", players=(3, 4)), ticket("b", 1510.0, players=(3, 5)))
    (match,) = waiting.match(at(61)).matches
    assert match.players == ("player-a", "player-b")
    assert len(match.seats) == 3
    assert match.bots == 1


def test_bot_fill_never_seats_a_human_before_their_own_wait() -> None:
    # "young" could join "old" at 3 seats, but has not waited for bots itself.
    waiting = pool(ticket("old", players=(3, 3)), ticket("young", created=40, players=(3, 3)))
    (match,) = waiting.match(at(60)).matches
    assert match.tickets == ("old",)
    assert match.bots == 2
    assert "young" in waiting


def test_bot_fill_fills_a_lobby_to_its_hosts_table_size() -> None:
    waiting = pool(
        ticket("host", lobby="KITE", players=(2, 4)),
        ticket("friend", created=50, lobby="KITE", players=(2, 4)),
    )
    assert waiting.match(at(20)).matches == ()  # the lobby waits for a full table
    (match,) = waiting.match(at(60)).matches
    assert match.tickets == ("host", "friend")
    assert len(match.seats) == 4
    assert match.bots == 2


def hosted(id: str, created: float = 0.0) -> Ticket:
    """A ticket in lobby KITE (2 to 4 seats), whose host is the player of ticket "host"."""
    return ticket(id, created=created, lobby="KITE", players=(2, 4), host="player-host")


def test_a_lobby_closes_when_its_hosts_ticket_expires() -> None:
    """The host's ticket expires: the lobby's other tickets leave with it (``closed``) in
    that round. Before, the friends, who may sit two at a table by then, were seated
    together in a game without the host who had invited them."""
    waiting = pool(hosted("host"), hosted("pal", created=300), hosted("mate", created=301))
    round_ = waiting.match(at(600))
    assert round_.expired == ("host",)
    assert round_.closed == ("pal", "mate")
    assert round_.matches == ()
    assert set(round_.consumed) == {"host", "pal", "mate"}
    assert len(waiting) == 0


def test_a_lobby_whose_host_has_gone_closes_at_the_next_round() -> None:
    """The host's ticket left the pool (cancelled): the round closes the lobby's other
    tickets instead of seating them without the host."""
    waiting = pool(hosted("host"), hosted("pal", created=1), hosted("mate", created=2))
    waiting.cancel("host")
    round_ = waiting.match(at(40))  # both accept a table of 2 by now
    assert round_.matches == ()
    assert round_.closed == ("pal", "mate")
    assert len(waiting) == 0


def test_a_joiner_leaving_keeps_the_lobby_open() -> None:
    """Only the host's leaving closes a lobby: after a friend's cancel the host and the
    other friend still play."""
    waiting = pool(hosted("host"), hosted("pal", created=1), hosted("mate", created=2))
    waiting.cancel("pal")
    round_ = waiting.match(at(40))
    assert round_.closed == ()
    assert seated(round_) == [("host", "mate")]


def test_a_host_is_named_only_in_a_lobby() -> None:
    with pytest.raises(InvalidArgument) as refused:
        ticket("a", host="player-b")
    assert refused.value.reason == "BAD_TICKET"


def test_humans_are_preferred_to_bots() -> None:
    waiting = pool(ticket("a"), ticket("b", 1520.0, created=70))
    (match,) = waiting.match(at(70)).matches
    assert match.bots == 0
    assert match.tickets == ("a", "b")


def test_bot_level_follows_the_tables_average_rating() -> None:
    assert POLICY.bot_seat(1100.0) == "bot:1"
    assert POLICY.bot_seat(1500.0) == "bot:3"
    assert POLICY.bot_seat(2300.0) == "bot:4"


def test_full_tables_are_preferred_until_patience_runs_out() -> None:
    waiting = pool(*(ticket(f"t{i}", players=(2, 4)) for i in range(3)))
    assert waiting.match(at(29)).matches == ()  # three of four seats: keep waiting
    (match,) = waiting.match(at(30)).matches
    assert match.tickets == ("t0", "t1", "t2")


def test_the_largest_count_all_tickets_accept_is_chosen() -> None:
    ranges = {"a": (2, 4), "b": (2, 3), "c": (3, 6), "d": (2, 4)}
    tickets = [ticket(i, players=r, created=n) for n, (i, r) in enumerate(ranges.items())]
    # Only a, c and d accept 4 seats: three players cannot fill it, so a table of 3 forms.
    assert seated(pool(*tickets).match(at(40))) == [("a", "b", "c")]
    # With e (2-4) four players accept 4 seats, and the larger table wins.
    with_e = pool(*tickets, ticket("e", players=(2, 4), created=4))
    assert seated(with_e.match(at(40))) == [("a", "c", "d", "e")]


def test_a_player_is_matched_once_and_their_other_tickets_withdrawn() -> None:
    waiting = pool(
        ticket("c4-ann", player="ann", created=0),
        ticket("up-ann", player="ann", game="upwords", created=1),
        ticket("c4-bob", player="bob", created=2),
        ticket("up-cy", player="cy", game="upwords", created=3),
    )
    round_ = waiting.match(at(5))
    assert seated(round_) == [("c4-ann", "c4-bob")]
    assert round_.withdrawn == ("up-ann",)
    assert "up-ann" not in waiting
    assert "up-cy" in waiting


def test_a_player_never_sits_twice_at_one_table() -> None:
    waiting = pool(ticket("a1", player="ann"), ticket("a2", player="ann"))
    assert waiting.match(at(5)).matches == ()


def test_game_types_never_mix() -> None:
    waiting = pool(ticket("a", game="connect4x4"), ticket("b", game="upwords"))
    assert waiting.match(at(59)).matches == ()


def test_the_oldest_ticket_is_served_first_then_the_smallest_id() -> None:
    waiting = pool(ticket("z", created=0), ticket("y", created=1), ticket("x", created=1))
    assert seated(waiting.match(at(2))) == [("z", "x")]


def test_nearest_rating_is_preferred() -> None:
    waiting = pool(ticket("a", 1500.0), ticket("far", 1580.0), ticket("near", 1490.0))
    assert seated(waiting.match(at(1))) == [("a", "near")]


def test_matching_does_not_depend_on_the_order_tickets_are_given() -> None:
    rng = random.Random(3)
    tickets = [
        ticket(f"t{i}", rng.uniform(1000, 2000), players=(2, rng.choice([2, 3, 4])), created=i)
        for i in range(200)
    ]
    first = form_matches(tickets, at(100), POLICY)
    rng.shuffle(tickets)
    assert form_matches(tickets, at(100), POLICY) == first


def test_a_round_lists_every_ticket_that_leaves_the_pool() -> None:
    waiting = pool(
        ticket("a", player="ann"),
        ticket("b"),
        ticket("a2", player="ann", game="upwords"),
        ticket("gone", created=-600),
    )
    round_ = waiting.match(at(1))
    assert sorted(round_.consumed) == ["a", "a2", "b", "gone"]
    assert len(waiting) == 0
    assert round_.matches[0].key == "a"


def test_a_duplicate_ticket_id_is_refused() -> None:
    waiting = pool(ticket("a"))
    with pytest.raises(AlreadyExists):
        waiting.add(ticket("a"))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_players": 1, "max_players": 2},
        {"min_players": 3, "max_players": 2},
        {"rating": float("nan")},
        {"created_at": datetime(2026, 1, 1)},
        {"id": ""},
    ],
)
def test_malformed_tickets_are_invalid_arguments(kwargs: dict[str, object]) -> None:
    fields: dict[str, object] = {
        "id": "t",
        "player_id": "p",
        "game_type": "connect4x4",
        "min_players": 2,
        "max_players": 2,
        "rating": 1500.0,
        "created_at": T0,
    }
    fields.update(kwargs)
    with pytest.raises(InvalidArgument):
        Ticket(**fields)  # type: ignore[arg-type]


def test_a_table_larger_than_the_policy_allows_is_refused() -> None:
    with pytest.raises(InvalidArgument):
        pool(ticket("a", players=(2, 9)))


def test_bot_fill_cannot_come_before_accepting_the_minimum() -> None:
    with pytest.raises(InvalidArgument):
        Policy(accept_minimum_after=timedelta(seconds=60), bot_fill_after=timedelta(seconds=30))


# --- random pools -------------------------------------------------------------------------


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[Policy, list[Ticket], set[str], list[float]]:
    accept = draw(st.integers(0, 60))
    bots = draw(st.one_of(st.none(), st.integers(accept, 120)))
    policy = Policy(
        window_base=draw(st.sampled_from([0.0, 25.0, 100.0])),
        window_growth=draw(st.sampled_from([0.0, 2.0, 10.0])),
        window_cap=draw(st.sampled_from([200.0, 800.0])),
        accept_minimum_after=timedelta(seconds=accept),
        bot_fill_after=None if bots is None else timedelta(seconds=bots),
        expires_after=timedelta(seconds=draw(st.integers(30, 400))),
    )
    tickets = []
    # A lobby's tickets name its host (a player who may or may not wait there), or no one.
    hosts = {code: draw(st.sampled_from([None, "p0", "p1"])) for code in ("KITE", "MOTH")}
    for i in range(draw(st.integers(0, 60))):
        low = draw(st.integers(2, 4))
        lobby = draw(st.sampled_from([None, None, None, "KITE", "MOTH"]))
        tickets.append(
            Ticket(
                id=f"t{i:03d}",
                player_id=f"p{draw(st.integers(0, 25))}",
                game_type=draw(st.sampled_from(["connect4x4", "upwords"])),
                min_players=low,
                max_players=draw(st.integers(low, 5)),
                rating=draw(st.floats(1000.0, 2000.0)),
                created_at=at(draw(st.integers(0, 300))),
                lobby=lobby,
                lobby_host=None if lobby is None else hosts[lobby],
                time_control=draw(st.sampled_from([None, None, "5+3"])),
                bots_at_once=lobby is None and draw(st.integers(0, 5)) == 0,
                bot_level=draw(st.sampled_from([None, None, None, 2])),
            )
        )
    cancelled = {t.id for t in tickets if draw(st.booleans()) and draw(st.booleans())}
    times = sorted(draw(st.lists(st.integers(0, 600), min_size=1, max_size=4)))
    return policy, tickets, cancelled, [float(t) for t in times]


def _check_match(match: Match, by_id: dict[str, Ticket], policy: Policy, now: datetime) -> None:
    members = [by_id[t] for t in match.tickets]
    size = len(match.seats)
    assert match.players == tuple(t.player_id for t in members)
    assert len(set(match.players)) == len(match.players)
    assert all(seat.startswith("bot:") for seat in match.seats[len(members) :])
    assert {t.game_type for t in members} == {match.game_type}
    assert {t.lobby for t in members} == {match.lobby}
    assert {t.time_control for t in members} == {match.time_control}
    for t in members:
        assert t.min_players <= size <= t.max_players
        assert not policy.expired(t, now)
    if match.lobby is None:
        for a in members:
            for b in members:
                gap = abs(a.rating - b.rating)
                assert gap <= policy.window(a, now)
                assert gap <= policy.window(b, now)
    first = members[0]
    # A lobby whose host (oldest holder) waited for bots sits at the host's size.
    host_table = (
        match.lobby is not None and policy.bots_allowed(first, now) and size == first.max_players
    )
    if match.bots > 0:
        levels = {t.bot_level for t in members} if match.lobby is None else {first.bot_level}
        (level,) = levels  # public: every member named the same level
        named = {seat for seat in match.seats[len(members) :]}
        assert level is None or named == {f"bot:{level}"}
    if match.bots > 0 and match.lobby is None:
        assert size == first.min_players
        assert all(policy.bots_allowed(t, now) for t in members)
    elif match.bots > 0:
        assert host_table
    elif not host_table:
        for t in members:
            low, high = policy.counts(t, now)
            assert low <= size <= high


def _check_closed(round_: Round, before: list[Ticket], policy: Policy, now: datetime) -> None:
    """Exactly the unexpired tickets of lobbies whose host has no unexpired ticket there close."""
    hosts_in = {(t.lobby, t.player_id) for t in before if not policy.expired(t, now)}
    hostless = {
        t.id
        for t in before
        if t.lobby_host is not None
        and (t.lobby, t.lobby_host) not in hosts_in
        and not policy.expired(t, now)
    }
    assert set(round_.closed) == hostless


def _check_no_pair_left(waiting: list[Ticket], policy: Policy, now: datetime) -> None:
    """Greedy but not wasteful: no two leftover public tickets could have played each other."""
    public = [t for t in waiting if t.lobby is None]
    for a in public:
        for b in public:
            same = (a.game_type, a.time_control) == (b.game_type, b.time_control)
            if a.id < b.id and a.player_id != b.player_id and same:
                both_accept_two = policy.counts(a, now)[0] == 2 == policy.counts(b, now)[0]
                gap = abs(a.rating - b.rating)
                close = gap <= policy.window(a, now) and gap <= policy.window(b, now)
                assert not (both_accept_two and close), (a, b)


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_no_player_is_ever_in_two_matches(
    scenario: tuple[Policy, list[Ticket], set[str], list[float]],
) -> None:
    policy, tickets, cancelled, times = scenario
    by_id = {t.id: t for t in tickets}
    waiting = pool(*tickets, policy=policy)
    for ticket_id in sorted(cancelled):
        waiting.cancel(ticket_id)
    players_matched: set[str] = set()
    tickets_gone: set[str] = set(cancelled)
    for seconds in times:
        now = at(seconds)
        before = {t.id for t in waiting}
        in_another_order = form_matches(reversed(list(waiting)), now, policy)
        round_ = waiting.match(now)
        assert round_ == in_another_order
        assert len(round_.consumed) == len(set(round_.consumed))
        assert set(round_.consumed) <= before
        assert not set(round_.consumed) & tickets_gone
        assert {t.id for t in waiting} == before - set(round_.consumed)
        for ticket_id in round_.expired:
            assert policy.expired(by_id[ticket_id], now)
        _check_closed(round_, [by_id[t] for t in before], policy, now)
        for match in round_.matches:
            _check_match(match, by_id, policy, now)
            assert not set(match.players) & players_matched, "a player in two matches"
            players_matched |= set(match.players)
        for ticket_id in round_.withdrawn:
            assert by_id[ticket_id].player_id in players_matched
        assert not {t.player_id for t in waiting} & players_matched
        tickets_gone |= set(round_.consumed)
        _check_no_pair_left(list(waiting), policy, now)
