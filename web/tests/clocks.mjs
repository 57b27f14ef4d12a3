// A timed game's clocks: two guests meet in a private lobby (a matched Connect 4x4 game has
// the game type's default time control, 5+3), and each page shows both seats' clocks. The
// clock of the seat to move counts down in the browser, the other stands still; after a move
// they switch. A spectator who opens the game later (by the spectator link its seats are
// offered: a lobby's game is private) counts from the server's moment (its
// GetGame agrees), not from when the stream's old pictures reached it.
import { BASE, main, meetInLobby, newPage, report, screenshot, signIn } from "./browser.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const version = async (page) => Number(await page.getAttribute("#main", "data-version"));

// Every seat's clock as the page shows it now.
const clocksOf = (page) =>
  page.locator(".clock").evaluateAll((els) =>
    els.map((e) => ({
      seat: Number(e.dataset.seat),
      text: e.textContent,
      ms: Number(e.dataset.ms),
      running: e.dataset.running === "true",
      low: e.classList.contains("low"),
      mine: Boolean(e.closest(".seat.me")),
    })),
  );

// The game's clocks from the server, as of this call (GetGame through the bridge, the page's token).
const serverClocks = (page, gameId, invite = "") =>
  page.evaluate(async ([id, invite]) => {
    const { token } = JSON.parse(localStorage.getItem("parlor.session"));
    const r = await fetch("/api/parlor.connect4x4.v1.Connect4x4Service/GetGame", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ gameId: id, invite }),
    });
    const seconds = (d) => (d ? parseFloat(d) : 0); // proto3 JSON Duration: "292.500s"
    const { game } = await r.json();
    return game.clocks.seats.map((s) => ({ seat: s.seat ?? 0, ms: Math.round(seconds(s.remaining) * 1000), running: Boolean(s.running) }));
  }, [gameId, invite]);

// Watch the clocks for a while: what each page showed before and after.
async function watched(pages, ms) {
  const start = Date.now();
  const before = await Promise.all(pages.map(clocksOf));
  await sleep(ms);
  const after = await Promise.all(pages.map(clocksOf));
  const elapsed = Date.now() - start; // at most this long between a page's two readings
  return before.map((b, i) => ({ before: b, after: after[i], elapsed }));
}

await main(async (browser) => {
  const { ada, bob } = await meetInLobby(browser);
  await Promise.all([ada.waitForSelector(".c4 button.column"), bob.waitForSelector(".c4 button.column")]);
  await Promise.all([ada, bob].map((p) => p.waitForFunction(() => document.querySelectorAll(".clock[data-ms]").length === 2)));
  const gameId = decodeURIComponent(ada.url().split("/").pop());
  const timeControl = await ada.textContent("#time-control");
  const first = await watched([ada, bob], 1500);

  // a spectator, a few seconds into the game: its stream starts with the game's first pictures
  await sleep(1500);
  const cy = await newPage(browser);
  await signIn(cy, "Cy");
  // a lobby's game is private: the spectator comes by the link its seats are offered
  const link = await ada.getAttribute("#spectator-link", "href");
  const invite = decodeURIComponent(link.split("/").pop());
  await cy.goto(`${BASE}/${link}`);
  await cy.waitForFunction(() => document.querySelectorAll(".clock[data-ms]").length === 2);
  await sleep(500); // its GetGame answered
  const spectator = { page: await clocksOf(cy), server: await serverClocks(cy, gameId, invite) };

  // the seat to move moves; the clocks switch on both pages
  const pages = [ada, bob];
  const mover = (await ada.locator(".c4[data-turn=mine]").count()) ? 0 : 1;
  const [me, other] = [pages[mover], pages[1 - mover]];
  const before = await version(other);
  await me.locator(".c4[data-turn=mine] button.column.legal").nth(3).click();
  await Promise.all(
    pages.map((p) => p.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) > v, before)),
  );
  await sleep(200);
  const second = await watched([ada, bob, cy], 1500);
  const afterMove = await serverClocks(ada, gameId);
  await screenshot(ada, "clocks");
  report({ gameId, timeControl, mover: mover === 0 ? "Ada" : "Bob", first, spectator, second, afterMove });
});
