// "Your turn": the lobby's list of the player's games in progress that wait for them, those
// first, earliest deadline first (no clock running: last), as `parlor games --my-turn` lists
// them (libs/cli, parlor.cli.turns), with their count on the page title ("(3) Parlor").
// Each game's view says whose turn it is (seats_to_move, in every game's Game) and when the
// running clocks run out (clocks). The ordering and the title are here without the DOM.
import { millis, type Instant } from "./clock";
import { h, replace } from "./dom";

interface SeatLike {
  index?: number;
  playerId: string;
  displayName: string;
}

// What a game's view holds that this list reads (Take Four's seats are nested in a view).
export interface GameLike {
  gameId: string;
  seats: (SeatLike | { seat?: SeatLike })[];
  seatsToMove: number[];
  clocks?: { seats: { seat: number; running: boolean; deadline?: Instant }[] };
}

export interface Waiting {
  type: string;
  gameId: string;
  myTurn: boolean;
  // The player's deadline when it is their turn, else the game's next one (ms; none: no clock runs).
  deadline: number | undefined;
}

const seatOf = (s: SeatLike | { seat?: SeatLike }): SeatLike | undefined => ("playerId" in s ? s : s.seat);

export function waitingOf(type: string, game: GameLike, me: string): Waiting {
  const mine = new Set(game.seats.flatMap((s, i) => (seatOf(s)?.playerId === me ? [i] : [])));
  const toMove = new Set(game.seatsToMove);
  const myTurn = [...mine].some((i) => toMove.has(i));
  const wanted = myTurn ? [...mine].filter((i) => toMove.has(i)) : [...toMove];
  const deadlines = (game.clocks?.seats ?? [])
    .filter((c) => wanted.includes(c.seat) && c.running && c.deadline)
    .map((c) => millis(c.deadline)!);
  return { type, gameId: game.gameId, myTurn, deadline: deadlines.length ? Math.min(...deadlines) : undefined };
}

// Your turn first, earliest deadline first (none last), then by game id.
export function ordered(games: Waiting[]): Waiting[] {
  const key = (w: Waiting) => w.deadline ?? Number.POSITIVE_INFINITY;
  return [...games].sort((a, b) => Number(b.myTurn) - Number(a.myTurn) || key(a) - key(b) || a.gameId.localeCompare(b.gameId));
}

// The page title with the count of games waiting for the player ("(3) Parlor"; none: as is).
export function titled(title: string, waiting: number): string {
  const bare = title.replace(/^\(\d+\) /, "");
  return waiting > 0 ? `(${waiting}) ${bare}` : bare;
}

// The next game waiting for the player after `current`: their turn, earliest deadline first
// (none last), then by game id; undefined when no other game waits.
export function nextAfter(waiting: Waiting[], current: string): Waiting | undefined {
  return ordered(waiting).find((w) => w.myTurn && w.gameId !== current);
}

// Each listed game as it waits (read with its GetGame; one gone since it was listed, or whose
// service is away, left out).
export async function waitingOfAll(games: Listed[], me: string): Promise<Waiting[]> {
  const read = await Promise.all(
    games.map(async (g) => {
      try {
        const answer = await g.read();
        return answer.game ? [waitingOf(g.type, answer.game, me)] : [];
      } catch {
        return [];
      }
    }),
  );
  return read.flat();
}

// A game of the player's in progress: its type, and how to read its view (GetGame).
export interface Listed {
  type: string;
  label: string;
  gameId: string;
  read(): Promise<{ game?: GameLike }>;
}

// The lobby's "Your turn" card; `update` reads each listed game's view and lists those
// waiting for `me`, in order, and puts their count on the page title.
export function yourTurnCard(): { el: HTMLElement; update(games: Listed[], me: string): Promise<void> } {
  const list = h("ul", { class: "games", id: "your-turn" });
  const el = h("section", { class: "card", id: "your-turn-card" }, h("h3", {}, "Your turn"), list);
  return {
    el,
    async update(games, me) {
      const labels = new Map(games.map((g) => [g.type, g.label]));
      const waiting = ordered(await waitingOfAll(games, me)).filter((w) => w.myTurn);
      document.title = titled(document.title, waiting.length);
      replace(
        list,
        waiting.length
          ? waiting.map((w) =>
              h(
                "li",
                { "data-game": w.gameId },
                h("a", { href: `#/play/${w.type}/${w.gameId}` }, `Play: ${labels.get(w.type) ?? w.type}`),
                w.deadline ? h("span", { class: "hint" }, ` · by ${new Date(w.deadline).toLocaleString()}`) : "",
              ),
            )
          : [h("li", {}, "No game waits for you.")],
      );
    },
  };
}
