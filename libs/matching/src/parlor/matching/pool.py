"""The pool of waiting tickets: add, cancel, and match in rounds."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime

from parlor.core.errors import AlreadyExists, InvalidArgument, NotFound
from parlor.matching.match import Round
from parlor.matching.policy import Policy
from parlor.matching.tables import form_matches
from parlor.matching.ticket import Ticket


class Pool:
    """Waiting tickets, in memory; a service loads them, runs ``match`` and persists the round.

    A player may hold several tickets (different game types, a lobby and a public
    queue); once one is matched the others are withdrawn in the same round.
    """

    def __init__(self, policy: Policy | None = None) -> None:
        self.policy = policy or Policy()
        self._tickets: dict[str, Ticket] = {}

    @classmethod
    def from_tickets(cls, tickets: Iterable[Ticket], policy: Policy | None = None) -> Pool:
        """A pool holding these tickets, e.g. the rows a service just locked."""
        pool = cls(policy)
        for ticket in tickets:
            pool.add(ticket)
        return pool

    def add(self, ticket: Ticket) -> None:
        if ticket.id in self._tickets:
            raise AlreadyExists(
                "a ticket with this id is already waiting", reason="DUPLICATE_TICKET"
            )
        if ticket.max_players > self.policy.max_players:
            raise InvalidArgument(
                f"at most {self.policy.max_players} players per table", reason="BAD_PLAYER_COUNT"
            )
        self._tickets[ticket.id] = ticket

    def cancel(self, ticket_id: str) -> Ticket:
        """Withdraw a waiting ticket; it will never be matched."""
        try:
            return self._tickets.pop(ticket_id)
        except KeyError:
            raise NotFound("no such waiting ticket", reason="TICKET_NOT_FOUND") from None

    def get(self, ticket_id: str) -> Ticket | None:
        return self._tickets.get(ticket_id)

    def __contains__(self, ticket_id: object) -> bool:
        return ticket_id in self._tickets

    def __len__(self) -> int:
        return len(self._tickets)

    def __iter__(self) -> Iterator[Ticket]:
        return iter(self._tickets.values())

    def match(self, now: datetime) -> Round:
        """Form every match possible at ``now``; matched, withdrawn, expired and closed
        tickets leave."""
        round_ = form_matches(self._tickets.values(), now, self.policy)
        for ticket_id in round_.consumed:
            del self._tickets[ticket_id]
        return round_
