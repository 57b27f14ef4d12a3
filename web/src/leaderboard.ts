// The leaderboards: the best established players of each game type, by conservative rating
// (ScoringService.GetLeaderboard; a rating is established after rated games against several
// people), each player shown by handle when they have one.
import type { LeaderboardEntry } from "@parlor/client/gen/parlor/scoring/v1/scoring_pb";
import { ScoringService } from "@parlor/client/gen/parlor/scoring/v1/scoring_pb";
import { ApiError, unary } from "./api";
import { h, replace } from "./dom";
import { challengeButton } from "./inbox";
import { lookUp, nameOf, type Named } from "./names";

export interface Row {
  place: number;
  playerId: string;
  name: string;
  rating: number; // rounded
  games: number;
  record: string; // wins-draws-losses
}

export function rows(entries: LeaderboardEntry[], name: (p: Named) => string): Row[] {
  return entries.flatMap((e) => {
    const r = e.rating;
    if (!r) return [];
    return [{ place: e.place, playerId: r.playerId, name: name({ playerId: r.playerId }), rating: Math.round(r.rating), games: r.games, record: `${r.wins}-${r.draws}-${r.losses}` }];
  });
}

function table(type: string, shown: Row[]): Node {
  if (!shown.length) return h("p", { class: "hint" }, "No established players yet: a rating is established after rated games against several people.");
  return h(
    "table",
    { class: "leaderboard", "data-game-type": type },
    h("tr", {}, ["#", "player", "rating", "games", "won-drawn-lost"].map((c) => h("th", {}, c))),
    shown.map((r) => h("tr", { "data-player": r.playerId }, h("td", {}, r.place), h("td", {}, r.name, " ", challengeButton({ playerId: r.playerId, displayName: r.name })), h("td", {}, r.rating), h("td", {}, r.games), h("td", {}, r.record))),
  );
}

// Every game type's leaderboard, one card each.
export function leaderboardsPage(main: Element, kinds: { type: string; label: string }[]): () => void {
  let left = false;
  const cards = kinds.map((k) => ({ kind: k, el: h("section", { class: "card", id: `leaderboard-${k.type}` }, h("h3", {}, k.label), h("p", {}, "Loading…")) }));
  replace(main, h("h2", {}, "Leaderboards"), cards.map((c) => c.el));
  for (const { kind, el } of cards) {
    void (async () => {
      let body: Node;
      try {
        const { entries } = await unary(ScoringService, "getLeaderboard", { gameType: kind.type, limit: 20 });
        await lookUp(entries.flatMap((e) => (e.rating ? [e.rating.playerId] : [])));
        body = table(kind.type, rows(entries, nameOf));
      } catch (err) {
        const unserved = err instanceof ApiError && err.status === "UNIMPLEMENTED";
        body = h("p", { class: unserved ? "hint" : "error" }, unserved ? "Not rated on this platform." : err instanceof Error ? err.message : String(err));
      }
      if (!left) replace(el, h("h3", {}, kind.label), body);
    })();
  }
  return () => {
    left = true;
  };
}
