// The boards of the web client, one per game that has one (web/src/<game>.ts): the lobby
// offers those of them matchmaking lists, and the play and replay pages draw with them.
// Written from the registry of games by `python -m parlor.devinfra.gamelists`, which
// tests/deploy/test_deploy_gamelists.py checks: not edited by hand.
import { connect4x4 } from "./connect4x4";
import { takefour } from "./takefour";
import { upwords } from "./upwords";

export const BOARDS = [connect4x4, takefour, upwords] as const;
