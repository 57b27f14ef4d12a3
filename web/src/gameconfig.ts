// A game's configuration, chosen in the lobby: the fields of the game type's own Config
// message (as its CreateGame takes it; a challenge carries it serialized, checked by the
// server when the challenge is made: BAD_CONFIG, or the game's own reason). Each game type's
// controls, with the rules' defaults shown and sent as "unset" (the server's default) when
// left as they are:
// - Connect 4x4: who moves first (a game against bots; a challenge's seat choice does that
//   there), and whether blockers count toward a line (docs/rules/connect4x4.md).
// - Upwords: challenge mode (plays unchecked until challenged) and the plural-S rule.
// - Take Four: checking (honor or auto), the target, a round limit, tiles per deal and the
//   tile set, written as the rules write it ("A9 B2 ... ?4": a letter and its count, ? the
//   jokers), each letter worth its value in the platform's set.
// The parsing and the messages are here without the DOM; `configControls` draws them.
import { create, toBinary } from "@parlor/client";
import { ConfigSchema as C4Config } from "@parlor/client/gen/parlor/connect4x4/v1/connect4x4_pb";
import { ConfigSchema as UpwordsConfig, WordChecking } from "@parlor/client/gen/parlor/upwords/v1/upwords_pb";
import { Checking, ConfigSchema as TakeFourConfig } from "@parlor/client/gen/parlor/takefour/v1/takefour_pb";
import { h } from "./dom";

// The platform's Take Four tile values (RULES.md, "Take Four"), given to the letters of a
// tile set written in the lobby; the server keeps what it is sent.
const VALUES: Record<string, number> = Object.fromEntries(
  (
    [
      ["AEILNORSTU", 1],
      ["DG", 2],
      ["BCMP", 3],
      ["FHVWY", 4],
      ["K", 5],
      ["JX", 8],
      ["QZ", 10],
    ] as [string, number][]
  ).flatMap(([letters, value]) => [...letters].map((l) => [l, value])),
);

export interface TileSetInit {
  letters: { letter: string; count: number; value: number }[];
  jokers: number;
}

// "A2 E3 T2 ?2" as a tile set (letters A-Z each once, ? the jokers); empty text: undefined
// (the platform's 100 tiles). A string says what is wrong.
export function parseTiles(text: string): TileSetInit | undefined | string {
  const parts = text.trim().toUpperCase().split(/[\s,]+/).filter(Boolean);
  if (!parts.length) return undefined;
  const letters: TileSetInit["letters"] = [];
  let jokers = 0;
  for (const part of parts) {
    const m = /^([A-Z?])(\d{1,3})$/.exec(part);
    if (!m) return `"${part}" is not a letter and a count (such as E3, or ?2 for two jokers)`;
    const count = Number(m[2]);
    if (m[1] === "?") jokers += count;
    else if (letters.some((l) => l.letter === m[1])) return `${m[1]} is written twice`;
    else letters.push({ letter: m[1], count, value: VALUES[m[1]] });
  }
  return { letters, jokers };
}

// What a control holds: its value as read from the form.
export interface Fields {
  firstSeat?: number;
  blockersCount?: boolean;
  challengeMode?: boolean;
  pluralRule?: boolean;
  checking?: "honor" | "auto";
  target?: number;
  maxRounds?: number;
  dealSize?: number;
  tiles?: string;
}

// The game type's Config, as CreateGame's `config` (undefined: every field left as the
// game's default, nothing to send); a string says what is wrong.
export function configInit(type: string, f: Fields): Record<string, unknown> | undefined | string {
  const set: Record<string, unknown> = {};
  if (type === "connect4x4") {
    if (f.firstSeat) set.firstSeat = f.firstSeat;
    if (f.blockersCount) set.blockersCountTowardLines = true;
  } else if (type === "upwords") {
    if (f.challengeMode) set.wordChecking = WordChecking.CHALLENGE;
    if (f.pluralRule === false) set.pluralRule = false;
  } else if (type === "takefour") {
    if (f.checking === "auto") set.checking = Checking.AUTO;
    for (const [name, value, most] of [
      ["target", f.target, 1_000_000],
      ["maxRounds", f.maxRounds, 1000],
      ["dealSize", f.dealSize, 100],
    ] as [string, number | undefined, number][]) {
      if (value === undefined || value === 0) continue;
      if (!Number.isInteger(value) || value < 0 || value > most) return `${name} is a whole number from 0 to ${most}`;
      set[name] = value;
    }
    const tiles = parseTiles(f.tiles ?? "");
    if (typeof tiles === "string") return tiles;
    if (tiles) set.tiles = tiles;
  }
  return Object.keys(set).length ? set : undefined;
}

