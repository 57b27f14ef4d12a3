// Shared by the browser tests: Debian's chromium driven by playwright-core (never a
// downloaded browser), one JSON line of results, screenshots into docs/screenshots.
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export const BASE = process.env.PARLOR_WEB_URL ?? "http://127.0.0.1:8080";
const SHOTS = process.env.PARLOR_SCREENSHOTS ?? "";

export async function launch() {
  const executablePath = process.env.CHROMIUM;
  if (!executablePath) throw new Error("CHROMIUM must name the chromium binary");
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

// A page in a new context: a desktop window, or (`phone`) a 390x844 touch screen.
export async function newPage(browser, { phone = false } = {}) {
  const context = await browser.newContext(
    phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, acceptDownloads: true } : { viewport: { width: 1200, height: 900 }, acceptDownloads: true },
  );
  const page = await context.newPage();
  page.setDefaultTimeout(30000);
  page.on("pageerror", (e) => console.error(`page error: ${e}`));
  return page;
}

export async function signIn(page, name) {
  await page.goto(BASE + "/");
  await page.fill("#guest-name", name);
  await page.click("#sign-in button[type=submit]");
  await page.waitForSelector("#vs-bots");
}

// Ada and Bob, two guests, meet in a private Connect 4x4 (or `game`) lobby Ada opens (``beforeOpen``
// may set its form first, ``afterOpen`` sees Ada's page with the code shown) and Bob joins
// by its code; both pages are on the game when it returns, with the invite code.
export async function meetInLobby(browser, { beforeOpen = async () => {}, afterOpen = async () => {}, game = "connect4x4" } = {}) {
  const ada = await newPage(browser);
  const bob = await newPage(browser);
  await signIn(ada, "Ada");
  await signIn(bob, "Bob");
  await ada.selectOption("#mm-game", game);
  await ada.fill("#mm-min", "2");
  await ada.fill("#mm-max", "2");
  await beforeOpen(ada);
  await ada.click("#create-lobby");
  const invite = await (await ada.waitForSelector("#lobby-code")).textContent();
  await afterOpen(ada);
  await bob.fill("#join-code", invite);
  await bob.click("#join-lobby button[type=submit]");
  const played = new RegExp(`#/play/${game}/`);
  await Promise.all([ada.waitForURL(played), bob.waitForURL(played)]);
  return { ada, bob, invite };
}

// A word of 3-5 letters the rack can make (the dictionary's anagrams, as the page's player
// asks them), with no Q and not ending in S; undefined when there is none.
export async function wordFor(page, rack) {
  const words = await page.evaluate(async (tiles) => {
    const token = JSON.parse(localStorage.getItem("parlor.session")).token;
    const r = await fetch("/api/parlor.dictionary.v1.DictionaryService/FindAnagrams", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ tiles, minLength: 3, limit: 500 }),
    });
    return (await r.json()).words ?? [];
  }, rack.map((t) => t.toLowerCase()));
  return words.find((w) => w.length <= 5 && !w.includes("q") && !w.endsWith("s"));
}

// A new game against a bot from the lobby's form, started by a click or (keyboard) by Enter on
// its button; its id once the page is on it.
// `keep`: the lobby's form is already filled in (the game and its configuration).
export async function startAgainstBot(page, game, bot, { keyboard = false, keep = false } = {}) {
  if (!keep) {
    await page.goto(BASE + "/#/");
    await page.waitForSelector("#vs-bots");
    await page.selectOption("#bot-game", game);
  }
  await page.selectOption("#bot-level", bot);
  if (keyboard) {
    await page.focus("#start-bot-game");
    await page.keyboard.press("Enter");
  } else await page.click("#start-bot-game");
  await page.waitForURL(new RegExp(`#/play/${game}/`));
  return decodeURIComponent(page.url().split("/").pop());
}

export async function screenshot(page, name, { fullPage = true } = {}) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });
}

export function report(result) {
  console.log(JSON.stringify(result));
}

export async function main(run) {
  const browser = await launch();
  try {
    await run(browser);
  } catch (e) {
    console.error(e);
    let n = 0;
    for (const context of browser.contexts())
      for (const page of context.pages()) {
        console.error(`page ${page.url()}: notice ${JSON.stringify(await page.textContent("#notice").catch(() => null))}`);
        if (process.env.PARLOR_FAILURE_SHOTS)
          await page.screenshot({ path: join(process.env.PARLOR_FAILURE_SHOTS, `failed-${n++}.png`), fullPage: true }).catch(() => undefined);
      }
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
}
