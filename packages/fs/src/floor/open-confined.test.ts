import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { InvalidPathError, ResourceNotFoundError } from "@skillport/core";
import { startFolderSwapper, tempTree, type TempTree } from "@skillport/testing";
import { openConfined, type OpenConfinedOptions } from "./open-confined.js";

let t: TempTree;
let boundary: string;

beforeAll(async () => {
  t = await tempTree(
    {
      "skill/SKILL.md": "---\nname: skill\n---\n",
      "skill/references/real.md": "real",
      "skill/references/alias.md": { link: "real.md" },
      "skill/docs": { link: "references" },
      "skill/up.md": { link: "../other/x.md" },
      "skill/abs.md": { link: "/etc/hostname" },
      "skill/gone.md": { link: "nowhere.md" },
      "skill/loop.md": { link: "loop.md" },
      "skill/sub": { dir: true },
      "other/x.md": "other skill",
    },
    "skillport-open-",
  );
  boundary = path.join(t.dir, "skill");
  execFileSync("mkfifo", [path.join(boundary, "pipe")]);
});
afterAll(() => t.cleanup());

function read(rel: string, options: OpenConfinedOptions = {}): string {
  const file = openConfined(boundary, rel, options);
  try {
    return Buffer.from(file.readAllSync(1024)!).toString("utf8");
  } finally {
    file.close();
  }
}

describe.each(["proc", "path"] as const)("openConfined (verify: %s)", (verify) => {
  it("reads a plain file and reports its size and real path", () => {
    const file = openConfined(boundary, "references/real.md", { verify });
    expect([file.size, file.realPath, file.nlink]).toEqual([4, path.join(boundary, "references", "real.md"), 1]);
    expect(Buffer.from(file.readAllSync(4)!).toString()).toBe("real");
    file.close();
    file.close();
  });

  it("serves links inside the boundary only when asked to", () => {
    expect(read("references/alias.md", { verify, followLinksInside: true })).toBe("real");
    expect(read("docs/real.md", { verify, followLinksInside: true })).toBe("real");
    expect(() => read("references/alias.md", { verify })).toThrow(InvalidPathError);
    expect(() => read("docs/real.md", { verify })).toThrow(/passes through a symbolic link/);
  });

  it.each([
    ["up.md", InvalidPathError, /outside/],
    ["abs.md", InvalidPathError, /outside/],
    ["gone.md", InvalidPathError, /target does not exist/],
    ["loop.md", InvalidPathError, /symbolic link/],
    ["missing.md", ResourceNotFoundError, /not found/],
    ["sub", ResourceNotFoundError, /not a regular file/],
    ["pipe", ResourceNotFoundError, /not a regular file/],
    ["../other/x.md", InvalidPathError, /invalid path/],
    ["%2e%2e/other/x.md", InvalidPathError, /invalid path/],
  ])("with links inside allowed, refuses %s", (rel, type, message) => {
    let thrown: unknown;
    try {
      read(rel, { verify, followLinksInside: true });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(type);
    expect(String((thrown as Error).message)).toMatch(message);
    expect(String((thrown as Error).message)).not.toContain(t.dir);
  });

  it("bounds reads at maxBytes + 1", () => {
    const file = openConfined(boundary, "references/real.md", { verify });
    expect(file.readAllSync(3)).toBeUndefined();
    expect(file.readAllSync(4)?.byteLength).toBe(4);
    file.close();
  });

  it("reads into a lent buffer when the file fits, and into memory of its own when it does not", () => {
    const file = openConfined(boundary, "references/real.md", { verify });
    const whole = Buffer.from(file.readAllSync(1024) ?? []);
    const lent = new Uint8Array(64).fill(0xee);
    const into = file.readAllSync(1024, lent);
    expect(into?.buffer).toBe(lent.buffer);
    expect(Buffer.from(into ?? [])).toEqual(whole);
    const tooSmall = new Uint8Array(whole.byteLength); // no room for the +1 byte that detects growth
    const own = file.readAllSync(1024, tooSmall);
    expect(own?.buffer).not.toBe(tooSmall.buffer);
    expect(Buffer.from(own ?? [])).toEqual(whole);
    expect(file.readAllSync(3, lent)).toBeUndefined();
    file.close();
  });
});

describe("openConfined: hard links", () => {
  let h: TempTree;
  beforeAll(async () => {
    h = await tempTree({ "outside/secret": "secret", "skill/x": "x" }, "skillport-open-hard-");
    execFileSync("ln", [path.join(h.dir, "outside", "secret"), path.join(h.dir, "skill", "secret")]);
  });
  afterAll(() => h.cleanup());

  it("are served by default and refused with refuseHardLinks", () => {
    const skill = path.join(h.dir, "skill");
    const file = openConfined(skill, "secret");
    expect(file.nlink).toBe(2);
    file.close();
    expect(() => openConfined(skill, "secret", { refuseHardLinks: true })).toThrow(/hard links/);
    openConfined(skill, "x", { refuseHardLinks: true }).close();
  });
});

// Issue 8 hole 5: a directory swapped for a link in a loop while reads run. Checking a path and then opening it by
// path let ~3–4% of reads return the outside file; verifying the opened descriptor must let none through. The swapper
// is a separate process (real concurrency on another core), bounded by an iteration count; the reader runs until it
// has seen both states many times (or a hard cap), so no timing threshold decides the outcome.
describe("openConfined under a concurrent directory swap (TOCTOU)", () => {
  let r: TempTree;
  let swapper: ChildProcess | undefined;
  afterEach(async () => {
    if (swapper && swapper.exitCode === null) {
      swapper.kill("SIGKILL");
      await once(swapper, "exit");
    }
    await r?.cleanup();
  });

  // Only the /proc verification is race-free; the path fallback narrows the window but cannot close it without openat
  // (docs/decisions/0122), so it is tested on static trees above, not here.
  for (const [followLinksInside, verify] of [
    [false, "proc"],
    [true, "proc"],
  ] as const) {
    it(`never returns the outside file (followLinksInside: ${followLinksInside}, verify: ${verify})`, async () => {
      r = await tempTree({ "skill/refs/notes.md": "inside", "outside/refs/notes.md": "SECRET" }, "skillport-race-");
      const skill = path.join(r.dir, "skill");
      swapper = await startFolderSwapper(path.join(skill, "refs"), path.join(r.dir, "outside", "refs"));
      const seen = { inside: 0, refused: 0, escaped: 0 };
      for (
        let reads = 0;
        reads < 200_000 && (seen.inside < 1000 || seen.refused < 1000) && swapper.exitCode === null;
        reads++
      ) {
        try {
          const file = openConfined(skill, "refs/notes.md", { followLinksInside, verify });
          const text = Buffer.from(file.readAllSync(64)!).toString();
          file.close();
          if (text === "inside") seen.inside++;
          else seen.escaped++;
        } catch (error) {
          if (!(error instanceof InvalidPathError || error instanceof ResourceNotFoundError)) throw error;
          seen.refused++;
        }
      }
      expect(seen.escaped).toBe(0);
      expect(seen.inside).toBeGreaterThan(0);
      expect(seen.refused).toBeGreaterThan(0);
    });
  }
});
