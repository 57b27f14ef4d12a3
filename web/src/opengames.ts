// A player's games in progress, without the DOM: who each is played against, and what the
// lobby says when a new game is refused because the player holds too many unfinished ones
// (PARLOR_MAX_OPEN_GAMES_PER_PLAYER of a type, 20 by default: RESOURCE_EXHAUSTED
// TOO_MANY_OPEN_GAMES, its ErrorInfo metadata max_open_games and game_type). Games against
// bots are untimed and never end by themselves, so a player who left some behind has to
// come back to them: the lobby's "Your games in progress" lists them.
import { ApiError } from "./api";

export const TOO_MANY_OPEN_GAMES = "TOO_MANY_OPEN_GAMES";
export const IN_PROGRESS_HEADING = "Your games in progress";

interface SeatLike {
  playerId: string;
  displayName: string;
}

// The game types as the lobby knows them: a label, and how a player ends a game early on its
// page (Resign, or Take Four's Leave: the seat forfeits and the others play on).
export interface KindLike {
  type: string;
  label: string;
  service: { method: Record<string, unknown> };
}

// "random bot", "Bob and random bot", "Bob, Carol and random bot": everyone seated but me.
// `name`: how a player is shown (the page: its handle when it has one).
export function opponents(seats: SeatLike[], me: string, name = (s: SeatLike) => s.displayName || s.playerId): string {
  const names = seats.filter((s) => s.playerId !== me).map(name);
  if (names.length === 0) return "yourself";
  if (names.length === 1) return names[0];
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

export function resigns(kind: KindLike): boolean {
  return "resign" in kind.service.method;
}

export function leaves(kind: KindLike): boolean {
  return !resigns(kind) && "leave" in kind.service.method;
}

// The refusal in a player's words, or undefined when `error` is not that refusal.
export function openGamesRefusal(error: unknown, kinds: readonly KindLike[]): string | undefined {
  if (!(error instanceof ApiError) || error.reason !== TOO_MANY_OPEN_GAMES) return undefined;
  const most = error.metadata["max_open_games"];
  const kind = kinds.find((k) => k.type === error.metadata["game_type"]);
  const games = `${kind ? `${kind.label} ` : ""}game${most === "1" ? "" : "s"}${kind ? "" : " of this type"}`;
  const end = kind && leaves(kind) ? "finish or leave one of them" : kind && !resigns(kind) ? "play one of them to its end" : "finish or resign one of them";
  return (
    `You already have ${most ?? "too many"} ${games} in progress, the most one player may have at once. ` +
    `To start another, open one under “${IN_PROGRESS_HEADING}” below and ${end}.`
  );
}
