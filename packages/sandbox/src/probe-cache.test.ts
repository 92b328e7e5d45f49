import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedProbe, rememberProbe } from "./probe-cache.js";
import { stateDir } from "./state-dir.js";

// The cache lives in `<tmp>/skillport-<uid>`: a private TMPDIR keeps this test off the real one.
const tmp = mkdtempSync(path.join(os.tmpdir(), "skillport-probe-test-"));
const savedTmp = process.env.TMPDIR;
const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(warning.message);

beforeAll(() => {
  process.env.TMPDIR = tmp;
  process.on("warning", onWarning);
});
afterAll(() => {
  process.off("warning", onWarning);
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(tmp, { recursive: true, force: true });
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe("the bubblewrap probe cache is read through its schema (decision 0321)", () => {
  it("a malformed file is said once, counts as no probe, and is rewritten whole by the next success", async () => {
    const dir = stateDir(true);
    if (dir === undefined) throw new Error("no state dir");
    expect(dir.startsWith(tmp)).toBe(true);
    const file = path.join(dir, "bwrap-probe.json");
    for (const bad of ['{"key": "yes"}', "[true]", '{"key": tr']) {
      writeFileSync(file, bad);
      expect(cachedProbe("key")).toBe(false);
    }
    await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    expect(warnings).toHaveLength(1); // once per process, however often it is read
    expect(warnings[0]).toMatch(/bubblewrap probe cache .*bwrap-probe\.json is not the expected shape: at key, expected boolean; probing again/);
    rememberProbe("key");
    await until(() => readFileSync(file, "utf8") === '{"key":true}');
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ key: true });
    expect(cachedProbe("key")).toBe(true);
    expect(cachedProbe("other")).toBe(false);
  });
});
