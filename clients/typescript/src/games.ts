// The game services by game type, as matchmaking names the types, and each game's messages
// as a namespace (`upwords.Game`, ...). Written from the registry of games (the
// parlor.game_types entry points) by `python -m parlor.devinfra.gamelists`, which
// tests/deploy/test_deploy_gamelists.py checks: not edited by hand.
import { Connect4x4Service } from "./gen/parlor/connect4x4/v1/connect4x4_pb.js";
import { TakeFourService } from "./gen/parlor/takefour/v1/takefour_pb.js";
import { UpwordsService } from "./gen/parlor/upwords/v1/upwords_pb.js";

export const GAME_SERVICES: {
  readonly connect4x4: typeof Connect4x4Service;
  readonly takefour: typeof TakeFourService;
  readonly upwords: typeof UpwordsService;
} = {
  connect4x4: Connect4x4Service,
  takefour: TakeFourService,
  upwords: UpwordsService,
};

export * as connect4x4 from "./gen/parlor/connect4x4/v1/connect4x4_pb.js";
export * as takefour from "./gen/parlor/takefour/v1/takefour_pb.js";
export * as upwords from "./gen/parlor/upwords/v1/upwords_pb.js";
