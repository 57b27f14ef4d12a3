"""``WatchPlayer``: a player's inbox (``playerinbox-<player id>``) as a resumable stream.

The inbox is a stream in the event store, so its versions are the positions a client
resumes from: the same on every replica and after any restart, one per change, in the
order the changes committed (each is appended in the change's own transaction). A watcher
reads the notices after the position it has given, sends them, and waits for its bell
(``Bells``): rung at once by a change this process records (a challenge's notice, the
turn feed's), and within half a second of a change another replica recorded by the
process's ``InboxBoard`` (``inboxes``: one look at the store for every watcher). After
``keepalive_seconds`` of quiet it reads on its own (the safety net, were the board to
miss a change) and sends a message with no notices. A watcher also records the expiry of
the player's pending challenges when their time comes (``ChallengeExpired``, once,
whoever sees it first; it wakes for it), so their players are told then rather than at
the next answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterator, Sequence

from parlor.challenges.v1 import challenges_pb2 as pb
from parlor.core.errors import ParlorError
from parlor.eventstore import RecordedEvent
from parlor.services.matchmaking.challenges import Challenges, notice_of
from parlor.services.matchmaking.challengeview import challenge_pb, timestamp
from parlor.services.matchmaking.turnfeed import ABORTED, GAME_NOTICES, TURN, TurnNotice, turn_of

KIND = {
    "ChallengeIssued": pb.NOTICE_KIND_CHALLENGE_ISSUED,
    "ChallengeAccepted": pb.NOTICE_KIND_CHALLENGE_ACCEPTED,
    "ChallengeDeclined": pb.NOTICE_KIND_CHALLENGE_DECLINED,
    "ChallengeCancelled": pb.NOTICE_KIND_CHALLENGE_CANCELLED,
    "ChallengeExpired": pb.NOTICE_KIND_CHALLENGE_EXPIRED,
    "RematchLapsed": pb.NOTICE_KIND_REMATCH_LAPSED,
    "GameMatched": pb.NOTICE_KIND_GAME_CREATED,
}
log = logging.getLogger("parlor.services.matchmaking.playerwatch")
MAX_BATCH = 100
"""Notices sent in one message at most (a long absence is sent in several)."""
EXPIRY_SLACK_SECONDS = 0.01
"""Added to the wait for a challenge's expiry: a timer may fire a little early."""


GAME_KIND = {TURN: pb.NOTICE_KIND_YOUR_TURN, ABORTED: pb.NOTICE_KIND_GAME_ABORTED}
"""A game's notice (``turnfeed``) as ``WatchPlayer`` names its kind."""


class Bells:
    """One event per watched player in this process, rung when their inbox changes here."""

    def __init__(self) -> None:
        self._bells: dict[str, set[asyncio.Event]] = {}

    @property
    def players(self) -> frozenset[str]:
        """The players watched in this process now."""
        return frozenset(self._bells)

    def ring(self, players: Sequence[str]) -> None:
        for player in players:
            for bell in self._bells.get(player, ()):
                bell.set()

    @contextlib.contextmanager
    def hung(self, player: str) -> Iterator[asyncio.Event]:
        bell = asyncio.Event()
        self._bells.setdefault(player, set()).add(bell)
        try:
            yield bell
        finally:
            mine = self._bells.get(player, set())
            mine.discard(bell)
            if not mine:
                self._bells.pop(player, None)


