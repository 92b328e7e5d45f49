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
  it("a malformed file is a miss, said once when the next success rewrites it, and then holds that success", async () => {
    const dir = stateDir(true);
    if (dir === undefined) throw new Error("no state dir");
    expect(dir.startsWith(tmp)).toBe(true);
    const file = path.join(dir, "bwrap-probe.json");
    for (const bad of ['{"key": "yes"}', "[true]", '{"key": tr', '{"key": 1}']) {
      writeFileSync(file, bad);
      expect(cachedProbe("key")).toBe(false);
    }
    writeFileSync(file, '{"other": "x", "key": tr');
    rememberProbe("key");
    await until(() => readFileSync(file, "utf8") === '{"key":true}');
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ key: true });
    writeFileSync(file, '{"key": "yes"}');
    rememberProbe("key");
    await until(() => readFileSync(file, "utf8") === '{"key":true}');
    await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    expect(warnings).toHaveLength(1); // once per process
    expect(warnings[0]).toMatch(/bubblewrap probe cache .*bwrap-probe\.json is not JSON .*; rewriting it/);
    expect(cachedProbe("key")).toBe(true);
    expect(cachedProbe("other")).toBe(false);
  });

  it("a good file keeps its other entries when a success is added", async () => {
    const file = path.join(stateDir(true) ?? "", "bwrap-probe.json");
    writeFileSync(file, '{"a":true,"b":true}');
    rememberProbe("c");
    await until(() => readFileSync(file, "utf8").includes('"c"'));
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ a: true, b: true, c: true });
  });
});
