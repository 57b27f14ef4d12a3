// What the lobby's ticket line says of a ticket (src/ticket.ts): its status by name, and for
// a friend's ticket ended with a lobby its host left, that reason in words.
import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@parlor/client";
import { TicketSchema, TicketStatus } from "@parlor/client/gen/parlor/matchmaking/v1/matchmaking_pb";
import { ticketState, waitLine } from "../../src/ticket";

test("a ticket's state is its status by name", () => {
  assert.equal(ticketState(TicketStatus.WAITING), "waiting");
  assert.equal(ticketState(TicketStatus.CANCELLED), "cancelled");
  assert.equal(ticketState(TicketStatus.UNSPECIFIED), "unspecified");
});

test("a ticket ended with its lobby says the host closed the lobby", () => {
  assert.equal(ticketState(TicketStatus.LOBBY_CLOSED), "ended: the lobby's host left and closed it");
});

const at = (ms: number) => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 });

test("a waiting ticket counts down to its bots", () => {
  const ticket = create(TicketSchema, { status: TicketStatus.WAITING, createdAt: at(1_000_000), botsFillAt: at(1_060_000) });
  assert.equal(waitLine(ticket, 1_012_000), "waiting 12 s · bots fill the empty seats in 48 s");
  assert.equal(waitLine(ticket, 1_061_000), "waiting 1 min 01 s · bots fill the empty seats at the next round");
});

test("without bot fill only the wait is told, and nothing once the ticket ended", () => {
  const waiting = create(TicketSchema, { status: TicketStatus.WAITING, createdAt: at(1_000_000) });
  assert.equal(waitLine(waiting, 1_005_000), "waiting 5 s");
  const matched = create(TicketSchema, { status: TicketStatus.MATCHED, createdAt: at(1_000_000), botsFillAt: at(1_060_000) });
  assert.equal(waitLine(matched, 1_005_000), "");
});
