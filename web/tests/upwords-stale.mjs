// Upwords in challenge mode: an Accept the server refuses PLAY_CHANGED (it names another play
// than the one pending, as when the screen is behind) shows the refusal, and the page fetches
// the game (GetGame) and draws it as the server has it; the play pending now is then accepted.
// The first Accept's `play` is rewritten on its way out (one more than the page named), which
// is what a screen showing another play would send.
import { BASE, main, newPage, report, screenshot, signIn } from "./browser.mjs";

await main(async (browser) => {
  const page = await newPage(browser);
  await signIn(page, "Ada");
  await page.goto(BASE + "/#/");
  await page.waitForSelector("#vs-bots");
  await page.selectOption("#bot-game", "upwords");
  await page.selectOption("#bot-level", "bot:random");
  await page.check("#bot-challenge-mode");
  await page.click("#start-bot-game");
  await page.waitForURL(/#\/play\/upwords\//);
  await page.waitForSelector("#uw-board");
  const gameId = decodeURIComponent(page.url().split("/").pop());

  // Ada passes until the bot's play awaits her answer.
  for (let i = 0; i < 20; i++) {
    if ((await page.locator("#uw-accept:not([disabled])").count()) === 1) break;
    if ((await page.locator("#uw-pass:not([disabled])").count()) === 1) await page.click("#uw-pass");
    await page.waitForTimeout(300);
  }
  await page.waitForSelector("#uw-accept:not([disabled])");

  const traffic = [];
  page.on("request", (r) => {
    const method = r.url().split("/").pop();
    if (method === "GetGame" || method === "AcceptPlay") traffic.push({ method, kind: "request" });
  });
  page.on("response", async (r) => {
    const method = r.url().split("/").pop();
    if (method !== "GetGame" && method !== "AcceptPlay") return;
    const entry = { method, kind: "response", status: r.status(), body: "" }; // in arrival order
    traffic.push(entry);
    entry.body = await r.text().catch(() => "");
  });
  let sent = {};
  let tampered = false;
  await page.route("**/AcceptPlay", async (route) => {
    const body = JSON.parse(route.request().postData() ?? "{}");
    sent = body;
    if (tampered) return route.continue();
    tampered = true;
    await route.continue({ postData: JSON.stringify({ ...body, play: Number(body.play) + 1 }) });
  });

  await page.click("#uw-accept");
  await page.waitForSelector("#notice.error");
  const refusal = await page.textContent("#notice");
  // the game fetched after the refusal, and the page drawn at its version
  for (let i = 0; i < 50 && !traffic.some((t) => t.method === "GetGame" && t.kind === "response" && t.body); i++) await page.waitForTimeout(100);
  const refetched = traffic.find((t) => t.method === "GetGame" && t.kind === "response");
  const versionAfterRefusal = Number(await page.getAttribute("#main", "data-version"));
  const pendingPlay = Number(sent.play);
  await screenshot(page, "upwords-play-changed");

  // The play pending now, as drawn: accepted.
  await page.waitForSelector("#uw-accept:not([disabled])");
  await page.click("#uw-accept");
  await page.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) > v, versionAfterRefusal);
  const answered = () => traffic.filter((t) => t.method === "AcceptPlay" && t.kind === "response").length;
  for (let i = 0; i < 50 && answered() < 2; i++) await page.waitForTimeout(100);
  const token = await page.evaluate(() => JSON.parse(localStorage.getItem("parlor.session")).token);
  report({
    gameId,
    token,
    refusal,
    pendingPlay,
    secondPlay: Number(sent.play),
    order: traffic.map((t) => `${t.method} ${t.kind}${t.status ? ` ${t.status}` : ""}`),
    refetched: refetched ? JSON.parse(refetched.body) : null,
    versionAfterRefusal,
    notice: await page.textContent("#notice"),
  });
});
