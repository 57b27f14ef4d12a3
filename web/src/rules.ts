// Each game's rules, in place: the page of docs/rules/<game>.md (copied beside the page by
// the build, so the rules shown are the ones the engine's tests name), read when a player
// opens "Rules of <game>" under the board, and drawn from its Markdown: headings, paragraphs,
// lists, tables, `code`, **bold**, *emphasis* and links (a link into the repository is shown
// as its text). Built with DOM nodes and text only: nothing in the file is read as HTML.
import { h } from "./dom";

export type Inline = { kind: "text" | "code" | "strong" | "em"; text: string } | { kind: "link"; text: string; href: string };
export type Block =
  | { kind: "heading"; level: number; text: Inline[] }
  | { kind: "paragraph"; text: Inline[] }
  | { kind: "list"; ordered: boolean; items: Inline[][] }
  | { kind: "table"; head: Inline[][]; rows: Inline[][][] };

const INLINE = /(`[^`]+`|\*\*[^*]+\*\*|\[[^\]]+\]\([^)\s]+\)|\*[^*\s][^*]*\*|_[^_\s][^_]*_)/g;

export function inline(text: string): Inline[] {
  const out: Inline[] = [];
  let at = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > at) out.push({ kind: "text", text: text.slice(at, m.index) });
    const t = m[0];
    if (t.startsWith("`")) out.push({ kind: "code", text: t.slice(1, -1) });
    else if (t.startsWith("**")) out.push({ kind: "strong", text: t.slice(2, -2) });
    else if (t.startsWith("[")) {
      const [, label, href] = /^\[([^\]]+)\]\(([^)]+)\)$/.exec(t)!;
      const inner = label.replace(/^`|`$/g, "");
      out.push(/^https?:\/\//.test(href) ? { kind: "link", text: inner, href } : { kind: label.startsWith("`") ? "code" : "text", text: inner });
    } else out.push({ kind: "em", text: t.slice(1, -1) });
    at = m.index + t.length;
  }
  if (at < text.length) out.push({ kind: "text", text: text.slice(at) });
  return out;
}

const cells = (line: string) => line.trim().replace(/^\||\|$/g, "").split("|").map((c) => inline(c.trim()));

// The blocks of a Markdown page (the subset the rules pages use).
export function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i++;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      out.push({ kind: "heading", level: heading[1].length, text: inline(heading[2]) });
      i++;
    } else if (line.startsWith("|")) {
      const rows: string[] = [];
      while (i < lines.length && lines[i].startsWith("|")) rows.push(lines[i++]);
      const body = rows.slice(1).filter((r) => !/^\|[\s|:-]+\|?$/.test(r));
      out.push({ kind: "table", head: cells(rows[0]), rows: body.map(cells) });
    } else if (/^(\s*)([-*]|\d+\.)\s+/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items: string[] = [];
      while (i < lines.length && lines[i].trim()) {
        const item = /^\s*(?:[-*]|\d+\.)\s+(.*)$/.exec(lines[i]);
        if (item && !/^\s{4,}/.test(lines[i])) items.push(item[1]);
        else items[items.length - 1] += ` ${lines[i].trim()}`; // a continuation line
        i++;
      }
      out.push({ kind: "list", ordered, items: items.map(inline) });
    } else {
      const text: string[] = [];
      while (i < lines.length && lines[i].trim() && !/^(#{1,6}\s|\||\s*([-*]|\d+\.)\s)/.test(lines[i])) text.push(lines[i++].trim());
      out.push({ kind: "paragraph", text: inline(text.join(" ")) });
    }
  }
  return out;
}

function draw(parts: Inline[]): Node[] {
  return parts.map((p) => {
    if (p.kind === "code") return h("code", {}, p.text);
    if (p.kind === "strong") return h("strong", {}, p.text);
    if (p.kind === "em") return h("em", {}, p.text);
    if (p.kind === "link") return h("a", { href: p.href, rel: "noopener noreferrer" }, p.text);
    return document.createTextNode(p.text);
  });
}

// The page drawn, its headings one level under `top` (the page's own heading level).
export function rendered(markdown: string, top = 3): Node[] {
  return blocks(markdown).map((b) => {
    if (b.kind === "heading") return h(`h${Math.min(top + b.level - 1, 6)}` as "h3", {}, draw(b.text));
    if (b.kind === "paragraph") return h("p", {}, draw(b.text));
    if (b.kind === "list") return h(b.ordered ? "ol" : "ul", {}, b.items.map((item) => h("li", {}, draw(item))));
    return h(
      "table",
      {},
      h("thead", {}, h("tr", {}, b.head.map((c) => h("th", { scope: "col" }, draw(c))))),
      h("tbody", {}, b.rows.map((r) => h("tr", {}, r.map((c) => h("td", {}, draw(c)))))),
    );
  });
}

// "Rules of <game>" under a game's board: read and drawn the first time it is opened.
export function rulesPanel(type: string, label: string): HTMLElement {
  const body = h("div", { class: "rules-body", id: "rules-body", "aria-live": "polite" });
  const panel = h("details", { class: "rules", id: "rules" }, h("summary", { id: "rules-summary" }, `Rules of ${label}`), body) as HTMLDetailsElement;
  let asked = false;
  panel.addEventListener("toggle", async () => {
    if (!panel.open || asked) return;
    asked = true;
    body.textContent = "Reading the rules…";
    try {
      const answer = await fetch(`rules/${encodeURIComponent(type)}.md`);
      if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
      body.replaceChildren(...rendered(await answer.text()));
      panel.dataset.loaded = "true";
    } catch (e) {
      asked = false;
      body.textContent = `The rules could not be read now (${String(e)}); close and open again to retry.`;
    }
  });
  return panel;
}
