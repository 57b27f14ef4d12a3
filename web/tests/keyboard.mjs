// Each game played with the keyboard alone (no click after signing in and starting the game,
// whose lobby form is a form), and each board read through Chromium's accessibility tree:
// - Connect 4x4 against a bot to its end: Tab into the front, the arrow keys to a legal
//   column (on to the back past the right edge), Enter to drop; the focus stays on the board
//   across every re-render; the last move is said by the live region.
// - Upwords against the best bot to its end: a word typed onto the board from its first
//   square (as on Woogles), Enter to play it; a tile exchanged from the rack; then passes.
// - Take Four, one round on a tile set of jokers, to its end: a word typed onto the grid,
//   a tile taken back by Delete and typed again, then Done.
import { BASE, main, newPage, report, screenshot, signIn, startAgainstBot, wordFor } from "./browser.mjs";

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
    return { role: el?.getAttribute("role") ?? "", key: el?.dataset?.key ?? "", id: el?.id ?? "", grid: el?.closest("[data-grid]")?.dataset.grid ?? "", toolbar: el?.closest("[data-toolbar]")?.dataset.toolbar ?? "" };
  });

// Tab until the focus is on what `want` accepts (at most `limit` presses).
async function tabTo(page, want, limit = 60) {
  for (let i = 0; i < limit; i++) {
    if (want(await active(page))) return i;
    await page.keyboard.press("Tab");
  }
  throw new Error(`never reached by Tab: ${JSON.stringify(await active(page))}`);
}

const start = (page, game, bot, { keep = false } = {}) => startAgainstBot(page, game, bot, { keyboard: true, keep });

const version = (page) => page.evaluate(() => Number(document.querySelector("#main")?.dataset.version));

