// A Parlor client in Node.js: plays a whole Connect 4x4 game against a bot and replays it.
//
// Loads the .proto files from protos/ directly (no generated code). Settings from the
// environment: PARLOR_TARGET (host:port, default localhost:50051) and PARLOR_TOKEN (a
// bearer token; `parlor token` prints one). Prints one JSON object per line; exits 1 on
// any failure.
"use strict";

const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTOS = path.resolve(__dirname, "..", "..", "protos");
const TARGET = process.env.PARLOR_TARGET || "localhost:50051";
const TOKEN = process.env.PARLOR_TOKEN;
const BOT = process.env.PARLOR_BOT || "bot:greedy";

function load(file) {
  const definition = protoLoader.loadSync(file, {
    includeDirs: [PROTOS],
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition);
}

function report(step, fields) {
  console.log(JSON.stringify({ step, ...fields }));
}

// The caller's player id is the token's subject (the server verifies the signature).
function subjectOf(token) {
  const payload = token.split(".")[1];
  return JSON.parse(Buffer.from(payload, "base64url").toString("utf8")).sub;
}

// Promise wrappers for unary and server-streaming calls, with the bearer token.
function unary(client, method, request, metadata) {
  return new Promise((resolve, reject) => {
    client[method](request, metadata, { deadline: Date.now() + 15000 }, (err, response) =>
      err ? reject(err) : resolve(response)
    );
  });
}

function collect(client, method, request, metadata) {
  return new Promise((resolve, reject) => {
    const items = [];
    const call = client[method](request, metadata);
    call.on("data", (item) => items.push(item));
    call.on("error", reject);
    call.on("end", () => resolve(items));
  });
}

// Follow a ticket (WatchTicket) until it is matched. A server ends a stream that has sent
// nothing for PARLOR_STREAM_IDLE_SECONDS (60 s) with DEADLINE_EXCEEDED, reason STREAM_IDLE,
// and a ticket may wait that long for its bot (PARLOR_MATCHMAKING_BOT_FILL_SECONDS, also
// 60 s): the stream is then opened again (the call has no deadline of its own).
function watchTicket(mm, ticketId, metadata) {
  return new Promise((resolve, reject) => {
    const open = () => {
      const call = mm.WatchTicket({ ticket_id: ticketId }, metadata);
      let reopened = false; // grpc-js may still emit "end" after the error
      call.on("data", (update) => {
        if (update.ticket.match_id) {
          call.cancel();
          resolve(update.ticket);
        } else if (update.ticket.status !== "TICKET_STATUS_WAITING") {
          reject(new Error(`the ticket is ${update.ticket.status}, not matched`));
        }
      });
      call.on("error", (err) => {
        if (err.code === grpc.status.DEADLINE_EXCEEDED) {
          reopened = true;
          report("watching", { ticket_id: ticketId, reopened: true });
          open();
        } else if (err.code !== grpc.status.CANCELLED) reject(err);
      });
      call.on("end", () => reopened || reject(new Error("the ticket stream ended without a match")));
    };
    open();
  });
}

// Ask matchmaking for a two-player game and follow the ticket until it has a game and a
// seat (matchmaking fills the empty seat with a bot after its wait), then fetch the game,
// which its service creates from the match (retrying while it does not exist yet).
async function requestMatch(mm, c4, metadata) {
  const { ticket } = await unary(
    mm,
    "CreateTicket",
    { game_type: "connect4x4", min_players: 2, max_players: 2 },
    metadata
  );
  const matched = await watchTicket(mm, ticket.ticket_id, metadata);
  report("matched", { match_id: matched.match_id, seat: matched.seat });
  // When the bot holds the first seat, it moves as soon as the game exists: wait for my turn.
  for (let attempt = 0; attempt < 100; attempt += 1) {
    try {
      const { game } = await unary(c4, "GetGame", { game_id: matched.match_id }, metadata);
      if (game.status !== "STATUS_IN_PROGRESS" || game.turn === matched.seat) return game;
    } catch (err) {
      if (err.code !== grpc.status.NOT_FOUND) throw err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the matched game was never created, or never came to my turn");
}

// A simple strategy that is always legal: the first checker drop the server lists as
// legal, else its first legal move (a blocker).
function chooseMove(game) {
  const drops = game.legal_moves.filter((m) => !m.endsWith("x"));
  return drops.length ? drops[0] : game.legal_moves[0];
}

const FINISHED = new Set(["STATUS_WON", "STATUS_TIED"]);

function checkersOn(game) {
  return [...game.front, ...game.back].filter((h) => h.content === "CONTENT_CHECKER").length;
}

async function main() {
  if (!TOKEN) throw new Error("PARLOR_TOKEN is not set (`parlor token` prints one)");
  const pkg = load("parlor/connect4x4/v1/connect4x4.proto");
  const c4 = new pkg.parlor.connect4x4.v1.Connect4x4Service(
    TARGET,
    grpc.credentials.createInsecure()
  );
  const mmPkg = load("parlor/matchmaking/v1/matchmaking.proto");
  const mm = new mmPkg.parlor.matchmaking.v1.MatchmakingService(
    TARGET,
    grpc.credentials.createInsecure()
  );
  const metadata = new grpc.Metadata();
  metadata.add("authorization", `Bearer ${TOKEN}`);
  const me = subjectOf(TOKEN);

  let game = await requestMatch(mm, c4, metadata);
  const gameId = game.game_id;
  report("created", { game_id: gameId, seats: game.seats.map((s) => s.player_id) });

  let moves = 0;
  while (!FINISHED.has(game.status)) {
    if (game.seats[game.turn].player_id !== me) throw new Error("not my turn after the bot");
    const move = chooseMove(game);
    const played = await unary(
      c4,
      "PlayMove",
      { game_id: gameId, move, command_id: `node-${moves}` },
      metadata
    );
    game = played.game;
    moves += 1;
    if (moves > 100) throw new Error("the game did not end");
  }
  report("finished", {
    game_id: gameId,
    status: game.status,
    winner: game.winner,
    end_reason: game.end_reason,
    version: game.version,
    my_moves: moves,
  });

  // Replay: the history, then the game at each version, checked against the events.
  const history = await unary(c4, "GetHistory", { game_id: gameId }, metadata);
  let checkers = 0;
  for (const event of history.events) {
    const at = await unary(c4, "GetGame", { game_id: gameId, version: event.info.version }, metadata);
    if (at.game.version !== event.info.version) throw new Error("GetGame returned another version");
    if (event.body === "checker_dropped") checkers += 1;
    if (checkersOn(at.game) !== checkers) {
      throw new Error(`version ${event.info.version}: ${checkersOn(at.game)} checkers, expected ${checkers}`);
    }
  }
  const last = history.events[history.events.length - 1];
  report("replayed", {
    events: history.events.length,
    first: history.events[0].body,
    last: last.body,
    notation: history.events.filter((e) => e.notation).map((e) => e.notation),
  });

  const stream = await collect(c4, "ReplayGame", { game_id: gameId, pace_ms: 0 }, metadata);
  report("streamed", {
    events: stream.length,
    final_status: stream[stream.length - 1].game.status,
  });
  c4.close();
}

main().catch((err) => {
  report("error", { message: err.message, code: err.code });
  process.exit(1);
});
