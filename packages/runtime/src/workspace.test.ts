import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile, stat } from "node:fs/promises";
import { createHash, randomBytes } from "node:crypto";
import path from "node:path";
import { packDirectory } from "@skillport/pack";
import { Workspace, type DeployEvent } from "./workspace.js";
import { readState } from "./state.js";
import { appEntrypointHash } from "./entrypoints.js";
import { defaultStateDir } from "./host-state.js";
import { tempDir, writePackage, bundleRuntime, haveBubblewrap, useTempDirs } from "./__fixtures__/helpers.js";

haveBubblewrap(console.warn);
const { tmp } = useTempDirs();

/** A package directory; `tag` makes its content (and versionId) unique. */
async function pkg(tag: string, entrypoint?: string, skills = ["demo"]): Promise<string> {
  return writePackage(await tmp(), { skills, entrypoint, files: { "tag.txt": tag } });
}

const COUNT_RUNS = 'echo run >> "$HOME/runs-$(basename "$PWD")"; echo initialized';
async function runs(ws: Workspace, versionId: string): Promise<number> {
  try {
    return (await readFile(path.join(ws.home, `runs-${versionId}`), "utf8")).split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
}

describe("Workspace.deploy", () => {
  it("deploys into projects/<versionId>, runs the entrypoint once, skips it next time", async () => {
    const ws = new Workspace(await tmp());
    const events: DeployEvent[] = [];
    const first = await ws.deploy([await pkg("a", COUNT_RUNS)], { onEvent: (e) => events.push(e) });
    const [v] = first.versions;
    expect(v).toMatchObject({ status: "deployed" });
    expect(v!.versionId).toMatch(/^[a-f0-9]{24}$/);
    expect(await readFile(path.join(ws.projectsDir, v!.versionId, "skills/demo/SKILL.md"), "utf8")).toContain(
      "name: demo",
    );
    const report = await first.initialization;
    expect(report.outcomes).toMatchObject([
      { target: v!.versionId, status: "ran", exitCode: 0, stdoutTail: "initialized\n" },
    ]);
    expect(events.map((e) => e.type)).toEqual([
      "lock-acquired",
      "source",
      "version-unpacking",
      "version-deployed",
      "entrypoint-start",
      "entrypoint-done",
      "initialized",
    ]);
    const state = JSON.parse(await readFile(ws.stateFile, "utf8"));
    expect(state).toEqual({ values: { skillEntrypoints: [v!.versionId] } });
    expect(ws.stateFile).toBe(path.join(ws.home, ".fastgpt/runtime/state.json"));

    const again = await ws.deploy([await pkgSame(v!.versionId, ws)]);
    expect(again.versions[0]).toMatchObject({ versionId: v!.versionId, status: "present" });
    expect((await again.initialization).outcomes).toMatchObject([{ status: "skipped" }]);
    expect(await runs(ws, v!.versionId)).toBe(1);
  });

  it("deploys archive bytes and archive files, skipping versions already present", async () => {
    const ws = new Workspace(await tmp());
    const packed = await packDirectory(await pkg("bytes"));
    const file = path.join(await tmp(), "p.zip");
    await writeFile(file, packed.archive);
    const r1 = await ws.deploy([packed.archive]);
    expect(r1.versions).toEqual([{ versionId: packed.versionId, status: "deployed", label: "bytes[0]" }]);
    const r2 = await ws.deploy([file]);
    expect(r2.versions).toEqual([{ versionId: packed.versionId, status: "present", label: "p.zip" }]);
    await r2.initialization;
  });

  it("creates a missing workspace root (and its state folder beside it)", async () => {
    const root = path.join(await tmp(), "new", "ws");
    const ws = new Workspace(root);
    const r = await ws.deploy([await pkg("fresh-root")]);
    await r.initialization;
    expect(await readdir(ws.projectsDir)).toEqual([r.versions[0]!.versionId]);
    expect(ws.stateDir).toBe(path.join(path.dirname(root), ".ws.skillport-state"));
    expect((await stat(ws.stateDir)).mode & 0o777).toBe(0o700);
  });

  it("removes unselected versions and stale temp dirs; reconciles the state", async () => {
    const ws = new Workspace(await tmp());
    const a = await ws.deploy([await pkg("a", COUNT_RUNS), await pkg("b", COUNT_RUNS)]);
    await a.initialization;
    const [va, vb] = a.versions.map((v) => v.versionId);
    await mkdir(path.join(ws.projectsDir, ".tmp-123-dead"), { recursive: true });
    await writeFile(path.join(ws.projectsDir, ".tmp-123-dead", "half"), "x");
    const b = await ws.deploy([await pkgSame(vb!, ws)]);
    await b.initialization;
    expect(b.removed).toEqual([va]);
    expect((await readdir(ws.projectsDir)).sort()).toEqual([vb]);
    expect((await readState(ws.stateFile)).state.values.skillEntrypoints).toEqual([vb]);
  });

  it("does not block: deploy returns while the entrypoint is still running", async () => {
    const ws = new Workspace(await tmp());
    const r = await ws.deploy([await pkg("slow", 'while [ ! -f "$HOME/go" ]; do sleep 0.02; done; echo done')]);
    let settled = false;
    void r.initialization.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    await writeFile(path.join(ws.home, "go"), "");
    expect((await r.initialization).outcomes[0]).toMatchObject({ status: "ran", stdoutTail: "done\n" });
  });

  it("a failed entrypoint is not recorded and is retried next deploy", async () => {
    const ws = new Workspace(await tmp());
    const flaky = 'if [ -f "$HOME/second" ]; then echo ok; exit 0; fi; touch "$HOME/second"; echo broken >&2; exit 3';
    const r1 = await ws.deploy([await pkg("flaky", flaky)]);
    const rep1 = await r1.initialization;
    expect(rep1).toMatchObject({
      failed: true,
      outcomes: [{ status: "failed", exitCode: 3, stderrTail: "broken\n", reason: "exited with code 3" }],
    });
    expect((await readState(ws.stateFile)).state.values).toEqual({});
    const r2 = await ws.deploy([await pkgSame(r1.versions[0]!.versionId, ws)]);
    expect((await r2.initialization).outcomes).toMatchObject([{ status: "ran", stdoutTail: "ok\n" }]);
  });

  it("times out an entrypoint (not recorded) and keeps the last 8 KiB of each stream", async () => {
    const ws = new Workspace(await tmp(), { entrypointTimeout: 1 });
    const script = 'for i in $(seq 1 3000); do echo "out line $i"; echo "err line $i" >&2; done; sleep 30';
    const r = await ws.deploy([await pkg("sleepy", script)]);
    const [o] = (await r.initialization).outcomes;
    expect(o).toMatchObject({ status: "timed-out", reason: "timed out after 1 s" });
    expect(Buffer.byteLength(o!.stdoutTail!)).toBe(8192);
    expect(o!.stdoutTail!.endsWith("out line 3000\n")).toBe(true);
    expect(o!.stderrTail!.endsWith("err line 3000\n")).toBe(true);
    expect((await readState(ws.stateFile)).state.values).toEqual({});
  });

  it("keeps the state where it is configured (home and stateFile options)", async () => {
    const root = await tmp();
    const ws = new Workspace(root, { home: path.join(root, "h"), stateFile: path.join(root, "state/custom.json") });
    const r = await ws.deploy([await pkg("custom-state", COUNT_RUNS)]);
    await r.initialization;
    const v = r.versions[0]!.versionId;
    expect(JSON.parse(await readFile(path.join(root, "state/custom.json"), "utf8"))).toEqual({
      values: { skillEntrypoints: [v] },
    });
    await expect(stat(path.join(root, "h/.fastgpt/runtime/state.json"))).rejects.toThrow(/ENOENT/);
    expect(await runs(ws, v)).toBe(1); // HOME inside the sandbox is the configured home
    expect(() => new Workspace(root, { home: path.join(root, "..", "elsewhere") })).toThrow(
      /home directory must be inside the workspace/,
    );
  });

  it("validates the entrypoint timeout and the app script size", () => {
    expect(() => new Workspace("/tmp/x", { entrypointTimeout: 0 })).toThrow(/between 1 and 600 seconds/);
    expect(() => new Workspace("/tmp/x", { entrypointTimeout: 601 })).toThrow(/between 1 and 600 seconds/);
    expect(() => new Workspace("/tmp/x", { appEntrypoint: "x".repeat(16 * 1024 + 1) })).toThrow(/16 KiB/);
    expect(() => new Workspace("relative")).toThrow(/absolute/);
  });

  // Decision 0322: the records decide what runs again, so records that cannot be read stop initialization, are kept
  // as they are, and say how to recover; removing them runs every entrypoint once more.
  it.each([
    ["not JSON", "{ not json", /is not JSON/],
    ["truncated", '{\n  "values": {\n    "skillEntrypoints": ["', /is not JSON/],
    [
      "a foreign shape",
      '{"values":{"skillEntrypoints":[1]}}',
      /is not the expected shape: at values\.skillEntrypoints/,
    ],
  ])(
    "entrypoint records that are %s: a clear failure, nothing runs, the file is kept",
    async (_kind, content, problem) => {
      const ws = new Workspace(await tmp());
      const r1 = await ws.deploy([await pkg("c", COUNT_RUNS)]);
      await r1.initialization;
      const v = r1.versions[0]!.versionId;
      await writeFile(ws.entrypointRecordFile, content);
      const r2 = await ws.deploy([await pkgSame(v, ws)]);
      const rep = await r2.initialization;
      expect(rep.failed).toBe(true);
      expect(rep.outcomes).toEqual([]);
      expect(rep.stateProblems).toHaveLength(1);
      expect(rep.stateProblems[0]).toMatch(problem);
      expect(rep.stateProblems[0]).toContain("the entrypoint records (entrypoints.json)");
      expect(rep.stateProblems[0]).toContain("removing it runs every entrypoint again");
      expect(await readFile(ws.entrypointRecordFile, "utf8")).toBe(content);
      expect(await runs(ws, v)).toBe(1);
      await rm(ws.entrypointRecordFile);
      const r3 = await ws.deploy([await pkgSame(v, ws)]);
      expect((await r3.initialization).outcomes).toMatchObject([{ status: "ran" }]);
      expect(await runs(ws, v)).toBe(2);
    },
  );

  it("runs a recorded version again when it is freshly deployed", async () => {
    const ws = new Workspace(await tmp());
    const dir = await pkg("fresh", COUNT_RUNS);
    const r1 = await ws.deploy([dir]);
    await r1.initialization;
    const r2 = await ws.deploy([]); // removes it
    await r2.initialization;
    expect(r2.removed).toEqual([r1.versions[0]!.versionId]);
    // The state still lists nothing (reconciled); put it back by hand to prove "fresh deploy runs anyway".
    await writeFile(
      ws.entrypointRecordFile,
      JSON.stringify({ values: { skillEntrypoints: [r1.versions[0]!.versionId] } }),
    );
    const r3 = await ws.deploy([dir]);
    expect(r3.versions[0]!.status).toBe("deployed");
    expect((await r3.initialization).outcomes).toMatchObject([{ status: "ran" }]);
    expect(await runs(ws, r1.versions[0]!.versionId)).toBe(2);
  });

  it("runs the app startup script once per sha256, and again when it changes", async () => {
    const root = await tmp();
    const script = 'echo app >> "$HOME/app-runs"';
    const ws1 = new Workspace(root, { appEntrypoint: script });
    await (
      await ws1.deploy([])
    ).initialization;
    const rep = await (await ws1.deploy([])).initialization;
    expect(rep.outcomes).toMatchObject([{ target: "app", status: "skipped" }]);
    expect((await readState(ws1.stateFile)).state.values.sandboxEntrypoint).toBe(appEntrypointHash(script));
    const ws2 = new Workspace(root, { appEntrypoint: script + " # v2" });
    expect((await (await ws2.deploy([])).initialization).outcomes).toMatchObject([{ target: "app", status: "ran" }]);
    expect((await readFile(path.join(ws1.home, "app-runs"), "utf8")).split("\n").filter(Boolean)).toHaveLength(2);
  });

  it("reports versions without an entrypoint as absent", async () => {
    const ws = new Workspace(await tmp());
    const r = await ws.deploy([await pkg("none")]);
    expect((await r.initialization).outcomes).toMatchObject([{ status: "absent" }]);
  });

  it("refuses a missing package with a clear error and leaves the workspace as it was", async () => {
    const ws = new Workspace(await tmp());
    await expect(ws.deploy(["/nonexistent/pkg.zip"])).rejects.toThrow('invalid path "pkg.zip": package not found');
    await expect(ws.deploy([new Uint8Array([1, 2, 3])])).rejects.toThrow();
    expect(await readdir(ws.projectsDir)).toEqual([]);
    // The lock was released: a later deploy works.
    await (
      await ws.deploy([])
    ).initialization;
  });
});

describe("links planted by sandboxed code", () => {
  it("never makes the host write the state file outside the workspace", async () => {
    const ws = new Workspace(await tmp());
    const outside = await tmp();
    const r1 = await ws.deploy([
      await pkg("plant", `mkdir -p "$HOME" && rm -rf "$HOME/.fastgpt" && ln -s ${outside} "$HOME/.fastgpt"`),
    ]);
    const rep = await r1.initialization;
    expect(rep.outcomes).toMatchObject([{ status: "ran" }]);
    expect(rep.stateProblems).toEqual(["state file not written: INVALID_PATH"]);
    expect(await readdir(outside)).toEqual([]);
  });

  it("refuses to deploy when projects/ has been replaced by a link", async () => {
    const root = await tmp();
    const outside = await tmp();
    const { symlink } = await import("node:fs/promises");
    await symlink(outside, path.join(root, "projects"));
    await expect(new Workspace(root).deploy([await pkg("x")])).rejects.toThrow(
      /"projects": is a symbolic link or not a folder/,
    );
    expect(await readdir(outside)).toEqual([]);
  });
});

describe("scanSkills", () => {
  it("lists deployed skills with directory and SKILL.md path, skipping node_modules and .venv", async () => {
    const ws = new Workspace(await tmp());
    const dir = await writePackage(await tmp(), {
      skills: ["alpha", "beta"],
      files: { "skills/alpha/node_modules/x/SKILL.md": "---\nname: hidden\ndescription: no\n---\n" },
    });
    const r = await ws.deploy([dir]);
    await r.initialization;
    const v = r.versions[0]!.versionId;
    const scan = await ws.scanSkills();
    expect(scan.skills.map((s) => [s.id, s.versionId, s.relativeDir])).toEqual([
      ["alpha", v, "skills/alpha"],
      ["beta", v, "skills/beta"],
    ]);
    expect(scan.skills[0]!.skillMdPath).toBe(path.join(ws.projectsDir, v, "skills/alpha/SKILL.md"));
    const p = scan.provider;
    expect(await p.discover()).toEqual(["alpha", "beta"]);
    expect(await p.getMetadata("alpha")).toMatchObject({ name: "alpha" });
    expect(await p.getBody("beta")).toContain("# beta");
    expect(new TextDecoder().decode(await p.getScript("alpha", "run.sh"))).toBe("echo alpha ran\n");
    expect(await p.listResources("alpha")).toEqual({ references: [], scripts: ["run.sh"], assets: [] });
    expect((await p.listFiles("beta")).map((f) => f.path)).toEqual(["SKILL.md", "scripts/run.sh"]);
    await expect(p.readFile("alpha", "../beta/SKILL.md")).rejects.toThrow();
    await expect(p.getMetadata("nope")).rejects.toThrow(/skill not found/);
  });

  it("lists a skill with unusable frontmatter under its directory name, and honours maxSkills", async () => {
    const root = await tmp();
    const dir = await writePackage(await tmp(), {
      skills: ["good", "other"],
      files: { "extras/broken/SKILL.md": "no frontmatter here\n" },
    });
    const r = await new Workspace(root).deploy([dir]);
    await r.initialization;
    const scan = await new Workspace(root).scanSkills();
    expect(scan.skills.map((s) => s.id)).toEqual(["broken", "good", "other"]);
    expect(scan.diagnostics.map((d) => d.code)).toEqual(["frontmatter-missing", "skill-unparsed"]);
    const limited = await new Workspace(root, { scan: { maxSkills: 2 } }).scanSkills();
    expect(limited.skills).toHaveLength(2);
    expect(limited.diagnostics.at(-1)).toMatchObject({ code: "scan-limit", message: "stopped after 2 skills" });
  });

  it("qualifies a name shipped by two versions with its versionId", async () => {
    const ws = new Workspace(await tmp());
    const r = await ws.deploy([await pkg("one"), await pkg("two")]);
    await r.initialization; // settle before the temp dir is removed
    const ids = (await ws.scanSkills()).skills.map((s) => s.id);
    expect(ids).toEqual(r.versions.map((v) => `demo@${v.versionId}`).sort());
  });
});

describe("exec in a workspace", () => {
  it("runs a deployed skill script and returns the observation", async () => {
    const ws = new Workspace(await tmp());
    const r = await ws.deploy([await pkg("exec")]);
    await r.initialization;
    const v = r.versions[0]!.versionId;
    const out = await ws.exec("bash skills/demo/scripts/run.sh; echo fail >&2; exit 2", { cwd: `projects/${v}` });
    expect(out.observation).toBe("demo ran\nfail\n\nCommand exited with code 2");
  });
});

/** A package directory whose content equals an already deployed version (copied out of the workspace). */
async function pkgSame(versionId: string, ws: Workspace): Promise<string> {
  const dir = await tmp();
  const src = path.join(ws.projectsDir, versionId);
  const { cp } = await import("node:fs/promises");
  await cp(src, dir, { recursive: true, filter: (p) => !p.includes(`${path.sep}.runtime`) });
  return dir;
}

// Child processes: real concurrency and a real SIGKILL.
/** How many files the unpack in progress (<stateDir>/staging/.tmp-A/.tmp-package-B/data) has written so far; 0 before. */
function filesInTempData(stagingRoot: string): number {
  try {
    const staging = readdirSync(stagingRoot).find((n) => n.startsWith(".tmp-"));
    if (staging === undefined) return 0;
    const writing = readdirSync(path.join(stagingRoot, staging)).find((n) => n.startsWith(".tmp-"));
    return writing === undefined ? 0 : readdirSync(path.join(stagingRoot, staging, writing, "data")).length;
  } catch {
    return 0; // not created yet
  }
}

describe("cross-process safety", () => {
  let bundle: string;
  let bundleDir: { dir: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    bundleDir = await tempDir();
    bundle = await bundleRuntime(bundleDir.dir);
  });
  afterAll(() => bundleDir.cleanup());

  const childScript = (root: string, source: string) => `
    import { Workspace } from ${JSON.stringify(bundle)};
    const ws = new Workspace(${JSON.stringify(root)}, { sandbox: "process" });
    const r = await ws.deploy([${JSON.stringify(source)}], { onEvent: (e) => process.stdout.write(e.type + "\\n") });
    await r.initialization;
    process.stdout.write("versions " + r.versions.map((v) => v.versionId + ":" + v.status).join(",") + "\\n");
  `;
  function runChild(
    code: string,
    onLine?: (line: string, kill: () => void) => void,
  ): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d;
        for (const line of d.toString().split("\n")) if (line) onLine?.(line, () => child.kill("SIGKILL"));
      });
      child.stderr.on("data", (d: Buffer) => (err += d));
      child.on("close", (code, signal) => resolve({ code, signal, out, err }));
    });
  }

  it("two processes deploying into one workspace at once never corrupt it", async () => {
    const root = await tmp();
    const a = await pkg("concurrent-a", COUNT_RUNS);
    const b = await pkg("concurrent-b", COUNT_RUNS);
    const [ra, rb] = await Promise.all([runChild(childScript(root, a)), runChild(childScript(root, b))]);
    expect([ra.code, rb.code, ra.err, rb.err]).toEqual([0, 0, "", ""]);
    const va = /versions (\w+):deployed/.exec(ra.out)![1]!;
    const vb = /versions (\w+):deployed/.exec(rb.out)![1]!;
    // Whoever ran second removed the other's version; exactly one complete version remains, no temp dirs.
    const left = await readdir(path.join(root, "projects"));
    expect(left).toHaveLength(1);
    expect([va, vb]).toContain(left[0]);
    expect(await readFile(path.join(root, "projects", left[0]!, "tag.txt"), "utf8")).toBe(
      left[0] === va ? "concurrent-a" : "concurrent-b",
    );
    expect(
      (await readState(path.join(root, ".home/.fastgpt/runtime/state.json"))).state.values.skillEntrypoints,
    ).toEqual(left);
    await expect(stat(path.join(defaultStateDir(root), "deploy.lock"))).rejects.toThrow();
  });

  it("a deploy SIGKILLed midway leaves no half version; the next deploy recovers", async () => {
    const root = await tmp();
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 600; i++) files[`data/blob-${String(i).padStart(3, "0")}.bin`] = randomBytes(64 * 1024);
    const big = await writePackage(await tmp(), { skills: ["big"], files });
    const packed = await packDirectory(big, { compressionLevel: 0 });
    const archive = path.join(await tmp(), "big.zip");
    await writeFile(archive, packed.archive);

    // Kill while files are being written: as soon as the temp dir holds some of them (polled, not timed).
    let poll: NodeJS.Timeout | undefined;
    let writtenWhenKilled = 0;
    const killed = await runChild(childScript(root, archive), (line, kill) => {
      if (line !== "version-unpacking") return;
      poll = setInterval(() => {
        const written = filesInTempData(path.join(defaultStateDir(root), "staging"));
        if (written > 0) {
          writtenWhenKilled = written;
          kill();
          clearInterval(poll);
        }
      }, 1);
    });
    clearInterval(poll);
    expect(killed.signal).toBe("SIGKILL");
    expect(writtenWhenKilled).toBeGreaterThan(0);
    expect(writtenWhenKilled).toBeLessThan(600);
    expect(await readdir(path.join(root, "projects"))).toEqual([]);
    const staged = await readdir(path.join(defaultStateDir(root), "staging"));
    expect(staged.filter((n) => n.startsWith(".tmp-"))).toHaveLength(1); // the half-written unpack, never renamed
    // The dead process still "holds" the lock; its pid is gone, so the next deploy breaks it.
    await expect(stat(path.join(defaultStateDir(root), "deploy.lock"))).resolves.toBeTruthy();

    const ws = new Workspace(root, { sandbox: "process", lock: { waitMs: 10_000 } });
    const events: DeployEvent[] = [];
    const r = await ws.deploy([archive], { onEvent: (e) => events.push(e) });
    await r.initialization;
    expect(r.versions).toEqual([{ versionId: packed.versionId, status: "deployed", label: "big.zip" }]);
    expect(await readdir(path.join(root, "projects"))).toEqual([packed.versionId]);
    const blob = await readFile(path.join(root, "projects", packed.versionId, "data/blob-599.bin"));
    expect(createHash("sha256").update(blob).digest("hex")).toBe(
      createHash("sha256").update(files["data/blob-599.bin"]!).digest("hex"),
    );
    expect(staged.length).toBe(events.filter((e) => e.type === "temp-removed").length);
    expect(await readdir(path.join(defaultStateDir(root), "staging"))).toEqual([]);
  });
});
