// The rules pages' Markdown as the game pages draw it (src/rules.ts): headings, paragraphs
// joined from their lines, lists with their continuation lines, tables without their rule
// line, and inline code, bold, emphasis and links (one into the repository kept as text).
import { test } from "node:test";
import assert from "node:assert/strict";
import { blocks, inline } from "../../src/rules";

test("inline marks: code, bold, emphasis, and links out (a link into the repository is its text)", () => {
  assert.deepEqual(inline("a `5E` **two** *em* [`README`](../../x.md) [site](https://e.org/r)"), [
    { kind: "text", text: "a " },
    { kind: "code", text: "5E" },
    { kind: "text", text: " " },
    { kind: "strong", text: "two" },
    { kind: "text", text: " " },
    { kind: "em", text: "em" },
    { kind: "text", text: " " },
    { kind: "code", text: "README" },
    { kind: "text", text: " " },
    { kind: "link", text: "site", href: "https://e.org/r" },
  ]);
});

test("blocks: a heading, a paragraph of two lines, a list with a continuation, a table", () => {
  const page = "# Title\n\nOne line\nand the next.\n\n- first\n  goes on\n- second\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
  const found = blocks(page);
  assert.deepEqual(found.map((b) => b.kind), ["heading", "paragraph", "list", "table"]);
  assert.deepEqual(found[1], { kind: "paragraph", text: [{ kind: "text", text: "One line and the next." }] });
  assert.deepEqual(found[2], { kind: "list", ordered: false, items: [[{ kind: "text", text: "first goes on" }], [{ kind: "text", text: "second" }]] });
  assert.deepEqual(found[3], {
    kind: "table",
    head: [[{ kind: "text", text: "a" }], [{ kind: "text", text: "b" }]],
    rows: [[[{ kind: "text", text: "1" }], [{ kind: "text", text: "2" }]]],
  });
});