// The Config serialized, as a challenge carries it (empty: the game's defaults).
export function configBytes(type: string, init: Record<string, unknown> | undefined): Uint8Array {
  if (!init) return new Uint8Array();
  if (type === "connect4x4") return toBinary(C4Config, create(C4Config, init));
  if (type === "upwords") return toBinary(UpwordsConfig, create(UpwordsConfig, init));
  if (type === "takefour") return toBinary(TakeFourConfig, create(TakeFourConfig, init));
  return new Uint8Array();
}

export interface ConfigControls {
  el: HTMLElement;
  // The chosen game's Config (undefined: the defaults), or what is wrong.
  value(): Record<string, unknown> | undefined | string;
  // Show the controls of another game type (and, for Connect 4x4's first mover, how many seats).
  show(type: string, seats?: number): void;
}

// The controls of each game type's configuration, ids `<prefix>-<field>`; only the chosen
// game's are shown.
export function configControls(prefix: string, withFirstSeat = true): ConfigControls {
  const id = (name: string) => `${prefix}-${name}`;
  const num = (name: string, max: number, hint: string) =>
    h("input", { id: id(name), type: "number", min: 0, max, value: 0, inputmode: "numeric", title: hint, "aria-describedby": id(`${name}-hint`) }) as HTMLInputElement;
  const firstSeat = h("select", { id: id("first-seat") }) as HTMLSelectElement;
  const blockers = h("input", { id: id("blockers-count"), type: "checkbox" }) as HTMLInputElement;
  const challengeMode = h("input", { id: id("challenge-mode"), type: "checkbox" }) as HTMLInputElement;
  const plural = h("input", { id: id("plural-rule"), type: "checkbox", checked: true }) as HTMLInputElement;
  const checking = h("select", { id: id("checking") }, h("option", { value: "honor" }, "honor (checked at Done)"), h("option", { value: "auto" }, "auto (calls checked)")) as HTMLSelectElement;
  const target = num("target", 1_000_000, "the total that ends the game (0: 100)");
  const rounds = num("max-rounds", 1000, "the most rounds (0: no limit)");
  const deal = num("deal-size", 100, "tiles per deal (0: 4)");
  const tiles = h("input", { id: id("tiles"), placeholder: "A9 B2 … ?4 (empty: the 100 tiles)", size: 24, "aria-describedby": id("tiles-hint") }) as HTMLInputElement;
  const hint = (name: string, text: string) => h("span", { class: "hint", id: id(`${name}-hint`) }, text);
  const groups: Record<string, HTMLElement> = {
    connect4x4: h(
      "fieldset",
      { class: "config", "data-game": "connect4x4" },
      h("legend", {}, "Connect 4x4 rules"),
      withFirstSeat ? h("label", {}, "First to move ", firstSeat) : null,
      h("label", { title: "the rulebook counts checkers only" }, blockers, " Blockers count toward a line"),
    ),
    upwords: h(
      "fieldset",
      { class: "config", "data-game": "upwords" },
      h("legend", {}, "Upwords rules"),
      h("label", {}, challengeMode, " Challenge mode (plays are not checked until challenged)"),
      h("label", { title: "a play may not simply add an S to a word" }, plural, " Plural rule"),
    ),
    takefour: h(
      "fieldset",
      { class: "config", "data-game": "takefour" },
      h("legend", {}, "Take Four rules"),
      h("label", {}, "Checking ", checking),
      h("label", {}, "Target ", target, " ", hint("target", "0: 100")),
      h("label", {}, "Rounds ", rounds, " ", hint("max-rounds", "0: no limit")),
      h("label", {}, "Tiles per deal ", deal, " ", hint("deal-size", "0: 4")),
      h("label", {}, "Tile set ", tiles, " ", hint("tiles", "a letter and its count, ? for jokers")),
    ),
  };
  const el = h("div", { class: "configs", id: id("config") }, Object.values(groups));
  let type = "";
  const n = (input: HTMLInputElement) => (input.value.trim() === "" ? 0 : Number(input.value));
  return {
    el,
    show(next, seats = 2) {
      type = next;
      for (const [game, group] of Object.entries(groups)) group.hidden = game !== next;
      const chosen = firstSeat.value;
      firstSeat.replaceChildren(...Array.from({ length: seats }, (_, i) => h("option", { value: String(i) }, i === 0 ? "you (seat 1)" : `seat ${i + 1}`)));
      if (Number(chosen) < seats) firstSeat.value = chosen;
    },
    value: () =>
      configInit(type, {
        firstSeat: withFirstSeat ? Number(firstSeat.value) || 0 : 0,
        blockersCount: blockers.checked,
        challengeMode: challengeMode.checked,
        pluralRule: plural.checked,
        checking: checking.value as "honor" | "auto",
        target: n(target),
        maxRounds: n(rounds),
        dealSize: n(deal),
        tiles: tiles.value,
      }),
  };
}