class PlayerWatch:
    def __init__(
        self,
        challenges: Challenges,
        keepalive_seconds: float = 15.0,
        poll_seconds: float | None = None,
    ) -> None:
        self.challenges = challenges
        self.keepalive_seconds = keepalive_seconds
        self.poll_seconds = keepalive_seconds if poll_seconds is None else poll_seconds
        """How often a watcher reads its inbox when its bell does not ring (None: at each
        keepalive; the bells and the ``InboxBoard`` bring every change sooner)."""
        self.reads = 0
        """Reads of an inbox's new notices by this process's watchers."""
        self.bells = Bells()
        challenges.changed = self.bells.ring

    async def notice_pb(self, recorded: RecordedEvent) -> pb.PlayerNotice:
        if recorded.type in GAME_NOTICES:
            turn = turn_of(recorded)
            kind = (
                pb.NOTICE_KIND_YOUR_TURN if recorded.type == TURN else pb.NOTICE_KIND_GAME_ABORTED
            )
            out = pb.PlayerNotice(
                position=recorded.version,
                kind=kind,
                at=timestamp(turn.at),
                game_type=turn.game_type,
                game_id=turn.game_id,
                game_version=turn.version,
            )
            if turn.deadline:
                out.deadline.CopyFrom(timestamp(turn.deadline))
            return out
        notice = notice_of(recorded)
        state = await self.challenges.as_of(notice.challenge_id, notice.version)
        return pb.PlayerNotice(
            position=recorded.version,
            kind=KIND.get(notice.event, pb.NOTICE_KIND_UNSPECIFIED),
            challenge=challenge_pb(state),
            at=timestamp(notice.at),
        )

    async def _still_waiting(self, turn: TurnNotice) -> bool:
        """Whether the game is where the notice found it (no event since: still that turn)."""
        stream = f"{turn.game_type}-{turn.game_id}"
        return await self.challenges.store.stream_version(stream) == turn.version

    async def _expire(self, due: dict[str, float]) -> None:
        """Record the expiry of each challenge past its time (its notices then follow)."""
        now = self.challenges.clock()
        for challenge_id in [c for c, at in due.items() if at <= now]:
            del due[challenge_id]
            try:
                await self.challenges.expire(challenge_id)
            except ParlorError:
                log.warning("challenge expiry not recorded", exc_info=True)

    async def watch(self, player_id: str, after: int) -> AsyncIterator[pb.WatchPlayerResponse]:
        with self.bells.hung(player_id) as bell:
            position = after
            inbox = await self.challenges.inbox(player_id)
            # When each pending challenge of the player's expires: recorded then (by whichever
            # watcher of its players sees it first; the decider records it once).
            due = {
                n.challenge_id: n.expires_at for n in inbox.latest.values() if n.status == "pending"
            }
            if after == 0:
                first = pb.WatchPlayerResponse()
                now = self.challenges.clock()
                blocked = await self.challenges.blocked_by(player_id)
                for role in ("invitee", "challenger", "seat"):
                    for notice in inbox.pending(role, now):
                        if notice.challenger in blocked:
                            continue
                        state = await self.challenges.get(notice.challenge_id)
                        if state.pending_at(now):
                            first.current.append(challenge_pb(state))
                # ... and each of their games waiting for them now: its latest turn notice,
                # while the game's stream is still at that notice's version (nobody has moved
                # since); a client that lost its position is told of every turn it owes.
                for recorded in inbox.turns.values():
                    if recorded.type == TURN and await self._still_waiting(turn_of(recorded)):
                        first.notices.append(await self.notice_pb(recorded))
                position = max(inbox.version, 0)
                first.position = position
                yield first
            quiet_since = asyncio.get_running_loop().time()
            while True:
                bell.clear()
                found = await self.challenges.notices(player_id, position)
                self.reads += 1
                for start in range(0, len(found), MAX_BATCH):
                    batch = found[start : start + MAX_BATCH]
                    out = pb.WatchPlayerResponse(position=batch[-1].version)
                    for recorded in batch:
                        out.notices.append(await self.notice_pb(recorded))
                        if recorded.type not in GAME_NOTICES:
                            notice = notice_of(recorded)
                            if notice.status == "pending":
                                due[notice.challenge_id] = notice.expires_at
                            else:
                                due.pop(notice.challenge_id, None)
                    position = out.position
                    yield out
                    quiet_since = asyncio.get_running_loop().time()
                await self._expire(due)
                now = asyncio.get_running_loop().time()
                if now - quiet_since >= self.keepalive_seconds:
                    yield pb.WatchPlayerResponse(position=position)
                    quiet_since = now
                wait = min(self.poll_seconds, quiet_since + self.keepalive_seconds - now)
                if due:  # woken for the first pending challenge's expiry
                    expiry = min(due.values()) - self.challenges.clock()
                    wait = min(wait, expiry + EXPIRY_SLACK_SECONDS)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(bell.wait(), max(wait, 0.0))
