// The /etc snapshot kept across processes (decision 0221): where it lives, and what happens to one that was tampered
// with or planted. TMPDIR points at a test folder, so the host's own state directory is never touched.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appendFileSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { boundSnapshot, etcMounts } from "./etc-snapshot.js";
import { BubblewrapSandbox, createSandbox } from "./sandbox.js";
import { haveBubblewrap, tempDir } from "./__fixtures__/helpers.js";

const hasBwrap = haveBubblewrap(console.warn);
const hostIsRoot = process.getuid?.() === 0;
const SOURCES = ["/etc/passwd", "/etc/group", "/etc/hosts", "/etc/ssl"];
let tmp: { dir: string; cleanup: () => Promise<void> };
let savedTmpdir: string | undefined;
let stateDir = "";

beforeAll(async () => {
  tmp = await tempDir();
  savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = tmp.dir;
  stateDir = path.join(tmp.dir, `skillport-${process.getuid?.()}`);
});
afterAll(async () => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  await tmp.cleanup();
});

function freshSnapshot(): string {
  const dir = boundSnapshot(etcMounts(SOURCES, []));
  expect(dir).toBeDefined();
  return dir!;
}

describe("the /etc snapshot", () => {
  it("is shared: the same folder each time, in the user's owner-only state directory, copies unwritable by others", () => {
    const dir = freshSnapshot();
    const built = statSync(path.join(dir, "passwd")).ino;
    expect(freshSnapshot()).toBe(dir);
    expect(statSync(path.join(dir, "passwd")).ino).toBe(built); // reused, not rebuilt
    expect(path.dirname(dir)).toBe(stateDir);
    expect(statSync(stateDir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir).sort()).toEqual(["group", "hosts", "passwd", "ssl"]);
    for (const name of readdirSync(dir)) expect(statSync(path.join(dir, name)).mode & 0o022).toBe(0);
    expect(readFileSync(path.join(dir, "passwd"), "utf8")).toBe(readFileSync("/etc/passwd", "utf8"));
  });

  it("rebuilds a snapshot whose copy was edited or that gained an entry", () => {
    const dir = freshSnapshot();
    const edited = statSync(path.join(dir, "passwd")).ino;
    appendFileSync(path.join(dir, "passwd"), "intruder:x:0:0::/:/bin/sh\n");
    expect(freshSnapshot()).toBe(dir);
    expect(statSync(path.join(dir, "passwd")).ino).not.toBe(edited);
    expect(readFileSync(path.join(dir, "passwd"), "utf8")).toBe(readFileSync("/etc/passwd", "utf8"));
    writeFileSync(path.join(dir, "shadow"), "root:planted\n");
    expect(freshSnapshot()).toBe(dir);
    expect(readdirSync(dir)).not.toContain("shadow");
  });

  it("replaces a link planted in its place, never binding through it", () => {
    const dir = freshSnapshot();
    const decoy = path.join(tmp.dir, "decoy");
    mkdirSync(decoy);
    for (const name of ["passwd", "group", "hosts"]) writeFileSync(path.join(decoy, name), "planted\n");
    mkdirSync(path.join(decoy, "ssl"));
    rmSync(dir, { recursive: true });
    symlinkSync(decoy, dir);
    expect(freshSnapshot()).toBe(dir);
    expect(lstatSync(dir).isDirectory()).toBe(true);
    expect(readFileSync(path.join(dir, "passwd"), "utf8")).toBe(readFileSync("/etc/passwd", "utf8"));
    expect(readFileSync(path.join(decoy, "passwd"), "utf8")).toBe("planted\n");
  });

  const planted: Array<{ what: string; plant: () => void }> = [
    { what: "open to others (mode 0755)", plant: () => mkdirSync(stateDir, { mode: 0o755 }) },
    {
      what: "a link to a folder of the user's own",
      plant: () => {
        mkdirSync(`${stateDir}-real`, { mode: 0o700 });
        symlinkSync(`${stateDir}-real`, stateDir);
      },
    },
  ];
  if (hostIsRoot) {
    planted.push({
      what: "planted by another user (uid 65534)",
      plant: () => {
        mkdirSync(stateDir, { mode: 0o700 });
        chownSync(stateDir, 65534, 65534);
      },
    });
  }
  it.each(planted)("is not kept in a state directory $what: every entry is bound on its own", ({ plant }) => {
    const clear = () => {
      rmSync(stateDir, { recursive: true, force: true });
      rmSync(`${stateDir}-real`, { recursive: true, force: true });
    };
    clear();
    plant();
    try {
      const args = etcMounts(SOURCES, []);
      expect(boundSnapshot(args)).toBeUndefined();
      expect(args).toEqual([
        "--ro-bind",
        "/etc/passwd",
        "/etc/passwd",
        "--ro-bind",
        "/etc/group",
        "/etc/group",
        "--ro-bind",
        "/etc/hosts",
        "/etc/hosts",
        "--ro-bind",
        "/etc/ssl",
        "/etc/ssl",
      ]);
      expect(readdirSync(stateDir)).toEqual([]);
    } finally {
      clear();
    }
  });

  it("binds every entry on its own when the snapshot would lie inside a writable directory", () => {
    expect(boundSnapshot(etcMounts(SOURCES, [tmp.dir]))).toBeUndefined();
    expect(boundSnapshot(etcMounts(SOURCES, [path.join(tmp.dir, "elsewhere")]))).toBeDefined();
  });

  it.runIf(hasBwrap)("a sandbox started over a tampered snapshot sees the host's /etc/passwd", async () => {
    const ws = await tempDir();
    const sb = createSandbox({ kind: "bubblewrap", writableDir: ws.dir, prewarm: false });
    try {
      if (!(sb instanceof BubblewrapSandbox)) throw new Error("not a bubblewrap sandbox");
      const dir = boundSnapshot(sb.bwrapArgs(["true"], "/", {}))!;
      expect(dir.startsWith(stateDir)).toBe(true);
      // Tampered after the sandbox was made: the next one rebuilds it before mounting.
      renameSync(dir, `${dir}-moved`);
      mkdirSync(dir);
      writeFileSync(path.join(dir, "passwd"), "root:x:0:0:planted:/:/bin/sh\n");
      const next = createSandbox({ kind: "bubblewrap", writableDir: ws.dir, prewarm: false });
      const r = await next.run({ command: ["/bin/cat", "/etc/passwd"] });
      expect(r.stdout).toBe(readFileSync("/etc/passwd", "utf8"));
      await next.close();
    } finally {
      await sb.close();
      await ws.cleanup();
    }
  });

  it.runIf(hasBwrap)(
    "a long-lived sandbox whose snapshot was swept by another process takes the current one",
    async () => {
      const ws = await tempDir();
      const sb = createSandbox({ kind: "bubblewrap", writableDir: ws.dir });
      try {
        if (!(sb instanceof BubblewrapSandbox)) throw new Error("not a bubblewrap sandbox");
        const passwd = readFileSync("/etc/passwd", "utf8");
        expect((await sb.run({ command: ["/bin/cat", "/etc/passwd"] })).stdout).toBe(passwd);
        const dir = boundSnapshot(sb.bwrapArgs(["true"], "/", {}))!;
        rmSync(dir, { recursive: true }); // what a sweep does once /etc has changed a few times (decision 0221)
        await new Promise((resolve) => setTimeout(resolve, 100)); // the next launcher is prepared meanwhile
        const r = await sb.run({ command: ["/bin/cat", "/etc/passwd"] });
        expect({ exitCode: r.exitCode, stdout: r.stdout }).toEqual({ exitCode: 0, stdout: passwd });
        expect(existsSync(boundSnapshot(sb.bwrapArgs(["true"], "/", {}))!)).toBe(true);
      } finally {
        await sb.close();
        await ws.cleanup();
      }
    },
  );
});
