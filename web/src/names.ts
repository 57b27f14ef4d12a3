// Players by handle. Games and tokens name an account by its player id (its handle stays out
// of game events, which cannot be erased), so the page looks handles up
// (IdentityService.GetPlayers, through @parlor/client's `handles`) and keeps them for as long
// as it is open. A player without one (a guest, a bot, an account that chose none) is shown
// by the seat's display name, else by id.
import { parlor } from "./api";

const handles = new Map<string, string>(); // "" once asked and none

export interface Named {
  playerId: string;
  displayName?: string;
  // Set by the platform on a seat held by a bot, Parlor's own ("bot:<level>") or a bot
  // account's (docs/bots.md): a bot account's name says so.
  bot?: boolean;
}

export function nameOf(p: Named): string {
  const name = handles.get(p.playerId) || p.displayName || p.playerId;
  return p.bot && !p.playerId.startsWith("bot:") ? `${name} (bot)` : name;
}

export function remember(playerId: string, handle: string): void {
  handles.set(playerId, handle);
}

// Ask for the handles of the ids not asked for yet (bots have none); true when a handle was
// found, so what shows these players is drawn again. Each id is asked for once per page.
export async function lookUp(ids: Iterable<string>): Promise<boolean> {
  const wanted = [...new Set(ids)].filter((id) => id && !id.startsWith("bot:") && !handles.has(id));
  if (!wanted.length) return false;
  for (const id of wanted) handles.set(id, "");
  try {
    const found = await parlor.handles(wanted);
    for (const [id, handle] of found) handles.set(id, handle);
    return found.size > 0;
  } catch {
    for (const id of wanted) handles.delete(id); // asked again next time
    return false;
  }
}
