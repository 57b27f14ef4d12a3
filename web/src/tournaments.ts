// Tournaments (issue 43, parlor.tournaments.v1.TournamentService): the list of upcoming,
// running and finished tournaments with a form to create one (#/tournaments), and a
// tournament's own page (#/tournament/<id>): its settings, entrants and rounds (each table's
// game a link to its page), join and withdraw, for its organiser bots to add and the start,
// and the standings kept live by WatchTournament (the tournament as it is first, then each
// change with the standings after it; a dropped connection asks again from the start, which
// is the resync).
import { stream, unary, type Stream } from "./api";
import { h, notice, replace } from "./dom";
import { describe, gameHref } from "./play";
import { lookUp, nameOf } from "./names";
import {
  Access,
  Format,
  Status,
  TournamentService,
  type Standing,
  type Tournament,
} from "@parlor/client/gen/parlor/tournaments/v1/tournaments_pb";

export interface TournamentGame {
  type: string;
  label: string;
  bots: string[]; // "bot:<level>"
}

const STATUS: Record<number, string> = { [Status.UPCOMING]: "upcoming", [Status.RUNNING]: "running", [Status.FINISHED]: "finished" };
const FORMAT: Record<number, string> = { [Format.ARENA]: "arena", [Format.SWISS]: "Swiss" };

export const tournamentHref = (id: string) => `#/tournament/${encodeURIComponent(id)}`;

const labelOf = (games: TournamentGame[], type: string) => games.find((g) => g.type === type)?.label ?? type;

// The list and the create form.
export function tournamentsPage(root: HTMLElement, games: TournamentGame[]): () => void {
  const lists = { upcoming: h("ul", { class: "games", id: "tournaments-upcoming" }), running: h("ul", { class: "games", id: "tournaments-running" }), finished: h("ul", { class: "games", id: "tournaments-finished" }) };
  const name = h("input", { id: "tn-name", maxlength: 80, required: true, placeholder: "Friday Swiss" }) as HTMLInputElement;
  const format = h("select", { id: "tn-format" }, h("option", { value: String(Format.SWISS) }, "Swiss (rounds)"), h("option", { value: String(Format.ARENA) }, "Arena (a duration)")) as HTMLSelectElement;
  const game = h("select", { id: "tn-game" }, games.map((g) => h("option", { value: g.type }, g.label))) as HTMLSelectElement;
  const players = h("input", { id: "tn-max-players", type: "number", min: 2, max: 1000, value: 16 }) as HTMLInputElement;
  const rounds = h("input", { id: "tn-rounds", type: "number", min: 1, max: 50, value: 3 }) as HTMLInputElement;
  const minutes = h("input", { id: "tn-minutes", type: "number", min: 1, max: 1440, value: 30 }) as HTMLInputElement;
  const invite = h("input", { id: "tn-invite", type: "checkbox" }) as HTMLInputElement;
  const roundsLabel = h("label", {}, "Rounds ", rounds);
  const minutesLabel = h("label", {}, "Minutes ", minutes);
  const shape = () => {
    const swiss = Number(format.value) === Format.SWISS;
    roundsLabel.hidden = !swiss;
    minutesLabel.hidden = swiss;
  };
  format.addEventListener("change", shape);
  shape();
  const form = h(
    "form",
    { class: "card", id: "create-tournament" },
    h("h3", {}, "Create a tournament"),
    h("label", {}, "Name ", name),
    h("label", {}, "Format ", format),
    h("label", {}, "Game ", game),
    h("label", {}, "Players at most ", players),
    roundsLabel,
    minutesLabel,
    h("label", {}, invite, " By invitation code only"),
    h("button", { type: "submit", id: "create-tournament-button" }, "Create"),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const swiss = Number(format.value) === Format.SWISS;
    try {
      const answer = await unary(TournamentService, "createTournament", {
        settings: {
          name: name.value.trim(),
          format: Number(format.value) as Format,
          gameType: game.value,
          maxPlayers: Number(players.value),
          ...(swiss ? { rounds: Number(rounds.value) } : { durationSeconds: Number(minutes.value) * 60 }),
          access: invite.checked ? Access.INVITE : Access.OPEN,
        },
        commandId: crypto.randomUUID(),
      });
      const id = answer.tournament?.tournamentId ?? "";
      if (answer.inviteCode) sessionStorage.setItem(`parlor.tournament.${id}`, answer.inviteCode);
      location.hash = tournamentHref(id);
    } catch (err) {
      notice(describe(err), "error");
    }
  });
  replace(
    root,
    h("h2", {}, "Tournaments"),
    h("div", { class: "lobby" }, form, h("section", { class: "card" }, h("h3", {}, "Upcoming"), lists.upcoming)),
    h("div", { class: "lobby" }, h("section", { class: "card" }, h("h3", {}, "Running"), lists.running), h("section", { class: "card" }, h("h3", {}, "Finished"), lists.finished)),
  );
  void (async () => {
    for (const [status, el] of [[Status.UPCOMING, lists.upcoming], [Status.RUNNING, lists.running], [Status.FINISHED, lists.finished]] as const) {
      try {
        const r = await unary(TournamentService, "listTournaments", { status, pageSize: 50 });
        replace(
          el,
          r.tournaments.length
            ? r.tournaments.map((t) =>
                h("li", { "data-tournament": t.tournamentId }, h("a", { href: tournamentHref(t.tournamentId) }, t.name), ` · ${FORMAT[t.format] ?? ""} ${labelOf(games, t.gameType)} · ${t.entrants}/${t.maxPlayers} players`),
              )
            : [h("li", {}, "None.")],
        );
      } catch (err) {
        replace(el, h("li", { class: "error" }, describe(err)));
      }
    }
  })();
  return () => undefined;
}