async function connect4x4(page) {
  const gameId = await start(page, "connect4x4", "bot:random");
  await page.waitForSelector("[data-grid=c4-f] [role=gridcell]");
  const tabs = await tabTo(page, (a) => a.grid === "c4-f" && a.role === "gridcell");
  const moves = [];
  let focusKept = true;
  for (let turn = 0; turn < 60; turn++) {
    await page.waitForFunction(() => document.querySelector("#main")?.dataset.finished === "true" || document.querySelector(".c4[data-turn=mine]"));
    if ((await page.getAttribute("#main", "data-finished")) === "true") break;
    const legal = await page.locator(".c4[data-turn=mine] button.column.legal").evaluateAll((els) => els.map((e) => e.dataset.move));
    if (!legal.length) continue; // drawn again (a later picture) between the two reads: look again
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

// Tab to the button `id` and press Enter on it (a button the page keeps enabled only while it
// may be used: the focus is walked there, never clicked).
async function pressButton(page, id) {
  await tabTo(page, (a) => a.id === id, 80);
  await page.keyboard.press("Enter");
}

const over = (page) => page.evaluate(() => document.querySelector("#main")?.dataset.finished === "true");

// Upwords to its natural end against the best bot (its fastest game: the bot empties the bag
// by playing, the game ends when a rack is used up with the bag empty, or after a round of
// passes): the first word typed onto the board from 5D (as on Woogles) and played with
// Enter, one tile exchanged from the rack (arrow keys, Enter, the Exchange button), then a
// pass from the keyboard at each turn until the game is over.
async function upwords(page) {
  let gameId = "";
  let word = "";
  for (let attempt = 0; attempt < 10 && !word; attempt++) {
    gameId = await start(page, "upwords", "bot:best");
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
  // on each turn of ours: the first an exchange of the rack's last tile, then passes
  let exchanged = "";
  let passes = 0;
  for (let turn = 0; turn < 200; turn++) {
    await page.waitForFunction(() => document.querySelector("#main")?.dataset.finished === "true" || document.querySelector(".uw[data-turn=mine]"), null, { timeout: 120000 });
    if (await over(page)) break;
    const at = await version(page);
    const bag = Number((await page.textContent("#bag")).replace(/\D+/g, ""));
    if (!exchanged && bag > 0) {
      await tabTo(page, (a) => a.toolbar === "uw-rack", 80);
      await page.keyboard.press("End");
      exchanged = await page.evaluate(() => document.activeElement?.dataset.tile ?? "");
      await page.keyboard.press("Enter"); // picked
      await page.waitForSelector("#rack .tile.chosen");
      await pressButton(page, "uw-exchange");
    } else {
      await pressButton(page, "uw-pass");
      passes++;
    }
    await page.waitForFunction((v) => Number(document.querySelector("#main")?.dataset.version) > v, at);
  }
  await page.waitForSelector("#main[data-finished=true]");
  await page.waitForFunction(() => {
    const d = document.querySelector("#main")?.dataset;
    return Number(d?.streamed) >= Number(d?.version);
  });
  return { gameId, word, placed, focusAfterTyping, square, exchanged, passes, log: await page.locator("#log li").allTextContents(), status: await page.textContent("#status") };
}

// Take Four to its natural end, one round on a tile set of eight jokers (the game's fastest:
// the first deal empties the bag, so the first to finish calls Done, and the round limit of
// one ends the game): a word typed onto the grid as jokers (Shift and its letters), its last
// tile taken back by Delete and typed again, then Done from the keyboard.
const TF_WORD = "WORD";
async function takefour(page) {
  await page.goto(BASE + "/#/");
  await page.waitForSelector("#vs-bots");
  await page.selectOption("#bot-game", "takefour");
  await page.fill("#bot-max-rounds", "1");
  await page.fill("#bot-tiles", "?8");
  const gameId = await start(page, "takefour", "bot:easy", { keep: true });
  await page.waitForSelector("#tf-hand .tile");
  const hand = await page.locator("#tf-hand .tile").evaluateAll((els) => els.map((e) => e.dataset.tile));
  await tabTo(page, (a) => a.grid === "tf-mine" && a.role === "gridcell");
  const at = (await active(page)).key;
  const [x, y] = at.split(",").map(Number);
  const cellIs = (cell, text) => page.waitForFunction(([c, t]) => document.querySelector(`#tf-grid [data-cell="${c}"] .face`)?.textContent === t, [cell, text]);
  for (const [i, letter] of [...TF_WORD].entries()) {
    await page.keyboard.press(`Shift+${letter}`);
    await cellIs(`${x + i},${y}`, letter);
  }
  const typedThen = (await active(page)).key; // stepped on past the word
  const tree = await axTree(page);
  const cellName = tree.find((n) => n.role === "gridcell" && n.name.startsWith(`${x},${y}:`))?.name ?? "";
  // the last tile taken back into the hand, and typed again
  const last = `${x + TF_WORD.length - 1},${y}`;
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("Delete");
  await cellIs(last, "");
  const handAfter = await page.locator("#tf-hand .tile").count();
  await page.keyboard.press(`Shift+${TF_WORD.at(-1)}`);
  await cellIs(last, TF_WORD.at(-1));
  await pressButton(page, "tf-done");
  await page.waitForSelector('.tf[data-phase="over"]');
  await page.waitForFunction(() => {
    const d = document.querySelector("#main")?.dataset;
    return Number(d?.streamed) >= Number(d?.version);
  });
  await screenshot(page, "takefour-keyboard");
  return { gameId, hand, at, typedThen, cellName, handAfter, log: await page.locator("#log li").allTextContents(), status: await page.textContent("#status") };
}

await main(async (browser) => {
  const page = await newPage(browser);
  await signIn(page, "Ada");
  const c4 = await connect4x4(page);
  const uw = await upwords(page);
  const tf = await takefour(page);
  const playerId = await page.evaluate(() => JSON.parse(localStorage.getItem("parlor.session")).playerId);
  report({ c4, uw, tf, playerId });
});
