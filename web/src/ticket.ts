// What the lobby's ticket line says of a ticket's status, without the DOM: the status by
// name, and for a ticket that ended with its lobby (its host cancelled, or the host's
// ticket expired; TICKET_STATUS_LOBBY_CLOSED) why, so a friend knows to ask for a new code.
import { TicketStatus } from "@parlor/client/gen/parlor/matchmaking/v1/matchmaking_pb";

export function ticketState(status: TicketStatus): string {
  if (status === TicketStatus.LOBBY_CLOSED) return "ended: the lobby's host left and closed it";
  return TicketStatus[status]?.toLowerCase() ?? "";
}
