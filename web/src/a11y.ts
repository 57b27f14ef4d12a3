// What makes a board usable without a mouse or without sight: an ARIA grid with arrow keys (one
// tab stop per grid, the cursor remembered across re-renders), focus kept when a page is drawn
// again, and one polite live region that announces each move.
import { h } from "./dom";

// The cursor of each grid (by its `data-grid` name): where its one tab stop is, kept while the
// page draws the grid again after every change.
const cursors = new Map<string, string>();

export function cursorOf(grid: string): string | undefined {
  return cursors.get(grid);
}

export function setCursor(grid: string, key: string): void {
  cursors.set(grid, key);
}

export function forgetCursors(): void {
  cursors.clear();
}

export interface GridCell {
  key: string; // unique in the grid: restores the cursor and the focus after a re-render
  label: string; // what a screen reader says of it: its coordinates and its contents
  content?: (Node | string | null)[];
  classes?: string[];
  attrs?: Record<string, string | number | boolean | undefined>;
}

export interface GridSpec {
  name: string; // the grid's key among the page's grids (`data-grid`)
  id?: string;
  label: string; // the grid's accessible name
  columnLabels: string[]; // drawn above the columns (the coordinates), in the rules' numbering
  rowLabels: string[]; // drawn left of the rows
  rows: GridCell[][];
  classes?: string;
  // Enter or Space on a cell; `key` another key pressed on it (letters, Backspace…): true when
  // it was handled.
  activate?(cell: GridCell, row: number, col: number): void;
  key?(event: KeyboardEvent, cell: GridCell, row: number, col: number): boolean;
  // Arrow keys at an edge: the grid to jump to (Connect 4x4's other side), if any.
  beyond?(direction: "left" | "right" | "up" | "down", row: number): boolean;
}

// An ARIA grid: a header row of column labels, each row with its row label; every cell a
// focusable gridcell named by its coordinates and contents. One cell is in the tab order (the
// cursor); the arrow keys, Home and End move it.
export function grid(spec: GridSpec): HTMLElement {
  const width = spec.columnLabels.length;
  const keys = spec.rows.flat().map((c) => c.key);
  let cursor = cursorOf(spec.name);
  if (!cursor || !keys.includes(cursor)) cursor = keys[Math.floor(keys.length / 2)] ?? keys[0];
  const header = h(
    "div",
    { role: "row", class: "g-row g-head" },
    h("span", { role: "columnheader", class: "g-corner", "aria-label": "row" }),
    spec.columnLabels.map((l) => h("span", { role: "columnheader", class: "g-label" }, l)),
  );
  const rows = spec.rows.map((cells, r) =>
    h(
      "div",
      { role: "row", class: "g-row" },
      h("span", { role: "rowheader", class: "g-label" }, spec.rowLabels[r]),
      cells.map((cell, c) =>
        h(
          "div",
          {
            role: "gridcell",
            class: ["g-cell", ...(cell.classes ?? [])].join(" "),
            tabindex: cell.key === cursor ? 0 : -1,
            "data-key": cell.key,
            "data-row": r,
            "data-col": c,
            ...cell.attrs,
            onclick: () => {
              setCursor(spec.name, cell.key);
              spec.activate?.(cell, r, c);
            },
            onfocus: () => setCursor(spec.name, cell.key),
          },
          // named by its words (the coordinates first), not by what is drawn: a screen reader
          // says "5E: U, stack of 1" where the eye sees "U" and a small "1"
          h("span", { class: "sr-only" }, cell.label),
          h("span", { class: "face", "aria-hidden": "true" }, ...(cell.content ?? [])),
        ),
      ),
    ),
  );
  const el = h("div", { role: "grid", class: `g ${spec.classes ?? ""}`, "aria-label": spec.label, "data-grid": spec.name, id: spec.id }, header, rows);
  el.style.setProperty("--cols", String(width));
  el.addEventListener("keydown", (e) => {
    const target = (e.target as HTMLElement).closest<HTMLElement>("[role=gridcell]");
    if (!target) return;
    const r = Number(target.dataset.row);
    const c = Number(target.dataset.col);
    const cell = spec.rows[r]?.[c];
    if (!cell) return;
    const move = (nr: number, nc: number) => {
      const next = spec.rows[nr]?.[nc];
      if (!next) return false;
      const nextEl = el.querySelector<HTMLElement>(`[role=gridcell][data-key="${CSS.escape(next.key)}"]`);
      if (!nextEl) return false;
      target.tabIndex = -1;
      nextEl.tabIndex = 0;
      setCursor(spec.name, next.key);
      nextEl.focus();
      return true;
    };
    const edge = (d: "left" | "right" | "up" | "down", nr: number, nc: number) => move(nr, nc) || spec.beyond?.(d, r) || true;
    let handled = true;
    if (e.key === "ArrowLeft") edge("left", r, c - 1);
    else if (e.key === "ArrowRight") edge("right", r, c + 1);
    else if (e.key === "ArrowUp") edge("up", r - 1, c);
    else if (e.key === "ArrowDown") edge("down", r + 1, c);
    else if (e.key === "Home") move(r, 0);
    else if (e.key === "End") move(r, width - 1);
    else if ((e.key === "Enter" || e.key === " ") && spec.activate && !spec.key?.(e, cell, r, c)) spec.activate(cell, r, c);
    else handled = spec.key?.(e, cell, r, c) ?? false;
    if (handled) e.preventDefault();
  });
  return el;
}

