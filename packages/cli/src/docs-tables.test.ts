// Tables in the docs that mirror code (issue 7): the CLI command table in packages/cli/README.md and the
// "depends on" column of docs/architecture.md. Each is compared with the code, so a change to one without the other
// fails here.
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AGENTS, agentsMarkdownTable } from "@skillport/install";
import { commands } from "./commands/index.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const read = (file: string) => readFileSync(path.join(repo, file), "utf8");

/** Rows of the first Markdown table whose header starts with `header`, as arrays of trimmed cells. */
function tableRows(markdown: string, header: string): string[][] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.startsWith(`| ${header} |`));
  expect(start, `a table headed "${header}"`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split(" | ")
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

describe("docs tables agree with the code", () => {
  it("packages/cli/README.md lists every command, in help order, with its summary", () => {
    const rows = tableRows(read("packages/cli/README.md"), "command");
    expect(rows).toEqual(commands.map((c) => [`\`${c.name}\``, c.summary]));
  });

  it("docs/architecture.md names each package's Skillport dependencies", () => {
    const rows = tableRows(read("docs/architecture.md"), "package");
    const documented = new Map(rows.map(([name, , deps]) => [name!.replaceAll("`", ""), deps!]));
    for (const dir of readdirSync(path.join(repo, "packages"))) {
      const manifest = JSON.parse(read(`packages/${dir}/package.json`)) as {
        name: string;
        dependencies?: Record<string, string>;
      };
      const siblings = Object.keys(manifest.dependencies ?? {})
        .filter((name) => name.startsWith("@skillport/"))
        .map((name) => name.slice("@skillport/".length))
        .sort();
      const cell = documented.get(manifest.name);
      expect(cell, `docs/architecture.md has a row for ${manifest.name}`).toBeDefined();
      // The cell starts with the sibling short names, comma-separated ("core, fs, …") or "—" for none.
      const named = cell!
        .split(/,\s*/)
        .map((part) => part.trim())
        .filter((part) => /^[a-z-]+$/.test(part) && part !== "all")
        .sort();
      if (manifest.name === "skillport") expect(cell).toMatch(/^all of the above/);
      else expect(named, `${manifest.name}'s Skillport dependencies`).toEqual(siblings);
    }
  });

  it("docs/install.md's agents table lists every agent of the code's table with its project folder", () => {
    const rows = tableRows(read("docs/install.md"), "id");
    expect(rows.map(([id, name, project]) => [id, name, project])).toEqual(
      AGENTS.map((a) => [a.id, a.displayName, `\`${a.projectDir}\``]),
    );
  });

  it("README.md and docs/install.md hold the agents table exactly as the code generates it (npm run docs:agents)", () => {
    for (const file of ["README.md", "docs/install.md"]) {
      const block = /<!-- agents-table -->\n([\s\S]*?)<!-- \/agents-table -->/.exec(read(file))?.[1];
      expect(block, `${file}: run npm run docs:agents`).toBe(agentsMarkdownTable());
    }
  });

  it("docs/decisions/README.md indexes every decision note, in number order", () => {
    const notes = readdirSync(path.join(repo, "docs/decisions"))
      .filter((name) => /^\d{4}-.*\.md$/.test(name))
      .sort();
    const linked = [...read("docs/decisions/README.md").matchAll(/^\| \[(\d{4})\]\((\d{4}-[^)]+\.md)\)/gm)].map(
      (m) => m[2]!,
    );
    expect(linked).toEqual(notes);
  });

  it("every decision's status is accepted, or names later notes that amend or supersede it, as the notes say", () => {
    const notes = new Set(readdirSync(path.join(repo, "docs/decisions")).filter((name) => /^\d{4}-.*\.md$/.test(name)));
    for (const row of tableRows(read("docs/decisions/README.md"), "note")) {
      const [note, , status] = row;
      const file = /\((\d{4}-[^)]+\.md)\)/.exec(note!)![1]!;
      expect(status, `${file} has a status`).toMatch(
        /^(accepted|(amended|superseded) by \[\d{4}\]\(\d{4}-[^)]+\.md\)(, \[\d{4}\]\(\d{4}-[^)]+\.md\))*)$/,
      );
      const later = [...status!.matchAll(/\((\d{4}-[^)]+\.md)\)/g)].map((m) => m[1]!);
      for (const other of later) {
        expect(notes.has(other), `${file}'s status names an existing note`).toBe(true);
        expect(other > file, `${file} is amended by a later note`).toBe(true);
      }
      // A note that says it was superseded (in part) by another must have that note in its status.
      const said = [...read(`docs/decisions/${file}`).matchAll(/Superseded[^.]*?\bby \[?(\d{4})/g)].map((m) => m[1]!);
      for (const number of said)
        expect(
          later.map((name) => name.slice(0, 4)),
          `${file} says it is superseded by ${number}`,
        ).toContain(number);
    }
  });

  it("every decision note is linked from a docs page of its area", () => {
    const pages = readdirSync(path.join(repo, "docs")).filter((name) => name.endsWith(".md"));
    const text = pages.map((page) => read(`docs/${page}`)).join("\n");
    const notes = readdirSync(path.join(repo, "docs/decisions")).filter((name) => /^\d{4}-.*\.md$/.test(name));
    expect(notes.filter((note) => !text.includes(`](decisions/${note})`))).toEqual([]);
  });
});
