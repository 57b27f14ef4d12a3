"""A relay's parts shared among its live replicas: each leads about P / replicas of them.

A store of P partitions relays each lane in P parts, each under a lease of its own
(``relay.py``). Left to take every free lease, the first replica to start leads them all,
and every event of the deployment passes through its one publish loop while the others
wait. With ``Relay(..., spread=True)`` the replicas of a relay share its parts instead:

- **Who shares.** Each replica keeps a row in ``relay_members`` under the relay's name
  (its lanes and P: replicas of another release, with other lanes, share among
  themselves), renewed with its leases and whenever it looks for one, expiring as a lease
  does (``lease_seconds``). The rows not expired are the replicas sharing.
- **Its share** of a lane's P parts is ``ceil(P / replicas)`` (``share``). Looking for
  leases, it takes free ones only up to its share, lowest partitions first
  (``to_take``); renewing, it hands over what it holds beyond its share, highest
  partitions first (``to_hand_over``), saving their checkpoints with its token and then
  releasing their leases, so another replica takes them at its next look.
- **Guarantees** are the leases': a part is published by whoever holds its lease, from
  its checkpoint, under its fencing token; a handover is a release followed by another
  replica's take, as when a replica stops. What a handing-over replica published after
  its last checkpoint save is sent again and dropped by JetStream's dedupe window.
- **A replica that stops** deletes its row, so the others' shares grow at their next
  renewal; one that dies is counted until its row expires, which is when its leases do.

With one partition there is one part per lane and every share is 1: nothing changes.
Counted rows could disagree for a moment (a replica joining between two others' looks):
a share too small leaves a part free for one look longer, a share too large is handed
over at the next renewal; leases keep each part to one publisher throughout.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

# One round trip: this replica's row renewed (the statement's own snapshot does not see
# it, so it counts itself), the others' rows not expired counted, rows of replicas gone
# an hour deleted, and which of ``names`` are free to take.
HEARTBEAT = (
    "WITH me AS (INSERT INTO relay_members (relay, holder, expires_at) "
    "VALUES (%(relay)s, %(holder)s, now() + make_interval(secs => %(secs)s)) "
    "ON CONFLICT (relay, holder) DO UPDATE SET expires_at = excluded.expires_at), "
    "gone AS (DELETE FROM relay_members WHERE relay = %(relay)s "
    "AND expires_at < now() - interval '1 hour') "
    "SELECT 1 + (SELECT count(*) FROM relay_members WHERE relay = %(relay)s "
    "AND holder <> %(holder)s AND expires_at > now()), "
    "ARRAY(SELECT n FROM unnest(%(names)s::text[]) AS n LEFT JOIN relay_leases l "
    "ON l.name = n WHERE l.name IS NULL OR l.expires_at <= now() OR l.holder = %(holder)s)"
)
LEAVE = "DELETE FROM relay_members WHERE relay = %(relay)s AND holder = %(holder)s"


class Part(Protocol):
    """What a share is worked out from: a lane's part (``relay.Lane``)."""

    @property
    def base(self) -> str: ...
    @property
    def partition(self) -> int: ...
    @property
    def held(self) -> bool: ...


P = TypeVar("P", bound=Part)


def share(parts: int, replicas: int) -> int:
    """How many of a lane's ``parts`` one of ``replicas`` leads at most: ceil(parts / replicas)."""
    return -(-parts // max(replicas, 1))


def _held_by_base(parts: Iterable[Part]) -> Counter[str]:
    return Counter(part.base for part in parts if part.held)


def to_take(parts: Sequence[P], free: Iterable[P], partitions: int, replicas: int) -> list[P]:
    """Of the ``free`` parts (not held, their lease free), those to take: for each lane, as
    many as its share leaves, lowest partitions first."""
    held = _held_by_base(parts)
    room = {part.base: share(partitions, replicas) - held[part.base] for part in parts}
    taken = []
    for part in sorted(free, key=lambda part: (part.base, part.partition)):
        if room.get(part.base, 0) > 0:
            room[part.base] -= 1
            taken.append(part)
    return taken


def to_hand_over(parts: Sequence[P], partitions: int, replicas: int) -> list[P]:
    """Of the held ``parts``, those beyond each lane's share: its highest partitions."""
    most = share(partitions, replicas)
    over: list[P] = []
    for base in sorted({part.base for part in parts}):
        held = sorted(
            (part for part in parts if part.held and part.base == base),
            key=lambda part: part.partition,
        )
        over.extend(held[most:])
    return over
