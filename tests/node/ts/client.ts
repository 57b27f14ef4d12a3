// A TypeScript client of Parlor from generated code only: protos/buf.gen.ts.yaml with
// protoc-gen-es writes ./gen, Connect's gRPC transport speaks to the platform.
// It reads the ErrorInfo of a refused call from grpc-status-details-bin (the vendored
// google/rpc protos), then plays a Connect 4x4 game against a bot to its end.
//   PARLOR_TARGET=127.0.0.1:50051 PARLOR_TOKEN=$(parlor token) node client.js
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import { ErrorInfoSchema } from "./gen/ts/google/rpc/error_details_pb.js";
import {
  Connect4x4Service,
  CreateGameRequestSchema,
  type Game,
  Status,
} from "./gen/ts/parlor/connect4x4/v1/connect4x4_pb.js";

const target = process.env.PARLOR_TARGET ?? "127.0.0.1:50051";
const token = process.env.PARLOR_TOKEN ?? "";
const me = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()).sub as string;

const bearer: Interceptor = (next) => async (req) => {
  req.header.set("authorization", `Bearer ${token}`);
  return next(req);
};
const transport = createGrpcTransport({ baseUrl: `http://${target}`, interceptors: [bearer] });
const games = createClient(Connect4x4Service, transport);

function request(players: string[]): MessageInitShape<typeof CreateGameRequestSchema> {
  return { seats: players.map((playerId, index) => ({ index, playerId, displayName: playerId })) };
}

async function refusedReason(): Promise<string> {
  try {
    await games.createGame(create(CreateGameRequestSchema, request(["someone-else", "bot:random"])));
  } catch (err) {
    const error = ConnectError.from(err);
    const [info] = error.findDetails(ErrorInfoSchema);
    if (error.code !== Code.PermissionDenied || info === undefined) throw error;
    return `${info.domain}/${info.reason}`;
  }
  throw new Error("a game the caller does not sit in was created");
}

async function main(): Promise<void> {
  const refused = await refusedReason();
  let game: Game | undefined = (await games.createGame(request([me, "bot:random"]))).game;
  let moves = 0;
  while (game !== undefined && game.status === Status.IN_PROGRESS) {
    if (game.seats[game.turn]?.playerId === me) {
      const move = game.legalMoves[0];
      game = (await games.playMove({ gameId: game.gameId, move, commandId: `ts-${moves}` })).game;
      moves += 1;
    } else {
      game = (await games.getGame({ gameId: game.gameId })).game;
    }
    if (moves > 100) throw new Error("the game did not end");
  }
  if (game === undefined) throw new Error("no game in the reply");
  console.log(JSON.stringify({ refused, gameId: game.gameId, status: Status[game.status], moves }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