function standingsTable(standings: Standing[], me: string, who: (playerId: string) => string): HTMLElement {
  const breaks = standings[0]?.tieBreakNames ?? [];
  return h(
    "table",
    { class: "progress", id: "tn-standings" },
    h("caption", { class: "sr-only" }, "Standings"),
    h("thead", {}, h("tr", {}, ["rank", "player", "points", "games", ...breaks].map((t) => h("th", { scope: "col" }, t)))),
    h(
      "tbody",
      {},
      standings.map((s) =>
        h(
          "tr",
          { "data-player": s.playerId, class: s.playerId === me ? "me" : "" },
          h("td", {}, s.rank),
          h("td", {}, who(s.playerId), s.isBot && !s.playerId.startsWith("bot:") ? " (bot)" : "", s.withdrawn ? " (withdrew)" : "", s.onStreak ? " 🔥" : ""),
          h("td", { class: "points" }, String(s.points)),
          h("td", {}, s.games),
          s.tieBreaks.map((b) => h("td", {}, String(b))),
        ),
      ),
    ),
  );
}

// A tournament's page, live.
// `myName`: the name a guest enters with (an account is named by its handle).
export function tournamentPage(root: HTMLElement, id: string, me: string, games: TournamentGame[], myName = ""): () => void {
  let t: Tournament | undefined;
  let standings: Standing[] = [];
  const titleEl = h("h2", { id: "tn-title" }, "Tournament");
  const infoEl = h("p", { id: "tn-info" });
  const actionsEl = h("div", { class: "actions", id: "tn-actions" });
  const standingsEl = h("section", { class: "card", "aria-live": "polite" });
  const entrantsEl = h("ul", { id: "tn-entrants" });
  const roundsEl = h("div", { id: "tn-rounds" });
  const code = h("input", { id: "tn-code", placeholder: "invitation code", size: 18 }) as HTMLInputElement;
  code.value = sessionStorage.getItem(`parlor.tournament.${id}`) ?? "";
  replace(
    root,
    titleEl,
    infoEl,
    actionsEl,
    h("h3", {}, "Standings"),
    standingsEl,
    h("div", { class: "lobby" }, h("section", { class: "card" }, h("h3", {}, "Entrants"), entrantsEl), h("section", { class: "card" }, h("h3", {}, "Rounds"), roundsEl)),
  );
  const act = async (name: "joinTournament" | "withdrawFromTournament" | "startTournament", extra: Record<string, unknown> = {}) => {
    notice("");
    try {
      await unary(TournamentService, name, { tournamentId: id, ...extra });
    } catch (err) {
      notice(describe(err), "error");
    }
  };
  const draw = () => {
    if (!t) return;
    const s = t.settings;
    const game = games.find((g) => g.type === s?.gameType);
    root.dataset.status = STATUS[t.status] ?? "";
    root.dataset.version = String(t.version);
    titleEl.textContent = s?.name || "Tournament";
    document.title = `${s?.name ?? "Tournament"} · Parlor`;
    const shape = s?.format === Format.SWISS ? `${s.rounds} rounds` : `${Math.round((s?.durationSeconds ?? 0) / 60)} minutes`;
    infoEl.textContent = `${FORMAT[s?.format ?? 0] ?? ""} · ${game?.label ?? s?.gameType ?? ""} · ${shape} · ${STATUS[t.status] ?? ""} · ${t.entrants.length}/${s?.maxPlayers ?? 0} players`;
    const entered = t.entrants.find((e) => e.playerId === me && !e.withdrawn && !e.removed);
    const organiser = t.organiser === me;
    const open = t.status !== Status.FINISHED;
    const bot = h("select", { id: "tn-bot-level" }, (game?.bots ?? []).map((b) => h("option", { value: b.slice(4) }, b.slice(4)))) as HTMLSelectElement;
    replace(
      actionsEl,
      open && !entered ? [s?.access === Access.INVITE ? code : null, h("button", { id: "tn-join", onclick: () => act("joinTournament", { inviteCode: code.value.trim(), displayName: myName }) }, "Join")] : null,
      open && entered ? h("button", { id: "tn-withdraw", onclick: () => act("withdrawFromTournament") }, "Withdraw") : null,
      organiser && open ? [h("label", {}, "Bot ", bot), h("button", { id: "tn-add-bot", onclick: () => act("joinTournament", { botLevel: bot.value }) }, "Add a bot")] : null,
      organiser && t.status === Status.UPCOMING ? h("button", { id: "tn-start", onclick: () => act("startTournament") }, "Start") : null,
    );
    // an entrant by name (a handle, once looked up); Parlor's bots as "random bot 2"
    const who = (p: string) => {
      const bot = /^bot:([^#]+)#(\d+)$/.exec(p);
      return bot ? `${bot[1]} bot ${bot[2]}` : nameOf(t?.entrants.find((e) => e.playerId === p) ?? { playerId: p, displayName: "" });
    };
    replace(standingsEl, standings.length ? standingsTable(standings, me, who) : h("p", {}, "No standings yet."));
    replace(
      entrantsEl,
      t.entrants.length
        ? t.entrants.map((e) => h("li", { "data-player": e.playerId }, who(e.playerId), e.isBot && !e.playerId.startsWith("bot:") ? " (bot)" : "", e.withdrawn ? " (withdrew)" : "", e.paused ? " (paused)" : "", e.removed ? " (removed)" : ""))
        : [h("li", {}, "Nobody yet.")],
    );
    replace(
      roundsEl,
      t.rounds.length
        ? t.rounds.map((r) =>
            h(
              "div",
              { class: "tn-round", "data-round": r.number },
              h("h4", {}, `Round ${r.number}`),
              h(
                "ul",
                {},
                r.tables.map((table) =>
                  h(
                    "li",
                    { "data-game": table.gameId, "data-seats": table.seats.join(" ") },
                    h("a", { href: gameHref("play", s?.gameType ?? "", table.gameId) }, table.seats.map(who).join(" v ")),
                    table.scored ? ` · places ${table.places.join(", ")}` : " · playing",
                  ),
                ),
                r.byes.map((p) => h("li", {}, `${who(p)}: bye`)),
              ),
            ),
          )
        : [h("p", {}, "Not paired yet.")],
    );
  };
  const names = () => t && void lookUp([...t.entrants.map((e) => e.playerId)]).then((found) => found && draw());
  let watch: Stream | undefined;
  let closed = false;
  const follow = () => {
    watch = stream(TournamentService, "watchTournament", { tournamentId: id, after: 0n }, {
      message(item) {
        if (item.current) {
          t = item.current;
          standings = item.current.standings;
          names();
        } else if (item.changes.length) {
          standings = item.standings;
          // the rest (entrants, rounds, status) as the tournament is now
          void unary(TournamentService, "getTournament", { tournamentId: id }).then((r) => {
            if (r.tournament && (!t || r.tournament.version >= t.version)) {
              t = r.tournament;
              standings = r.tournament.standings;
              names();
              draw();
            }
          });
        }
        root.dataset.position = String(item.position);
        draw();
      },
      error(err) {
        notice(describe(err), "error");
        if (!closed) setTimeout(() => !closed && follow(), 2000);
      },
    });
  };
  follow();
  return () => {
    closed = true;
    watch?.close();
  };
}
