// A match against a bot, from Node.js through @parlor/client and the web gateway that
// `make run` serves:
//   make run                                  # in the Parlor checkout; serves :8080
//   node examples/bot-match.mjs               # LEVEL=strong, PARLOR_WEB_URL=http://host:8080
// Signs in as a guest, asks matchmaking for a Connect 4x4 table with its other seat filled by
// a bot at once, waits for the match, then watches the game (an async iterable) while playing
// the first legal move on each turn, and prints every move and the result.
import { randomUUID } from "node:crypto";
import { connect4x4, isParlorError, ParlorClient } from "@parlor/client";

const parlor = new ParlorClient({ baseUrl: process.env.PARLOR_WEB_URL ?? "http://localhost:8080" });
const me = await parlor.signInAsGuest("Node bot-match");

// The game types offered, with their seat ranges and bot levels.
const { gameTypes } = await parlor.matchmaking.listGameTypes({});
const type = gameTypes.find((t) => t.name === "connect4x4");
const level = process.env.LEVEL ?? type.botLevels[0];
console.log(`connect4x4: ${type.minPlayers}-${type.maxPlayers} players, bots ${type.botLevels.join(", ")}`);

const { ticket } = await parlor.matchmaking.createTicket({ gameType: "connect4x4", minPlayers: 2, maxPlayers: 2, botsAtOnce: true, botLevel: level });
const match = await parlor.waitForMatch(ticket.ticketId); // matchId is the game's id; seat is mine
const bot = match.seats.find((s) => s.index !== match.seat).playerId;
console.log(`game ${match.matchId}: you (${me.playerId}, seat ${match.seat}) against ${bot}`);

for await (const { event, game } of parlor.watchGame("connect4x4", match.matchId, { waitForGameMs: 10_000 })) {
  if (event?.notation) console.log(`${event.info?.version}: ${event.body.value?.seat === match.seat ? "you" : bot} ${event.notation}`);
  if (!game || game.status === connect4x4.Status.UNSPECIFIED) continue;
  if (game.status !== connect4x4.Status.IN_PROGRESS) {
    const result = game.status === connect4x4.Status.TIED ? "a tie" : game.winner === match.seat ? "you win" : `${bot} wins`;
    console.log(`${result} (${game.endReason}) after ${game.moves} moves`);
    break;
  }
  if (game.turn !== match.seat) continue; // the bot's turn: its move is the next event
  try {
    await parlor.connect4x4.playMove({ gameId: game.gameId, move: game.legalMoves[0], commandId: randomUUID() });
  } catch (e) {
    // a refusal says why (e.status, e.reason, e.metadata): while catching up on older events
    // this picture may not be the game's latest; the watch brings the newer ones
    if (!(isParlorError(e) && e.status === "FAILED_PRECONDITION")) throw e;
    console.log(`refused: ${e.describe()}`);
  }
}
