// The rooms beside a game's board (docs/chat.md): a seat sees its game's players' room while it
// plays, a spectator the spectators' room (kibitz); once the game has ended its seats see the
// kibitz too. Messages are text, shown as text (never as markup); presets for those who prefer
// not to type. Every rule is the server's: a room the viewer may not read is refused there.
import { ChatService, Preset, RoomKind, type WatchRoomResponse } from "@parlor/client/gen/parlor/chat/v1/chat_pb";
import { stream, unary, type Stream } from "./api";
import { h, replace } from "./dom";
import { describe } from "./play";

const PRESETS: [Preset, string][] = [
  [Preset.GOOD_LUCK, "Good luck"],
  [Preset.GOOD_GAME, "Good game"],
  [Preset.THANKS, "Thanks"],
];

interface Room {
  kind: RoomKind;
  el: HTMLOListElement;
  watch?: Stream;
}

export interface ChatPanel {
  el: HTMLElement;
  // Called at each drawing: whether the viewer sits in the game, and whether it has ended.
  update(seated: boolean, finished: boolean): void;
  close(): void;
}

export function chatPanel(gameType: string, gameId: string, invite: string): ChatPanel {
  const rooms = new Map<RoomKind, Room>();
  const logs = h("div", { class: "chat-rooms" });
  const status = h("p", { class: "chat-status", id: "chat-status" });
  let writeTo: RoomKind | undefined;
  const text = h("input", { id: "chat-text", maxlength: 300, placeholder: "Say something", "aria-label": "Message" });
  const say = (init: { text?: string; preset?: Preset }): void => {
    if (writeTo === undefined) return;
    const room = { kind: writeTo, gameType, gameId, invite };
    unary(ChatService, "postMessage", { room, ...init, commandId: crypto.randomUUID() }).then(
      () => { status.textContent = ""; },
      (e) => { status.textContent = describe(e); },
    );
  };
  const form = h(
    "form",
    {
      id: "chat-form",
      onsubmit: (e: Event) => {
        e.preventDefault();
        if (text.value.trim()) say({ text: text.value });
        text.value = "";
      },
    },
    text,
    h("button", { type: "submit" }, "Send"),
    ...PRESETS.map(([preset, label]) => h("button", { type: "button", class: "chat-preset", onclick: () => say({ preset }) }, label)),
  );
  const el = h("section", { class: "chat", id: "chat", "aria-label": "Chat" }, h("h3", {}, "Chat"), logs, form, status);

  function open(kind: RoomKind, title: string): void {
    if (rooms.has(kind)) return;
    const log = h("ol", { class: "chat-log", id: kind === RoomKind.PLAYERS ? "chat-players" : "chat-spectators", "aria-live": "polite" });
    const room: Room = { kind, el: log };
    rooms.set(kind, room);
    logs.append(h("h4", {}, title), log);
    room.watch = stream(ChatService, "watchRoom", { room: { kind, gameType, gameId, invite }, afterVersion: 0n }, {
      message(item: WatchRoomResponse) {
        if (item.item.case === "message") {
          const m = item.item.value;
          const li = h("li", { "data-id": m.messageId }, h("b", {}, m.author), ": ", m.deleted ? "(deleted)" : m.text);
          log.append(li);
        } else if (item.item.case === "deleted") {
          const gone = item.item.value.messageId;
          for (const li of log.querySelectorAll("li")) if (li.dataset.id === gone) li.textContent = "(deleted)";
        }
      },
      error(e) {
        status.textContent = describe(e);
      },
    });
  }

  return {
    el,
    update(seated, finished) {
      if (seated) {
        open(RoomKind.PLAYERS, "Players");
        if (finished) open(RoomKind.SPECTATORS, "Spectators");
      } else {
        open(RoomKind.SPECTATORS, "Spectators");
        open(RoomKind.PLAYERS, "Players");
      }
      writeTo = seated ? RoomKind.PLAYERS : RoomKind.SPECTATORS;
    },
    close() {
      for (const room of rooms.values()) room.watch?.close();
      replace(logs);
    },
  };
}
