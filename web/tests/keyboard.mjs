// Each game played with the keyboard alone (no click after signing in and starting the game,
// whose lobby form is a form), and each board read through Chromium's accessibility tree:
// - Connect 4x4 against a bot to its end: Tab into the front, the arrow keys to a legal
//   column (on to the back past the right edge), Enter to drop; the focus stays on the board
//   across every re-render; the last move is said by the live region.
// - Upwords: a word typed onto the board from its first square (as on Woogles), Enter to
//   play it; a pass by the keyboard; then resigned from the keyboard (the dialog accepted).
// - Take Four: a hand tile typed onto the grid, picked up and moved by Enter and the arrows,
//   taken back by Delete; then left from the keyboard.
import { main, newPage, report, screenshot, signIn, startAgainstBot, wordFor } from "./browser.mjs";

// The accessibility tree as Chromium gives it to a screen reader (CDP), not the DOM.
async function axTree(page) {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send("Accessibility.getFullAXTree");
  await cdp.detach();
  return nodes.map((n) => ({
    role: n.role?.value ?? "",
    name: n.name?.value ?? "",
    live: n.properties?.find((p) => p.name === "live")?.value?.value ?? "",
    ignored: n.ignored,
  }));
}

const active = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return { role: el?.getAttribute("role") ?? "", key: el?.dataset?.key ?? "", id: el?.id ?? "", grid: el?.closest("[data-grid]")?.dataset.grid ?? "" };
  });

// Tab until the focus is on what `want` accepts (at most `limit` presses).
async function tabTo(page, want, limit = 60) {
  for (let i = 0; i < limit; i++) {
    if (want(await active(page))) return i;
    await page.keyboard.press("Tab");
  }
  throw new Error(`never reached by Tab: ${JSON.stringify(await active(page))}`);
}

const start = (page, game, bot) => startAgainstBot(page, game, bot, { keyboard: true });

const version = (page) => page.evaluate(() => Number(document.querySelector("#main")?.dataset.version));

async function connect4x4(page) {
  const gameId = await start(page, "connect4x4", "bot:random");
  await page.waitForSelector("[data-grid=c4-f] [role=gridcell]");
  const tabs = await tabTo(page, (a) => a.grid === "c4-f" && a.role === "gridcell");
  const moves = [];
  let focusKept = true;
  for (let turn = 0; turn < 40; turn++) {
    await page.waitForFunction(() => document.querySelector("#main")?.dataset.finished === "true" || document.querySelector(".c4[data-turn=mine]"));
    if ((await page.getAttribute("#main", "data-finished")) === "true") break;
    const legal = await page.locator(".c4[data-turn=mine] button.column.legal").evaluateAll((els) => els.map((e) => e.dataset.move));
    const want = legal[(turn * 3) % legal.length];
    // where the focus is: "<col><row><side>"; walk across (front then back, left to right)
    for (let step = 0; step < 20; step++) {
      const { key } = await active(page);
      const at = "abcdefg".indexOf(key[0]) + (key.endsWith("b") ? 7 : 0);
      const to = "abcdefg".indexOf(want[0]) + (want[1] === "b" ? 7 : 0);
      if (at === to) break;
      await page.keyboard.press(at < to ? "ArrowRight" : "ArrowLeft");
    }
    const before = await version(page);
    await page.keyboard.press("Enter");
    await page.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) > v, before);
    moves.push(want);
    const now = await active(page);
    if (now.role !== "gridcell") focusKept = false;
  }
  await page.waitForFunction(() => {
    const d = document.querySelector("#main")?.dataset;
    return Number(d?.streamed) >= Number(d?.version);
  });
  const log = await page.locator("#log li").allTextContents();
  const tree = await axTree(page);
  const status = await page.textContent("#status");
  await screenshot(page, "connect4x4-keyboard");
  return {
    gameId,
    tabs,
    moves,
    focusKept,
    status,
    log,
    finished: (await page.getAttribute("#main", "data-finished")) === "true",
    grids: tree.filter((n) => n.role === "grid").map((n) => n.name),
    d0: tree.find((n) => n.role === "gridcell" && n.name.startsWith("d0 front:"))?.name ?? "",
    cells: tree.filter((n) => n.role === "gridcell").map((n) => n.name),
    announced: tree.filter((n) => n.live === "polite" && n.name === "" ).length,
    liveText: (await page.textContent("#announcer")).trim(),
    statusLive: tree.find((n) => n.role === "status" && n.name === "")?.live ?? "",
  };
}

