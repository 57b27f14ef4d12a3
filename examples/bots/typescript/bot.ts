// A starter bot for Parlor in TypeScript (docs/bots.md): one stream, no polling.
// Code generated from protos/ with protos/buf.gen.ts.yaml (protoc-gen-es) in ./gen; Connect's
// gRPC transport. It exchanges its secret for a bot token, declares Connect 4x4 (offering
// itself to the matchmaker), follows its inbox (WatchPlayer), accepts what reaches it and, on
// each "your turn", reads the game as its seat sees it and plays one of Game.legal_moves. After a restart (UNAVAILABLE) or its
// token's end (UNAUTHENTICATED) it exchanges again and resumes from its last position.
//   PARLOR_TARGET=127.0.0.1:50051 PARLOR_BOT_SECRET=botacct-... node out/bot.js
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import { BotService } from "./gen/ts/parlor/bots/v1/bots_pb.js";
import {
  type Challenge,
  ChallengeService,
  ChallengeStatus,
  NoticeKind,
  type PlayerNotice,
} from "./gen/ts/parlor/challenges/v1/challenges_pb.js";
import { Connect4x4Service } from "./gen/ts/parlor/connect4x4/v1/connect4x4_pb.js";

const target = process.env.PARLOR_TARGET ?? "127.0.0.1:50051";
const secret = process.env.PARLOR_BOT_SECRET ?? "";
const maxGames = Number(process.env.PARLOR_BOT_MAX_GAMES ?? "4");
let token = "";

const bearer: Interceptor = (next) => async (req) => {
  if (token) req.header.set("authorization", `Bearer ${token}`);
  return next(req);
};
const transport = createGrpcTransport({ baseUrl: `http://${target}`, interceptors: [bearer] });
const bots = createClient(BotService, transport);
const inbox = createClient(ChallengeService, transport);
const connect4x4 = createClient(Connect4x4Service, transport);

async function accept(challenge: Challenge | undefined): Promise<void> {
  if (challenge === undefined || challenge.status !== ChallengeStatus.PENDING) return;
  try {
    await inbox.acceptChallenge({ challengeId: challenge.challengeId });
  } catch (err) {
    console.error(`not accepted: ${ConnectError.from(err).message}`); // withdrawn meanwhile
  }
}

async function move(notice: PlayerNotice): Promise<void> {
  if (notice.gameType !== "connect4x4") return;
  const game = (await connect4x4.getGame({ gameId: notice.gameId })).game;
  if (game === undefined || game.version !== notice.gameVersion) return; // a later turn follows
  const pick = game.legalMoves[Math.floor(Math.random() * game.legalMoves.length)];
  if (pick === undefined) return;
  try {
    const commandId = `${notice.gameId}-${game.version}`; // a retried move is made once
    await connect4x4.playMove({ gameId: notice.gameId, move: pick, commandId });
  } catch (err) {
    console.error(`move refused: ${ConnectError.from(err).message}`);
  }
}

async function main(): Promise<void> {
  let position = 0n;
  for (;;) {
    try {
      token = "";
      token = (await bots.exchangeBotSecret({ secret })).accessToken;
      // matchmaking: people and bots asking the matchmaker for a bot opponent may get it
      const accepts = { gameTypes: ["connect4x4"], maxGames, matchmaking: true };
      await bots.declareAccepts({ accepts });
      for await (const message of inbox.watchPlayer({ after: position })) {
        for (const challenge of message.current) await accept(challenge);
        for (const notice of message.notices) {
          if (notice.kind === NoticeKind.CHALLENGE_ISSUED) await accept(notice.challenge);
          else if (notice.kind === NoticeKind.YOUR_TURN) await move(notice);
        }
        position = message.position;
        console.log(JSON.stringify({ position: position.toString() }));
      }
    } catch (err) {
      const code = ConnectError.from(err).code;
      // a restart (UNAVAILABLE, or CANCELLED: a stopping server cancels its streams), or
      // the token's end (UNAUTHENTICATED): exchange again and resume
      if (code !== Code.Unavailable && code !== Code.Canceled && code !== Code.Unauthenticated) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
