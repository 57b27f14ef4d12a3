// What the lobby's ticket line says of a ticket's status, without the DOM: the status by
// name, and for a ticket that ended with its lobby (its host cancelled, or the host's
// ticket expired; TICKET_STATUS_LOBBY_CLOSED) why, so a friend knows to ask for a new code.
import { TicketStatus, type Ticket } from "@parlor/client/gen/parlor/matchmaking/v1/matchmaking_pb";
import { millis } from "./clock";

export function ticketState(status: TicketStatus): string {
  if (status === TicketStatus.LOBBY_CLOSED) return "ended: the lobby's host left and closed it";
  return TicketStatus[status]?.toLowerCase() ?? "";
}

// While a ticket waits: how long it has, and when bots fill its empty seats (the server's
// bots_fill_at; none when its bot fill is off), counted down from ``now`` (milliseconds).
export function waitLine(ticket: Pick<Ticket, "status" | "createdAt" | "botsFillAt">, now: number): string {
  if (ticket.status !== TicketStatus.WAITING) return "";
  const since = millis(ticket.createdAt);
  const waited = since === undefined ? "" : `waiting ${seconds(now - since)}`;
  const fill = millis(ticket.botsFillAt);
  if (fill === undefined) return waited;
  const left = fill - now;
  const bots = left > 0 ? `bots fill the empty seats in ${seconds(left)}` : "bots fill the empty seats at the next round";
  return waited ? `${waited} · ${bots}` : bots;
}

function seconds(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}
