// The hot commands' code cache (decision 0446), through the built bin: written after a run that had none, used as it is
// by the next run, and — since cached data is code — read only from a folder and a file of this user that no one else
// can write, never through a link. Whatever happens to the cache, the command's result is the same.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = path.join(repo, "packages/cli/dist/cli.js");
const skills = path.join(repo, "examples/skills");
const work = mkdtempSync(path.join(os.tmpdir(), "skillport-code-cache-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let n = 0;
/** A fresh cache folder, and a run of `add <examples> --list` (a hot command) with it. */
function setup() {
  const cache = path.join(work, `cache-${++n}`);
  const run = (env: NodeJS.ProcessEnv = {}) => {
    const result = spawnSync(process.execPath, [bin, "add", skills, "--list", "--json"], {
      cwd: work,
      encoding: "utf8",
      env: { ...process.env, SKILLPORT_CACHE_DIR: cache, SKILLPORT_CODE_CACHE: undefined, ...env },
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    return result.stdout;
  };
  const code = path.join(cache, "code");
  const files = () => (existsSync(code) ? readdirSync(code).filter((f) => !f.startsWith(".tmp-")) : []);
  return { cache, code, run, files };
}

describe("the hot commands' code cache (decision 0446)", () => {
  it("is written by a run that had none, in a private folder, and used as it is by the next run", () => {
    const { code, run, files } = setup();
    const first = run();
    expect(files()).toHaveLength(1);
    const [name] = files();
    expect(name).toMatch(/^cli-add-.*\.v8cache$/);
    expect(statSync(code).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(code, name!)).mode & 0o777).toBe(0o600);
    const bytes = readFileSync(path.join(code, name!));
    expect(run()).toBe(first);
    // Accepted by V8: not written again (a rejected one is replaced, below).
    expect(readFileSync(path.join(code, name!)).equals(bytes)).toBe(true);
  });

  it("data V8 refuses is replaced, and the command's result is unchanged", () => {
    const { code, run, files } = setup();
    const first = run();
    const [name] = files();
    writeFileSync(path.join(code, name!), "not V8's cached data", { mode: 0o600 });
    expect(run()).toBe(first);
    const replaced = readFileSync(path.join(code, name!));
    expect(replaced.toString()).not.toBe("not V8's cached data");
    expect(replaced.length).toBeGreaterThan(1000);
  });

  it("a cache file others can write is not read, and is replaced by a private one", () => {
    const { code, run, files } = setup();
    const first = run();
    const [name] = files();
    const file = path.join(code, name!);
    // Valid data: were it read, V8 would take it and nothing would be written.
    chmodSync(file, 0o666);
    expect(run()).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("a cache folder others can write is neither read nor written", () => {
    const { code, run, files } = setup();
    mkdirSync(code, { recursive: true });
    chmodSync(code, 0o777);
    const first = run();
    expect(files()).toEqual([]);
    // Data planted where the cache would be: were it read, V8 would refuse it and a new cache would replace it.
    const { files: elsewhere, run: runElsewhere } = setup();
    runElsewhere();
    const [name] = elsewhere();
    writeFileSync(path.join(code, name!), "planted", { mode: 0o600 });
    expect(run()).toBe(first);
    expect(readFileSync(path.join(code, name!), "utf8")).toBe("planted");
  });

  it("a link in the cache file's place is never followed: its target is neither read nor written", () => {
    const { code, run, files } = setup();
    const first = run();
    const [name] = files();
    // The link leads to valid data: were it followed, V8 would take it and the link would stay.
    const target = path.join(work, `outside-${n}`);
    writeFileSync(target, readFileSync(path.join(code, name!)), { mode: 0o600 });
    const before = readFileSync(target);
    rmSync(path.join(code, name!));
    symlinkSync(target, path.join(code, name!));
    expect(run()).toBe(first);
    expect(readFileSync(target).equals(before)).toBe(true);
    expect(lstatSync(path.join(code, name!)).isFile()).toBe(true);
  });

  it("writing a new cache removes the caches of earlier builds of that script only", () => {
    const { code, run, files } = setup();
    mkdirSync(code, { recursive: true, mode: 0o700 });
    const stale = "cli-add-0.0.0-x64-1-1-1.v8cache";
    const other = "cli-install-0.0.0-x64-1-1-1.v8cache";
    for (const f of [stale, other]) writeFileSync(path.join(code, f), "old", { mode: 0o600 });
    run();
    expect(files()).not.toContain(stale);
    expect(files()).toContain(other);
    expect(files().filter((f) => f.startsWith("cli-add-"))).toHaveLength(1);
  });

  it("SKILLPORT_CODE_CACHE=off runs the command's ES-module bundle and makes no cache", () => {
    const { run, files, cache } = setup();
    const first = run({ SKILLPORT_CODE_CACHE: "off" });
    expect(files()).toEqual([]);
    expect(existsSync(path.join(cache, "code"))).toBe(false);
    expect(run()).toBe(first);
    expect(files()).toHaveLength(1);
  });
});
