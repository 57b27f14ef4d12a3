"""Challenges over the event store: one class, run on the in-memory store and on PostgreSQL
(this folder's ``store`` fixture). Every change is an event; the last seat's acceptance
records the match's ``MatchFormed`` exactly once, however many accept at once."""

from __future__ import annotations

import asyncio

import pytest

from parlor.challenges.v1 import challenges_pb2 as ch
from parlor.core.errors import FailedPrecondition, ResourceExhausted
from parlor.eventstore import EventStore
from parlor.matchmaking.v1 import events_pb2
from parlor.matchrecords.consent import match_stream
from parlor.services.matchmaking.challenge import FIRST, ChallengeIssued
from parlor.services.matchmaking.challenges import (
    BOARD,
    Challenges,
    challenge_stream,
    inbox_stream,
    notice_of,
)
from parlor.services.matchmaking.playerwatch import PlayerWatch


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def offer(challenger: str, invitees: tuple[str, ...], open_seats: int = 0, wait: float = 600.0):  # type: ignore[no-untyped-def]
    def issued(challenge_id: str, now: float) -> ChallengeIssued:
        return ChallengeIssued(
            challenge_id, challenger, challenger.title(), "connect4x4", invitees, open_seats,
            (), {"kind": "none", "initial_seconds": 0, "increment_seconds": 0,
                 "move_seconds": 0}, FIRST, True, now, now + wait,
        )  # fmt: skip

    return issued