// Focus a grid's cursor cell (after a jump from another grid).
export function focusGrid(name: string, row?: number, fromEnd = false): boolean {
  const el = document.querySelector<HTMLElement>(`[data-grid="${CSS.escape(name)}"]`);
  if (!el) return false;
  const rowEls = el.querySelectorAll<HTMLElement>(".g-row:not(.g-head)");
  const rowEl = row !== undefined ? rowEls[row] : undefined;
  const cells = rowEl ? rowEl.querySelectorAll<HTMLElement>("[role=gridcell]") : undefined;
  const target = cells?.length ? cells[fromEnd ? cells.length - 1 : 0] : el.querySelector<HTMLElement>("[role=gridcell][tabindex='0']");
  if (!target) return false;
  el.querySelectorAll<HTMLElement>("[role=gridcell][tabindex='0']").forEach((x) => (x.tabIndex = -1));
  target.tabIndex = 0;
  if (target.dataset.key) setCursor(name, target.dataset.key);
  target.focus();
  return true;
}

// A row of buttons (a rack, a hand) with one tab stop and the arrow keys between them.
export function toolbar(name: string, label: string, buttons: HTMLButtonElement[], attrs: Record<string, string> = {}): HTMLElement {
  const keys = buttons.map((b) => b.dataset.key ?? "");
  let cursor = cursorOf(name);
  if (!cursor || !keys.includes(cursor)) cursor = keys.find((k, i) => !buttons[i].disabled) ?? keys[0];
  buttons.forEach((b) => {
    b.tabIndex = b.dataset.key === cursor ? 0 : -1;
    b.addEventListener("focus", () => setCursor(name, b.dataset.key ?? ""));
  });
  const el = h("div", { role: "toolbar", "aria-label": label, "data-toolbar": name, ...attrs }, buttons);
  el.addEventListener("keydown", (e) => {
    const i = buttons.indexOf(e.target as HTMLButtonElement);
    if (i < 0) return;
    const to = e.key === "ArrowRight" || e.key === "ArrowDown" ? i + 1 : e.key === "ArrowLeft" || e.key === "ArrowUp" ? i - 1 : e.key === "Home" ? 0 : e.key === "End" ? buttons.length - 1 : -2;
    if (to === -2) return;
    e.preventDefault();
    const next = buttons[Math.max(0, Math.min(to, buttons.length - 1))];
    buttons.forEach((b) => (b.tabIndex = -1));
    next.tabIndex = 0;
    next.focus();
  });
  return el;
}

// What has the focus, as a key to find it again in a page drawn anew: a grid's cell, a
// toolbar's button, or an element with an id.
export function focusKey(): string | undefined {
  const el = document.activeElement as HTMLElement | null;
  if (!el || el === document.body) return undefined;
  const holder = el.closest<HTMLElement>("[data-grid],[data-toolbar]");
  if (holder && el.dataset.key) return `${holder.dataset.grid ? "g" : "t"}:${holder.dataset.grid ?? holder.dataset.toolbar}:${el.dataset.key}`;
  return el.id ? `#${el.id}` : undefined;
}

// Focus again what `focusKey` named, if it is on the page and nothing else took the focus.
export function restoreFocus(key: string | undefined): void {
  if (!key) return;
  const active = document.activeElement;
  if (active && active !== document.body && active.isConnected) return;
  let el: HTMLElement | null = null;
  if (key.startsWith("#")) el = document.getElementById(key.slice(1));
  else {
    const [kind, name, ...rest] = key.split(":");
    const cellKey = (kind === "g" ? cursorOf(name) : undefined) ?? rest.join(":");
    const attr = kind === "g" ? "data-grid" : "data-toolbar";
    const holder = document.querySelector(`[${attr}="${CSS.escape(name)}"]`);
    el = holder?.querySelector<HTMLElement>(`[data-key="${CSS.escape(cellKey)}"]`) ?? null;
    if (el && el.tabIndex < 0) {
      holder?.querySelectorAll<HTMLElement>("[tabindex='0']").forEach((x) => (x.tabIndex = -1));
      el.tabIndex = 0;
    }
    // a rack tile that is gone (played): the toolbar's tab stop instead
    el ??= holder?.querySelector<HTMLElement>("[tabindex='0']") ?? null;
  }
  el?.focus({ preventScroll: true });
}

// The page's one announcer (a polite live region, visually hidden): each move, said once.
export function announce(text: string): void {
  const el = document.getElementById("announcer");
  if (!el) return;
  // the same text twice in a row is announced again: changed, not equal
  el.textContent = el.textContent === text ? `${text}\u00a0` : text;
}

// A list of keyboard shortcuts, shown under a board.
export function shortcuts(items: [string, string][]): HTMLElement {
  return h(
    "details",
    { class: "shortcuts", id: "shortcuts" },
    h("summary", {}, "Keyboard shortcuts"),
    h("dl", {}, items.flatMap(([k, what]) => [h("dt", {}, h("kbd", {}, k)), h("dd", {}, what)])),
  );
}
