// Challenges in the lobby: challenge a player by handle or id to a game with one of the time
// controls it offers (as a ticket's: ListGameTypes), the challenges to and from
// you (accept, decline with a reason, cancel), kept up to date by your own stream
// (ChallengeService.WatchPlayer, resumed after a dropped connection), and a rematch offer
// from a finished game's page. A game made from a challenge opens its page at once.
import { stream, unary, type Stream } from "./api";
import { h, notice, replace } from "./dom";
import { nameOf, type Named } from "./names";
import { describe } from "./play";
import { stored } from "./session";
import { controlLabel } from "./clock";
import { ticketChoices, type Choices } from "./timecontrol";
import { configBytes, configControls } from "./gameconfig";
import type { TimeControl } from "@parlor/client/gen/parlor/common/v1/common_pb";
import {
  ChallengeService,
  DeclineReason,
  NoticeKind,
  SeatChoice,
  type Challenge,
} from "@parlor/client/gen/parlor/challenges/v1/challenges_pb";

export interface GameChoice {
  type: string;
  label: string;
  timeControls?: TimeControl[]; // offered, in the server's order (ListGameTypes)
  defaultTimeControl?: TimeControl;
}

const DECLINES: [DeclineReason, string][] = [
  [DeclineReason.NOT_NOW, "not now"],
  [DeclineReason.TOO_FAST, "too fast"],
  [DeclineReason.TOO_SLOW, "too slow"],
  [DeclineReason.NOT_THIS_GAME, "not this game"],
];

function labelOf(games: GameChoice[], type: string): string {
  return games.find((g) => g.type === type)?.label ?? type;
}

// Challenge a player from wherever their name shows (a game's seats, a leaderboard, the
// lobby's lists): a "challenge" button that opens the lobby's challenge form with them filled
// in (by player id, which the server takes as a handle's). None for a bot or yourself.
const CHALLENGE_EVENT = "parlor:challenge";
let target: string | undefined;

export function challengeButton(player: Named): HTMLElement | null {
  const id = player.playerId;
  if (!id || id.startsWith("bot:") || id === stored()?.playerId) return null;
  return h(
    "button",
    {
      class: "link challenge-player",
      "data-player": id,
      title: `Challenge ${nameOf(player)}`,
      onclick: () => {
        target = id;
        if (location.hash === "#/" || location.hash === "") dispatchEvent(new Event(CHALLENGE_EVENT));
        else location.hash = "#/";
      },
    },
    "challenge",
  );
}