class TestChallenges:
    async def test_accepted_once_however_many_accept_at_once(
        self, store: EventStore, unique: str
    ) -> None:
        challenges = Challenges(store)
        ann, bob = f"guest-a{unique}", f"guest-b{unique}"
        made = await challenges.issue(offer(ann, (bob,)))
        assert made.issued is not None
        challenge_id = made.issued.challenge_id
        answers = await asyncio.gather(
            *(challenges.accept(challenge_id, bob, "Bob") for _ in range(4))
        )
        assert {a.match_id for a in answers} == {answers[0].match_id} != {""}
        match_id = answers[0].match_id
        events = await store.read_stream(challenge_stream(challenge_id))
        assert [e.type for e in events] == ["ChallengeIssued", "ChallengeAccepted", "GameMatched"]
        recorded = await store.read_stream(match_stream(match_id))
        assert len(recorded) == 1
        formed = events_pb2.MatchFormed.FromString(recorded[0].data)
        assert [s.player_id for s in formed.seats] == [ann, bob]
        assert formed.challenge_id == challenge_id
        assert not formed.unrated
        # each of them was told of each change, in order
        for player in (ann, bob):
            notices = [notice_of(e) for e in await store.read_stream(inbox_stream(player))]
            assert [n.event for n in notices] == [
                "ChallengeIssued",
                "ChallengeAccepted",
                "GameMatched",
            ][-len(notices) :]
        assert len(await store.read_stream(inbox_stream(ann))) == 3
        # bob was told of the challenge when it was issued (he is invited)
        assert len(await store.read_stream(inbox_stream(bob))) == 3

    async def test_limits_outstanding_and_rate(self, store: EventStore, unique: str) -> None:
        clock = Clock()
        challenges = Challenges(store, max_outstanding=3, per_hour=5, clock=clock)
        ann = f"guest-a{unique}"
        made = [await challenges.issue(offer(ann, (f"guest-{n}{unique}",))) for n in range(3)]
        with pytest.raises(ResourceExhausted) as many:
            await challenges.issue(offer(ann, (f"guest-x{unique}",)))
        assert many.value.reason == "TOO_MANY_CHALLENGES"
        for state in made[:2]:
            assert state.issued is not None
            await challenges.cancel(state.issued.challenge_id, ann)
        await challenges.issue(offer(ann, (f"guest-y{unique}",)))
        await challenges.issue(offer(ann, (f"guest-z{unique}",)))
        for state in made[2:]:
            assert state.issued is not None
            await challenges.cancel(state.issued.challenge_id, ann)
        with pytest.raises(ResourceExhausted) as fast:
            await challenges.issue(offer(ann, (f"guest-w{unique}",)))
        assert fast.value.reason == "CHALLENGE_RATE"
        clock.now += 3601
        await challenges.issue(offer(ann, (f"guest-w{unique}",)))

    async def test_concurrent_creates_cannot_pass_the_limit_together(
        self, store: EventStore, unique: str
    ) -> None:
        challenges = Challenges(store, max_outstanding=2, per_hour=0)
        ann = f"guest-a{unique}"
        results = await asyncio.gather(
            *(challenges.issue(offer(ann, (f"guest-{n}{unique}",))) for n in range(5)),
            return_exceptions=True,
        )
        assert sum(1 for r in results if not isinstance(r, BaseException)) == 2
        assert all(
            isinstance(r, ResourceExhausted) for r in results if isinstance(r, BaseException)
        )

    async def test_concurrent_declines_cannot_pass_the_limit_together(
        self, store: EventStore, unique: str
    ) -> None:
        """Declines are counted in the decliner's inbox, appended at the version counted:
        declining five at once with a limit of two declines two; a day later, again."""
        clock = Clock()
        challenges = Challenges(store, per_hour=0, clock=clock, declines_per_day=2)
        bob = f"guest-b{unique}"
        made = [
            await challenges.issue(offer(f"guest-{n}{unique}", (bob,), wait=3 * 86_400))
            for n in range(6)
        ]
        ids = [state.issued.challenge_id for state in made if state.issued is not None]
        results = await asyncio.gather(
            *(challenges.decline(i, bob, "not_now") for i in ids[:5]), return_exceptions=True
        )
        declined = [r for r in results if not isinstance(r, BaseException)]
        assert len(declined) == 2
        refused = [r for r in results if isinstance(r, BaseException)]
        assert all(isinstance(r, ResourceExhausted) for r in refused)
        assert {r.reason for r in refused if isinstance(r, ResourceExhausted)} == {
            "TOO_MANY_DECLINES"
        }
        inbox = await challenges.inbox(bob)
        assert len(inbox.declined_at) == 2
        assert len(inbox.pending("invitee", clock.now)) == 4  # the refused ones still wait
        clock.now += 86_401
        assert (await challenges.decline(ids[5], bob, "not_now")).status == "declined"

    async def test_a_blocked_players_challenges_never_reach_the_blocker(
        self, store: EventStore, unique: str
    ) -> None:
        challenges = Challenges(store)
        ann, bob = f"guest-a{unique}", f"guest-b{unique}"
        await challenges.block(bob, ann, blocked=True)
        await challenges.issue(offer(ann, (bob,)))
        assert await store.read_stream(inbox_stream(bob)) == []
        assert len(await store.read_stream(inbox_stream(ann))) == 1
        await challenges.block(bob, ann, blocked=False)
        await challenges.issue(offer(ann, (bob,)))
        assert len(await store.read_stream(inbox_stream(bob))) == 1

    async def test_expiry_is_recorded_and_refuses_a_late_answer(
        self, store: EventStore, unique: str
    ) -> None:
        clock = Clock()
        challenges = Challenges(store, clock=clock)
        ann, bob = f"guest-a{unique}", f"guest-b{unique}"
        made = await challenges.issue(offer(ann, (bob,), wait=60))
        assert made.issued is not None
        clock.now += 61
        with pytest.raises(FailedPrecondition) as late:
            await challenges.accept(made.issued.challenge_id, bob, "Bob")
        assert late.value.reason == "CHALLENGE_EXPIRED"
        events = await store.read_stream(challenge_stream(made.issued.challenge_id))
        assert [e.type for e in events] == ["ChallengeIssued", "ChallengeExpired"]

    async def test_open_challenges_are_listed_until_their_seats_are_taken(
        self, store: EventStore, unique: str
    ) -> None:
        challenges = Challenges(store)
        ann, cy = f"guest-a{unique}", f"guest-c{unique}"
        made = await challenges.issue(offer(ann, (), open_seats=1))
        assert made.issued is not None
        challenge_id = made.issued.challenge_id
        assert challenge_id in await challenges.open_board()
        taken = await challenges.accept(challenge_id, cy, "Cy")
        assert taken.status == "matched"
        assert challenge_id not in await challenges.open_board()
        board = [e.type for e in await store.read_stream(BOARD)]
        assert "Delisted" in board

    async def test_two_seats_offering_a_rematch_at_once_make_one_offer(
        self, store: EventStore, unique: str
    ) -> None:
        challenges = Challenges(store)
        ann, bob = f"guest-a{unique}", f"guest-b{unique}"
        offers = await asyncio.gather(
            challenges.rematch("connect4x4", f"g{unique}", offer(ann, (bob,))),
            challenges.rematch("connect4x4", f"g{unique}", offer(bob, (ann,))),
        )
        assert sorted(new for _, new in offers) == [False, True]
        ids = {state.issued.challenge_id for state, _ in offers if state.issued is not None}
        assert len(ids) == 1

    async def test_the_watch_starts_with_now_then_changes_and_keeps_alive(
        self, store: EventStore, unique: str
    ) -> None:
        challenges = Challenges(store)
        watch = PlayerWatch(challenges, keepalive_seconds=0.2, poll_seconds=0.05)
        ann, bob = f"guest-a{unique}", f"guest-b{unique}"
        first = await challenges.issue(offer(ann, (bob,)))
        assert first.issued is not None
        stream = watch.watch(bob, 0)
        opening = await anext(stream)
        assert [c.challenge_id for c in opening.current] == [first.issued.challenge_id]
        assert opening.position == 1
        assert not opening.notices
        await challenges.issue(offer(ann, (bob,)))
        change = await anext(stream)
        assert [n.position for n in change.notices] == [2]
        keepalive = await anext(stream)
        assert not keepalive.notices
        assert keepalive.position == 2
        await stream.aclose()
        resumed = watch.watch(bob, 1)
        assert [n.position for n in (await anext(resumed)).notices] == [2]
        await resumed.aclose()

    async def test_a_rematch_may_be_offered_again_once_the_last_offer_ended(
        self, store: EventStore, unique: str
    ) -> None:
        clock = Clock()
        challenges = Challenges(store, clock=clock)
        ann, bob = f"guest-a{unique}", f"guest-b{unique}"
        first, new = await challenges.rematch(
            "connect4x4", f"g{unique}", offer(ann, (bob,), wait=60)
        )
        assert new
        again, new = await challenges.rematch(
            "connect4x4", f"g{unique}", offer(ann, (bob,), wait=60)
        )
        assert not new
        assert again.issued == first.issued
        clock.now += 61  # the offer expired unanswered
        later, new = await challenges.rematch(
            "connect4x4", f"g{unique}", offer(bob, (ann,), wait=60)
        )
        assert new
        assert later.issued is not None
        assert first.issued is not None
        assert later.issued.challenge_id != first.issued.challenge_id

    async def test_a_watcher_records_an_expiry_when_its_time_comes(
        self, store: EventStore, unique: str
    ) -> None:
        clock = Clock()
        challenges = Challenges(store, clock=clock)
        watch = PlayerWatch(challenges, keepalive_seconds=60, poll_seconds=0.05)
        ann, bob = f"guest-a{unique}", f"guest-b{unique}"
        made = await challenges.issue(offer(ann, (bob,), wait=60))
        assert made.issued is not None
        stream = watch.watch(bob, 1)
        clock.now += 61
        expired = await anext(stream)
        await stream.aclose()
        assert [(n.position, n.challenge.status) for n in expired.notices] == [
            (2, ch.CHALLENGE_STATUS_EXPIRED)
        ]
        events = await store.read_stream(challenge_stream(made.issued.challenge_id))
        assert [e.type for e in events] == ["ChallengeIssued", "ChallengeExpired"]
