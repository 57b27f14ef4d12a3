// A Connect 4x4 game against a bot, from Node.js through @parlor/client and the web gateway
// that `make run` serves:
//   make run                                   # in the Parlor checkout; serves :8080
//   node examples/bot-match.mjs                # or PARLOR_WEB_URL=http://host:8080 BOT=bot:strong
// Signs in as a guest, creates a game with a bot in the other seat, watches it (an async
// iterable) while playing the first legal move each turn, and prints every move and the result.
import { randomUUID } from "node:crypto";
import { connect4x4, isParlorError, ParlorClient } from "@parlor/client";

const parlor = new ParlorClient({ baseUrl: process.env.PARLOR_WEB_URL ?? "http://localhost:8080" });
const me = await parlor.signInAsGuest("Node bot-match");
const bot = process.env.BOT ?? "bot:greedy";

const { game } = await parlor.connect4x4.createGame({
  seats: [
    { index: 0, playerId: me.playerId, displayName: "Node" }, // the caller must sit in the game
    { index: 1, playerId: bot },
  ],
  commandId: randomUUID(), // makes the call safe to send again
});
console.log(`game ${game.gameId}: you (${me.playerId}) against ${bot}`);

for await (const { event, game: now } of parlor.watchGame("connect4x4", game.gameId)) {
  if (event?.notation) console.log(`${event.info?.version}: ${event.body.value?.seat === 0 ? "you" : bot} ${event.notation}`);
  if (!now || now.status !== connect4x4.Status.IN_PROGRESS) {
    if (now && now.status !== connect4x4.Status.UNSPECIFIED) {
      const result = now.status === connect4x4.Status.TIED ? "a tie" : now.winner === 0 ? "you win" : `${bot} wins`;
      console.log(`${result} (${now.endReason}) after ${now.moves} moves`);
      break;
    }
    continue;
  }
  if (now.turn !== 0) continue; // the bot's turn: its move is the next event
  try {
    await parlor.connect4x4.playMove({ gameId: now.gameId, move: now.legalMoves[0], commandId: randomUUID() });
  } catch (e) {
    // a refusal says why (e.status, e.reason, e.metadata): catching up on older events, this
    // picture may not be the game's last one; the watch brings the newer ones
    if (!(isParlorError(e) && e.status === "FAILED_PRECONDITION")) throw e;
    console.log(`refused: ${e.describe()}`);
  }
}