// The lobby's challenges card; `open(type, gameId)` shows a game's page; `yourTurn()` is
// told of each "your turn" notice.
export function inboxCard(
  games: GameChoice[],
  open: (type: string, gameId: string) => void,
  yourTurn: () => void = () => undefined,
): { el: HTMLElement; close(): void } {
  const incomingEl = h("ul", { id: "incoming-challenges" });
  const outgoingEl = h("ul", { id: "outgoing-challenges" });
  const whom = h("input", { id: "challenge-player", placeholder: "handle or player id", maxlength: 128, required: true }) as HTMLInputElement;
  const game = h("select", { id: "challenge-game" }, games.map((g) => h("option", { value: g.type }, g.label))) as HTMLSelectElement;
  // The chosen game's time controls; the one chosen is sent (none: the game's default).
  const clock = h("select", { id: "challenge-time-control" }) as HTMLSelectElement;
  let clocks: Choices | undefined;
  const offerClocks = () => {
    const chosen = games.find((g) => g.type === game.value);
    clocks = chosen && ticketChoices(chosen.timeControls ?? [], chosen.defaultTimeControl);
    replace(clock, (clocks?.choices ?? []).map((c, i) => h("option", { value: String(i) }, c.label)));
    if (clocks) clock.value = String(clocks.selected);
  };
  // who moves first (the seat choice), rated or not, and the game's own configuration
  const seatChoice = h(
    "select",
    { id: "challenge-seat" },
    h("option", { value: String(SeatChoice.RANDOM) }, "random"),
    h("option", { value: String(SeatChoice.FIRST) }, "I move first"),
    h("option", { value: String(SeatChoice.SECOND) }, "they move first"),
  ) as HTMLSelectElement;
  const rated = h("input", { id: "challenge-rated", type: "checkbox" }) as HTMLInputElement;
  const config = configControls("challenge", false);
  game.addEventListener("change", () => {
    offerClocks();
    config.show(game.value);
  });
  offerClocks();
  config.show(game.value);
  const aim = () => {
    if (target === undefined) return;
    whom.value = target;
    target = undefined;
    whom.focus();
  };
  addEventListener(CHALLENGE_EVENT, aim);
  queueMicrotask(aim); // a challenge asked from another page, once the card is shown
  const form = h(
    "form",
    { id: "challenge-form" },
    h("label", {}, "Player ", whom),
    h("label", {}, "Game ", game),
    h("label", {}, "Clock ", clock),
    h("label", {}, "Seats ", seatChoice),
    h("label", { title: "rated games are between signed-in players only" }, rated, " Rated"),
    config.el,
    h("button", { type: "submit", id: "send-challenge" }, "Challenge"),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const timeControl = clocks?.choices[Number(clock.value)]?.control;
    const chosen = config.value();
    if (typeof chosen === "string") return notice(chosen, "error");
    try {
      await unary(ChallengeService, "createChallenge", {
        gameType: game.value,
        invitees: [whom.value.trim()],
        ...(timeControl ? { timeControl } : {}),
        seatChoice: Number(seatChoice.value) as SeatChoice,
        rated: rated.checked,
        config: configBytes(game.value, chosen),
      });
      whom.value = "";
      await refresh();
    } catch (err) {
      notice(describe(err), "error");
    }
  });

  const act = async (run: () => Promise<unknown>) => {
    notice("");
    try {
      await run();
      await refresh();
    } catch (err) {
      notice(describe(err), "error");
    }
  };
  const what = (c: Challenge) => {
    const clockLabel = controlLabel(c.timeControl);
    return `${labelOf(games, c.gameType)}${clockLabel ? ` (${clockLabel})` : ""}${c.config.length ? " (its own rules)" : ""}${c.rematchOf ? " (rematch)" : ""}`;
  };
  const incoming = (c: Challenge) => {
    const reason = h("select", { class: "decline-reason" }, DECLINES.map(([v, t]) => h("option", { value: String(v) }, t))) as HTMLSelectElement;
    return h(
      "li",
      { "data-challenge": c.challengeId },
      `${c.challengerName} challenges you to ${what(c)} `,
      h("button", { class: "accept", onclick: () => act(() => unary(ChallengeService, "acceptChallenge", { challengeId: c.challengeId })) }, "Accept"),
      " ",
      reason,
      h("button", { class: "decline", onclick: () => act(() => unary(ChallengeService, "declineChallenge", { challengeId: c.challengeId, reason: Number(reason.value) as DeclineReason })) }, "Decline"),
    );
  };
  const outgoing = (c: Challenge) =>
    h(
      "li",
      { "data-challenge": c.challengeId },
      `You challenged ${c.inviteeIds.join(", ")} to ${what(c)} `,
      h("button", { class: "cancel", onclick: () => act(() => unary(ChallengeService, "cancelChallenge", { challengeId: c.challengeId })) }, "Cancel"),
    );

  async function refresh(): Promise<void> {
    const listed = await unary(ChallengeService, "listChallenges", {});
    replace(incomingEl, listed.incoming.length ? listed.incoming.map(incoming) : [h("li", {}, "No challenges to you.")]);
    replace(outgoingEl, listed.outgoing.length ? listed.outgoing.map(outgoing) : [h("li", {}, "None.")]);
  }

  // Your stream: the lists again at each change; a game made for you opens. `after` is the
  // last position seen, so a reconnect neither misses nor repeats a change.
  let after = 0n;
  let watch: Stream | undefined;
  let closed = false;
  const follow = () => {
    watch = stream(ChallengeService, "watchPlayer", { after }, {
      message(item) {
        after = item.position;
        const made = item.notices.find((n) => n.kind === NoticeKind.GAME_CREATED && n.challenge?.matchId);
        if (made?.challenge) open(made.challenge.gameType, made.challenge.matchId);
        else void refresh().catch(() => undefined);
        if (item.notices.some((n) => n.kind === NoticeKind.YOUR_TURN)) yourTurn();
      },
      error() {
        if (!closed) setTimeout(() => !closed && follow(), 1000);
      },
    });
  };
  void refresh().catch((err) => notice(describe(err), "error"));
  follow();
  const el = h(
    "section",
    { class: "card", id: "challenges" },
    h("h3", {}, "Challenges"),
    form,
    h("h4", {}, "To you"),
    incomingEl,
    h("h4", {}, "From you"),
    outgoingEl,
  );
  return {
    el,
    close() {
      closed = true;
      removeEventListener(CHALLENGE_EVENT, aim);
      watch?.close();
    },
  };
}

// On a finished game's page: offer its players a rematch (seats rotated). The offer waits
// for them in their challenges; the game it makes opens for everyone when the last accepts.
export function rematchButton(type: string, gameId: string): HTMLElement {
  const button = h("button", { id: "offer-rematch" }, "Offer a rematch") as HTMLButtonElement;
  button.addEventListener("click", async () => {
    try {
      const answer = await unary(ChallengeService, "offerRematch", { gameType: type, gameId });
      const made = answer.challenge;
      if (made?.matchId) location.hash = `#/play/${made.gameType}/${made.matchId}`;
      else {
        button.disabled = true;
        button.textContent = "Rematch offered";
      }
    } catch (err) {
      notice(describe(err), "error");
    }
  });
  return button;
}