async function upwords(page) {
  let gameId = "";
  let word = "";
  for (let attempt = 0; attempt < 10 && !word; attempt++) {
    gameId = await start(page, "upwords", "bot:random");
    await page.waitForSelector("#rack .tile");
    await page.waitForSelector(".uw[data-turn=mine]");
    const rack = await page.locator("#rack .tile").evaluateAll((els) => els.map((e) => e.dataset.tile));
    // the first play of the game (the bot may have moved first: then another game)
    const empty = (await page.locator('#uw-board .uw-sq:not([data-height="0"])').count()) === 0;
    word = empty ? (await wordFor(page, rack)) ?? "" : "";
    if (!word) {
      page.once("dialog", (d) => void d.accept());
      await page.focus("#uw-resign");
      await page.keyboard.press("Enter");
      await page.waitForSelector("#main[data-finished=true]");
    }
  }
  if (!word) throw new Error("no rack with a word in ten games");
  await tabTo(page, (a) => a.grid === "uw-board" && a.role === "gridcell");
  // to 5D: row 4, column 3 ("r,c" keys), then the word typed across over the centre
  for (let step = 0; step < 30; step++) {
    const [r, c] = (await active(page)).key.split(",").map(Number);
    if (r === 4 && c === 3) break;
    await page.keyboard.press(r > 4 ? "ArrowUp" : r < 4 ? "ArrowDown" : c > 3 ? "ArrowLeft" : "ArrowRight");
  }
  for (const letter of word) await page.keyboard.press(letter.toUpperCase());
  const placed = await page.locator(".uw-sq.placed").count();
  const focusAfterTyping = (await active(page)).key;
  const before = await version(page);
  await page.keyboard.press("Enter");
  await page.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) > v, before);
  await page.waitForFunction(() => document.querySelectorAll(".uw-sq.last").length > 0);
  const tree = await axTree(page);
  const square = tree.find((n) => n.role === "gridcell" && n.name.startsWith("5E:"))?.name ?? "";
  await screenshot(page, "upwords-keyboard");
  // the bot's turn, then a pass from the keyboard, then resign
  await page.waitForSelector(".uw[data-turn=mine]", { timeout: 120000 });
  await tabTo(page, (a) => a.id === "uw-pass");
  const passAt = await version(page);
  await page.keyboard.press("Enter");
  await page.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) > v, passAt);
  await page.waitForSelector(".uw[data-turn=mine]", { timeout: 120000 });
  page.once("dialog", (d) => void d.accept());
  await tabTo(page, (a) => a.id === "uw-resign");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#main[data-finished=true]");
  await page.waitForFunction(() => {
    const d = document.querySelector("#main")?.dataset;
    return Number(d?.streamed) >= Number(d?.version);
  });
  return { gameId, word, placed, focusAfterTyping, square, log: await page.locator("#log li").allTextContents(), status: await page.textContent("#status") };
}

async function takefour(page) {
  const gameId = await start(page, "takefour", "bot:easy");
  await page.waitForSelector("#tf-hand .tile");
  const hand = await page.locator("#tf-hand .tile").evaluateAll((els) => els.map((e) => e.dataset.tile));
  const letter = hand.find((t) => t !== "?");
  await tabTo(page, (a) => a.grid === "tf-mine" && a.role === "gridcell");
  const at = (await active(page)).key;
  const [x, y] = at.split(",").map(Number);
  await page.keyboard.press(letter);
  const cellIs = (cell, text) => page.waitForFunction(([c, t]) => document.querySelector(`#tf-grid [data-cell="${c}"] .face`)?.textContent === t, [cell, text]);
  await cellIs(at, letter);
  const typedThen = (await active(page)).key; // stepped on to the right
  const tree = await axTree(page);
  const cellName = tree.find((n) => n.role === "gridcell" && n.name.startsWith(`${x},${y}:`))?.name ?? "";
  // pick it up, one to the right, put it down
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#tf-grid .tf-sq.chosen");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("Enter");
  await cellIs(`${x + 1},${y}`, letter);
  const moved = [await page.textContent(`#tf-grid [data-cell="${x},${y}"] .face`), await page.textContent(`#tf-grid [data-cell="${x + 1},${y}"] .face`)];
  // and back into the hand
  await page.keyboard.press("Delete");
  await cellIs(`${x + 1},${y}`, "");
  const handAfter = await page.locator("#tf-hand .tile").count();
  page.once("dialog", (d) => void d.accept());
  await tabTo(page, (a) => a.id === "tf-leave");
  await page.keyboard.press("Enter");
  await page.waitForSelector('.tf[data-phase="over"]');
  return { gameId, hand, letter, at, typedThen, cellName, moved, handAfter, log: await page.locator("#log li").allTextContents() };
}

await main(async (browser) => {
  const page = await newPage(browser);
  await signIn(page, "Ada");
  const c4 = await connect4x4(page);
  const uw = await upwords(page);
  const tf = await takefour(page);
  report({ c4, uw, tf });
});
