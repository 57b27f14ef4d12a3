"""Forming tables from waiting tickets: one deterministic, pure round of matchmaking.

Tickets are served oldest first (then by id). Public tickets are bucketed by game
type and time control and sorted by rating; a ticket looks for partners outward from its own rating,
nearest first, only as far as its window reaches, skipping tickets already seated in
near-constant time. So a round costs about O(n log n + n * k) for n tickets at tables
of k, not O(n^2). Private lobbies are bucketed by (game type, invite code, time control).

Pass 1 seats humans only; pass 2 then fills seats with bots for tickets that have
waited ``bot_fill_after`` or asked for bots at once, so a human partner waiting in the
same round is always preferred to a bot.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable
from datetime import datetime, timedelta

from parlor.core.errors import InvalidArgument
from parlor.matching.match import Match, Round
from parlor.matching.policy import Policy
from parlor.matching.ticket import Ticket


class _Waiting:
    """A ticket as seen in this round: its window, accepted counts and place in its line."""

    __slots__ = (
        "bots",
        "hi",
        "line",
        "lo",
        "order",
        "player",
        "pos",
        "rating",
        "taken",
        "ticket",
        "window",
    )

    def __init__(self, ticket: Ticket, order: int, policy: Policy, waited: timedelta) -> None:
        self.ticket = ticket
        self.order = order
        self.player = ticket.player_id
        self.rating = ticket.rating
        self.lo, self.hi = policy.counts_after(ticket, waited)
        self.bots = ticket.bots_at_once or policy.bots_allowed_after(waited)
        self.window = policy.window_after(waited)
        self.taken = False
        self.line: _Line | None = None
        self.pos = -1


class _Line:
    """One game type's public tickets sorted by rating; seated tickets skipped almost free."""

    def __init__(self, waiting: list[_Waiting]) -> None:
        waiting.sort(key=lambda w: (w.rating, w.order))
        self.waiting = waiting
        for pos, w in enumerate(waiting):
            w.line, w.pos = self, pos
        n = len(waiting)
        self.widest = max(w.window for w in waiting)
        # _right[i]: i while alive, else a pointer toward the next alive index (n: none).
        self._right = list(range(n + 1))
        # _left[i + 1]: likewise toward the previous alive index (0 here means none).
        self._left = list(range(n + 1))

    def next_alive(self, i: int) -> int:
        right = self._right
        root = i
        while right[root] != root:
            root = right[root]
        while right[i] != root:
            right[i], i = root, right[i]
        return root

    def prev_alive(self, i: int) -> int:
        left = self._left
        j = i + 1
        root = j
        while left[root] != root:
            root = left[root]
        while left[j] != root:
            left[j], j = root, left[j]
        return root - 1

    def remove(self, pos: int) -> None:
        self._right[pos] = pos + 1
        self._left[pos + 1] = pos


def _fits(candidate: _Waiting, members: list[_Waiting]) -> bool:
    """Both windows hold: every pair's rating gap is within the narrower of the two."""
    return all(abs(candidate.rating - m.rating) <= min(candidate.window, m.window) for m in members)


