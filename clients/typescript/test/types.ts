// Compiled (tsc --noEmit, strict) by `npm test`: what a TypeScript caller gets from the
// package's exports (its .d.ts), through the package's own name as a user imports it.
import { ParlorClient, ParlorError, connect4x4, matchmaking, upwords, type GameUpdate, type StatusName } from "@parlor/client";
import { Status, UpwordsService, type Game } from "@parlor/client/gen/parlor/upwords/v1/upwords_pb";
import { ErrorInfoSchema } from "@parlor/client/gen/google/rpc/error_details_pb";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expect<T extends true>(): T | void {}

export async function typed(parlor: ParlorClient): Promise<void> {
  const created = await parlor.connect4x4.createGame({ seats: [{ index: 0, playerId: parlor.playerId }, { index: 1, playerId: "bot:random" }] });
  expect<Equal<typeof created.game, connect4x4.Game | undefined>>();
  const version: bigint | undefined = created.game?.version;
  void version;
  // @ts-expect-error: a request is checked against its message
  await parlor.connect4x4.playMove({ gameId: "g", move: 3 });
  // @ts-expect-error: no such method
  await parlor.connect4x4.play({});

  for await (const update of parlor.upwords.watchGame({ gameId: "g" })) {
    const game: Game | undefined = update.game;
    expect<Equal<typeof update.game, upwords.Game | undefined>>();
    if (game?.status === Status.ENDED) break;
  }
  for await (const update of parlor.watchGame("takefour", "g")) {
    expect<Equal<typeof update, GameUpdate<"takefour">>>();
  }
  const ticket = await parlor.waitForMatch("t");
  expect<Equal<typeof ticket.status, matchmaking.TicketStatus>>();
  const service = parlor.service(UpwordsService);
  expect<Equal<typeof service, typeof parlor.upwords>>();
  void ErrorInfoSchema;

  try {
    await parlor.takefour.callDone({ gameId: "g" });
  } catch (e) {
    if (e instanceof ParlorError) {
      const status: StatusName = e.status;
      const reason: string = e.reason;
      const metadata: Readonly<Record<string, string>> = e.metadata;
      void [status, reason, metadata];
    }
  }
}
