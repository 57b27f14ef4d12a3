// @parlor/client: the message types of every Parlor service and a client over the web gateway.
//
//   import { ParlorClient, connect4x4 } from "@parlor/client";
//   const parlor = new ParlorClient({ baseUrl: "http://localhost:8080" });
//   const { playerId } = await parlor.signInAsGuest("Ada");
//
// Each proto package's messages, enums and service descriptor are a namespace here
// (`connect4x4.Status`, `upwords.Game`, ...) and a module of their own
// (`@parlor/client/gen/parlor/connect4x4/v1/connect4x4_pb`), generated from protos/.
export * from "./client.js";
export * from "./errors.js";
export * from "./games.js"; // GAME_SERVICES and each game's namespace (connect4x4, upwords, ...)
export * from "./token.js";
export { Transport, readEvents, type CallOptions, type StreamOptions, type TransportOptions } from "./transport.js";

export * as common from "./gen/parlor/common/v1/common_pb.js";
export * as dictionary from "./gen/parlor/dictionary/v1/dictionary_pb.js";
export * as identity from "./gen/parlor/identity/v1/identity_pb.js";
export * as matchmaking from "./gen/parlor/matchmaking/v1/matchmaking_pb.js";
export * as matchmakingEvents from "./gen/parlor/matchmaking/v1/events_pb.js";
export * as scoring from "./gen/parlor/scoring/v1/scoring_pb.js";
export * as chat from "./gen/parlor/chat/v1/chat_pb.js";
export * as tournaments from "./gen/parlor/tournaments/v1/tournaments_pb.js";
export * as rpc from "./rpc.js";

// what a caller needs of @bufbuild/protobuf to build and print messages
export { create, fromBinary, fromJson, toBinary, toJson, type JsonValue, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
export type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