class _Round:
    """The working state of one round; built, run once, then read."""

    def __init__(self, tickets: Iterable[Ticket], now: datetime, policy: Policy) -> None:
        if now.tzinfo is None:
            raise InvalidArgument("the matching time must be timezone-aware", reason="BAD_TIME")
        self.now = now
        self.policy = policy
        ordered = sorted(tickets, key=lambda t: t.priority)
        if len({t.id for t in ordered}) != len(ordered):
            raise InvalidArgument("a ticket id appears twice", reason="DUPLICATE_TICKET")
        self.expired: list[str] = []
        self.closed: list[str] = []
        self.queue: list[_Waiting] = []
        waits = [(t, policy.waited(t, now)) for t in ordered]
        # A lobby waits for its host: without their unexpired ticket in it, it closes.
        hosts_in = {(t.lobby, t.player_id) for t, waited in waits if waited < policy.expires_after}
        for t, waited in waits:
            if waited >= policy.expires_after:
                self.expired.append(t.id)
            elif t.lobby_host is not None and (t.lobby, t.lobby_host) not in hosts_in:
                self.closed.append(t.id)
            else:
                self.queue.append(_Waiting(t, len(self.queue), policy, waited))
        self.by_player: dict[str, list[_Waiting]] = defaultdict(list)
        public: dict[tuple[str, Hashable], list[_Waiting]] = defaultdict(list)
        self.lobbies: dict[tuple[str, str, Hashable], list[_Waiting]] = defaultdict(list)
        for w in self.queue:
            self.by_player[w.player].append(w)
            t = w.ticket
            if t.lobby is None:
                public[(t.game_type, t.time_control)].append(w)
            else:
                self.lobbies[(t.game_type, t.lobby, t.time_control)].append(w)
        self.lines = [_Line(waiting) for waiting in public.values()]
        self.matches: list[Match] = []
        self.withdrawn: list[_Waiting] = []

    def run(self) -> Round:
        for anchor in self.queue:
            if not anchor.taken:
                self._seat_humans(anchor)
        for anchor in self.queue:
            if not anchor.taken and anchor.bots:
                self._seat_with_bots(anchor)
        self.withdrawn.sort(key=lambda w: w.order)
        return Round(
            matches=tuple(self.matches),
            expired=tuple(self.expired),
            withdrawn=tuple(w.ticket.id for w in self.withdrawn),
            closed=tuple(self.closed),
        )

    def _seat_humans(self, anchor: _Waiting) -> None:
        """The largest table the anchor accepts that humans alone can fill, if any."""
        for count in range(anchor.hi, anchor.lo - 1, -1):
            members = self._gather(anchor, count, bots_only=False)
            if len(members) == count:
                self._form(members, bots=0, level=None)
                return

    def _seat_with_bots(self, anchor: _Waiting) -> None:
        """Public: the anchor's minimum table; lobby: the anchor's (the host's) maximum.

        The bots are of the anchor's ``bot_level`` (public partners must name the same).
        """
        if anchor.ticket.lobby is None:
            count = anchor.ticket.min_players
            members = self._gather(anchor, count, bots_only=True)
        else:
            count = anchor.ticket.max_players
            members = self._gather(anchor, count, bots_only=False, any_count=True)
        self._form(members, bots=count - len(members), level=anchor.ticket.bot_level)

    def _gather(
        self, anchor: _Waiting, count: int, *, bots_only: bool, any_count: bool = False
    ) -> list[_Waiting]:
        """Up to ``count`` players for the anchor's table, nearest (or, in a lobby, oldest) first.

        ``bots_only``: only tickets that may sit with bots. ``any_count``: a lobby
        holder joins the host's bot-filled table if ``count`` is in their range, even
        while still waiting for a full table; otherwise ``count`` must be a size they
        accept now.
        """
        members = [anchor]
        if count <= 1:
            return members
        players = {anchor.player}
        for candidate in self._candidates(anchor):
            if candidate.player in players:
                continue
            if any_count:
                if not candidate.ticket.min_players <= count <= candidate.ticket.max_players:
                    continue
            elif not candidate.lo <= count <= candidate.hi:
                continue
            if bots_only and not (
                candidate.bots and candidate.ticket.bot_level == anchor.ticket.bot_level
            ):
                continue
            if anchor.ticket.lobby is None and not _fits(candidate, members):
                continue
            members.append(candidate)
            players.add(candidate.player)
            if len(members) == count:
                break
        return members

    def _candidates(self, anchor: _Waiting) -> Iterable[_Waiting]:
        """Possible partners: lobby holders oldest first, or public tickets nearest in rating."""
        t = anchor.ticket
        if t.lobby is not None:
            for w in self.lobbies[(t.game_type, t.lobby, t.time_control)]:
                if w is not anchor and not w.taken:
                    yield w
            return
        line = anchor.line
        assert line is not None
        row = line.waiting
        reach = min(anchor.window, line.widest)
        left = line.prev_alive(anchor.pos - 1)
        right = line.next_alive(anchor.pos + 1)
        while True:
            below = anchor.rating - row[left].rating if left >= 0 else math.inf
            above = row[right].rating - anchor.rating if right < len(row) else math.inf
            if below > reach and above > reach:
                return
            if below < above or (below == above and row[left].order < row[right].order):
                yield row[left]
                left = line.prev_alive(left - 1)
            else:
                yield row[right]
                right = line.next_alive(right + 1)

    def _form(self, members: list[_Waiting], *, bots: int, level: int | None) -> None:
        members.sort(key=lambda w: w.order)
        for member in members:
            for other in self.by_player[member.player]:
                if other.taken:
                    continue
                other.taken = True
                if other.line is not None:
                    other.line.remove(other.pos)
                if other is not member:
                    self.withdrawn.append(other)
        average = sum(m.rating for m in members) / len(members)
        first = members[0].ticket
        self.matches.append(
            Match(
                game_type=first.game_type,
                seats=tuple(m.player for m in members)
                + (self.policy.bot_seat(average, level),) * bots,
                tickets=tuple(m.ticket.id for m in members),
                average_rating=average,
                lobby=first.lobby,
                time_control=first.time_control,
            )
        )


def form_matches(tickets: Iterable[Ticket], now: datetime, policy: Policy) -> Round:
    """One round over these waiting tickets at ``now``; the same input always gives the same round.

    The result does not depend on the order ``tickets`` come in.
    """
    return _Round(tickets, now, policy).run()
