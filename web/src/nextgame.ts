// "Next game" on a game's page, for a player with many games at once (correspondence, as
// lichess does): a button and Alt+N go to the next game waiting for their move, their turn
// first and the earliest deadline first (the lobby's "Your turn" order, src/yourturn.ts);
// and, if they tick it (kept in this browser), the page goes there by itself after each of
// their moves in a game that goes on (not after a command of a game played all at once, as
// Take Four's; and nowhere when no other game waits).
import { h, notice } from "./dom";
import { announce } from "./a11y";
import type { Waiting } from "./yourturn";

const KEPT = "parlor.nextAfterMove";

export interface NextGame {
  el: HTMLElement;
  // After an accepted move: whether it finished the game.
  moved(finished: boolean): void;
  close(): void;
}

// `find` names the next game waiting after this one (undefined: none); `open` shows it.
export function nextGame(find: () => Promise<Waiting | undefined>, open: (w: Waiting) => void): NextGame {
  let going = false;
  const go = async (quiet: boolean) => {
    if (going) return;
    going = true;
    try {
      const next = await find();
      if (next) open(next);
      else if (!quiet) {
        notice("No other game waits for your move.");
        announce("No other game waits for your move.");
      }
    } catch {
      if (!quiet) notice("The games waiting for you could not be read now.", "error");
    } finally {
      going = false;
    }
  };
  const button = h(
    "button",
    { id: "next-game", title: "the next game waiting for your move, earliest deadline first (Alt+N)", "aria-keyshortcuts": "Alt+N", onclick: () => void go(false) },
    "Next game",
  );
  const after = h("input", { id: "next-after-move", type: "checkbox", checked: localStorage.getItem(KEPT) === "true" }) as HTMLInputElement;
  after.addEventListener("change", () => localStorage.setItem(KEPT, String(after.checked)));
  const el = h("p", { class: "next-game" }, button, " ", h("label", {}, after, " After my move, go to the next game waiting for me"));
  const key = (e: KeyboardEvent) => {
    if (e.altKey && !e.ctrlKey && !e.metaKey && e.code === "KeyN") {
      e.preventDefault();
      void go(false);
    }
  };
  addEventListener("keydown", key);
  return {
    el,
    moved(finished) {
      if (after.checked && !finished) void go(true);
    },
    close: () => removeEventListener("keydown", key),
  };
}
