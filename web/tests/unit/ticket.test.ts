// What the lobby's ticket line says of a ticket (src/ticket.ts): its status by name, and for
// a friend's ticket ended with a lobby its host left, that reason in words.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TicketStatus } from "@parlor/client/gen/parlor/matchmaking/v1/matchmaking_pb";
import { ticketState } from "../../src/ticket";

test("a ticket's state is its status by name", () => {
  assert.equal(ticketState(TicketStatus.WAITING), "waiting");
  assert.equal(ticketState(TicketStatus.CANCELLED), "cancelled");
  assert.equal(ticketState(TicketStatus.UNSPECIFIED), "unspecified");
});

test("a ticket ended with its lobby says the host closed the lobby", () => {
  assert.equal(ticketState(TicketStatus.LOBBY_CLOSED), "ended: the lobby's host left and closed it");
});
