// Issue 8, holes 3 and 4 and the deploy FIFO weakness: nothing sandboxed code writes into the workspace may steer the
// host. On a non-root host sandboxed code runs as the host's own uid, so it can write everything under the workspace
// root; these tests plant what it could plant (directly, or with a poller while a deploy runs) and check that deploy
// and exec neither write through it nor trust it. Each one failed on the code before the state folder (decision 0140).
import { describe, expect, it } from "vitest";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, lstatSync, readdirSync, symlinkSync } from "node:fs";
import {
  chmod,
  chown,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  symlink,
  truncate,
  writeFile,
} from "node:fs/promises";
import os from "node:os";
import { createHash, randomBytes } from "node:crypto";
import path from "node:path";
import { LimitExceededError } from "@skillport/core";
import { packDirectory } from "@skillport/pack";
import { Workspace, type DeployEvent } from "./workspace.js";
import { bundleRuntime, haveBubblewrap, useTempDirs, writePackage } from "./__fixtures__/helpers.js";

const canRunUnprivileged = process.getuid?.() === 0 && haveBubblewrap(console.warn) && existsSync("/usr/bin/setpriv");

const { tmp, defer } = useTempDirs();
/** A workspace with its state folder in a temp dir of its own (cleaned up). */
async function workspace(options: ConstructorParameters<typeof Workspace>[1] = {}): Promise<Workspace> {
  const ws = new Workspace(await tmp(), { sandbox: "process", stateDir: path.join(await tmp(), "state"), ...options });
  defer(() => ws.close());
  return ws;
}
async function pkg(tag: string, entrypoint?: string, files: Record<string, string | Uint8Array> = {}): Promise<string> {
  return writePackage(await tmp(), { entrypoint, files: { "tag.txt": tag, ...files } });
}

describe("hole 3: deploy never writes through links planted in the workspace", () => {
  it(
    "a link planted in the unpack in progress (skills/zzz -> victim) receives nothing",
    { timeout: 120_000 },
    async () => {
      const ws = await workspace();
      const victim = await tmp();
      // Big files between skills/demo and skills/zzz make the unpack yield to the event loop there, as a real
      // concurrent writer would find time to act.
      const files: Record<string, string | Uint8Array> = {
        "skills/zzz/authorized_keys": "ssh-ed25519 AAAA attacker\n",
      };
      for (let i = 0; i < 4; i++) files[`skills/demo/m-big/blob-${i}.bin`] = randomBytes(5 * 1024 * 1024);
      const source = await writePackage(await tmp(), { skills: ["demo", "zzz"], files });
      const packed = await packDirectory(source, { compressionLevel: 0 });

      // The attacker sees only the workspace: it plants skills/zzz in any unpack folder it can find there.
      let planted = 0;
      const plant = () => {
        for (const dir of findSkillsDirs(ws.root)) {
          try {
            symlinkSync(victim, path.join(dir, "zzz"));
            planted++;
          } catch {
            // already there, or gone
          }
        }
      };
      const poller = setInterval(plant, 1);
      try {
        const r = await ws.deploy([packed.archive], { runEntrypoints: false });
        expect(r.versions).toEqual([{ versionId: packed.versionId, status: "deployed", label: "bytes[0]" }]);
      } finally {
        clearInterval(poller);
      }
      expect(await readdir(victim)).toEqual([]);
      const keys = path.join(ws.projectsDir, packed.versionId, "skills/zzz/authorized_keys");
      expect(lstatSync(path.dirname(keys)).isDirectory()).toBe(true);
      expect(await readFile(keys, "utf8")).toBe("ssh-ed25519 AAAA attacker\n");
      expect(planted).toBe(0); // nothing to plant into: staging is in the host-only state folder
    },
  );
});

describe("hole 3, as reported: a concurrent sandboxed exec on a non-root host", () => {
  // The host process runs as an unprivileged user (setpriv from this root test runner), so bubblewrap maps the sandbox
  // to that same user, which can write everything under the workspace: the situation of hole 3.
  it.runIf(canRunUnprivileged)(
    "a bwrap command planting skills/zzz -> victim while deploy runs writes nothing there",
    { timeout: 120_000 },
    async () => {
      const base = await mkdtemp(path.join(os.tmpdir(), "skillport-unprivileged-"));
      defer(() => rm(base, { recursive: true, force: true }));
      await chmod(base, 0o755);
      const bundle = await bundleRuntime(base);
      const root = path.join(base, "ws");
      const victim = path.join(base, "victim");
      for (const dir of [root, victim]) await mkdir(dir);
      const files: Record<string, string | Uint8Array> = {
        "skills/zzz/authorized_keys": "ssh-ed25519 AAAA attacker\n",
      };
      for (let i = 0; i < 4; i++) files[`skills/demo/m-big/blob-${i}.bin`] = randomBytes(5 * 1024 * 1024);
      const packed = await packDirectory(await writePackage(await tmp(), { skills: ["demo", "zzz"], files }), {
        compressionLevel: 0,
      });
      const archive = path.join(base, "pkg.zip");
      await writeFile(archive, packed.archive);
      for (const p of [base, root, victim, archive]) await chown(p, 65534, 65534);
      const script = `
      import { existsSync, writeFileSync } from "node:fs";
      import { Workspace } from ${JSON.stringify(bundle)};
      const root = ${JSON.stringify(root)};
      const ws = new Workspace(root, { sandbox: "bubblewrap" });
      const attacker = ws.exec('touch started; while [ ! -f stop ]; do for d in projects/.tmp-*/.tmp-package-*/skills; do [ -d "$d" ] && ln -s ${victim} "$d/zzz" 2>/dev/null; done; done; echo stopped', { timeout: 100 });
      while (!existsSync(root + "/started")) await new Promise((r) => setTimeout(r, 10));
      let versions, error;
      try { versions = (await ws.deploy([${JSON.stringify(archive)}], { runEntrypoints: false })).versions; } catch (e) { error = String(e); }
      writeFileSync(root + "/stop", "");
      const a = await attacker;
      await ws.close();
      process.stdout.write(JSON.stringify({ versions, error, attacker: a.observation }));
    `;
      const child = spawn(
        "/usr/bin/setpriv",
        ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "--input-type=module", "-e", script],
        {
          cwd: base,
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: base },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let out = "";
      let err = "";
      child.stdout.on("data", (d: Buffer) => (out += d));
      child.stderr.on("data", (d: Buffer) => (err += d));
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect([code, err]).toEqual([0, ""]);
      const result = JSON.parse(out) as { versions?: unknown; error?: string; attacker: string };
      expect(result.attacker).toContain("stopped");
      expect(await readdir(victim)).toEqual([]);
      expect(result.error).toBeUndefined();
      expect(result.versions).toEqual([{ versionId: packed.versionId, status: "deployed", label: "pkg.zip" }]);
      expect(await readFile(path.join(root, "projects", packed.versionId, "skills/zzz/authorized_keys"), "utf8")).toBe(
        "ssh-ed25519 AAAA attacker\n",
      );
    },
  );
});

describe("hole 4: the deploy cache and records live where sandboxed code cannot write", () => {
  it("keeps the lock, index, manifests, records and staging outside the workspace; refuses a state folder inside it", async () => {
    const ws = await workspace();
    const r = await ws.deploy([await pkg("where", "echo ok")]);
    await r.initialization;
    const v = r.versions[0]!.versionId;
    expect((await readdir(ws.root)).sort()).toEqual([".home", "projects"]);
    expect((await readdir(ws.stateDir)).sort()).toEqual(["archives.json", "entrypoints.json", "staging", "versions"]);
    expect(await readdir(path.join(ws.stateDir, "versions"))).toEqual([`${v}.json`]);
    expect(() => new Workspace(ws.root, { stateDir: path.join(ws.root, "state") })).toThrow(
      /state folder must be outside the workspace/,
    );
    expect(() => new Workspace(ws.root, { stateDir: ws.root })).toThrow(/state folder must be outside the workspace/);
    // Inside by real path (through a link the host made): refused when deploy prepares it.
    const alias = path.join(await tmp(), "alias");
    await symlink(ws.root, alias);
    await expect(new Workspace(ws.root, { stateDir: path.join(alias, "state") }).deploy([])).rejects.toThrow(
      /state folder must be outside the workspace/,
    );
    expect((await readdir(ws.root)).sort()).toEqual([".home", "projects"]); // nothing created before the check
  });

  it("a rewritten archive index in the workspace cannot redirect a clean archive to another version", async () => {
    const ws = await workspace();
    const clean = await packDirectory(await pkg("clean"));
    const evil = await packDirectory(await pkg("evil", 'echo evil >> "$HOME/evil-ran"'));
    await (
      await ws.deploy([clean.archive, evil.archive])
    ).initialization;
    // What a malicious entrypoint could write with write access to the workspace (the old cache location).
    const index = { [createHash("sha256").update(clean.archive).digest("hex")]: evil.versionId };
    await mkdir(path.join(ws.root, ".skillport"), { recursive: true });
    await writeFile(path.join(ws.root, ".skillport/archives.json"), JSON.stringify(index));
    const r = await ws.deploy([clean.archive]);
    await r.initialization;
    expect(r.versions.map((v) => v.versionId)).toEqual([clean.versionId]);
    expect(await readdir(ws.projectsDir)).toEqual([clean.versionId]);
  });

  it.each([
    [
      "a changed file",
      async (dir: string) =>
        writeFile(path.join(dir, "skills/demo/SKILL.md"), "---\nname: demo\ndescription: hijacked\n---\n"),
    ],
    ["a deleted file", async (dir: string) => rm(path.join(dir, "tag.txt"))],
    [
      "a file replaced by a link",
      async (dir: string) => {
        await rm(path.join(dir, "tag.txt"));
        await symlink("/etc/hostname", path.join(dir, "tag.txt"));
      },
    ],
  ])("a deployed version with %s is not 'present': it is unpacked again", async (_name, tamper) => {
    const ws = await workspace();
    const source = await pkg("tamper");
    const r1 = await ws.deploy([source]);
    await r1.initialization;
    const v = r1.versions[0]!.versionId;
    const original = await readFile(path.join(ws.projectsDir, v, "skills/demo/SKILL.md"), "utf8");
    await tamper(path.join(ws.projectsDir, v));
    const events: DeployEvent[] = [];
    const r2 = await ws.deploy([source], { onEvent: (e) => events.push(e) });
    const report = await r2.initialization;
    expect(r2.versions).toEqual([{ versionId: v, status: "deployed", label: path.basename(source) }]);
    expect(events.filter((e) => e.type === "version-replaced")).toHaveLength(1);
    expect(await readFile(path.join(ws.projectsDir, v, "skills/demo/SKILL.md"), "utf8")).toBe(original);
    expect(await readFile(path.join(ws.projectsDir, v, "tag.txt"), "utf8")).toBe("tamper");
    expect(report.outcomes).toMatchObject([{ target: v, status: "absent" }]);
    expect(existsSync(path.join(ws.home, "planted-ran"))).toBe(false);
  });

  // Decision 0321: host-only state files are read through schemas; a damaged one is said and rebuilt, never trusted.
  it.each([
    [
      "the archive index, truncated",
      "archives.json",
      (t: string) => t.slice(0, 5),
      /the archive index \(archives\.json\) is not JSON/,
    ],
    [
      "the archive index, foreign",
      "archives.json",
      () => JSON.stringify({ abc: 42 }),
      /archives\.json\) is not the expected shape: at abc, expected string/,
    ],
    [
      "a version manifest, of another version",
      "versions/V.json",
      () => JSON.stringify({ versionId: "other", files: [] }),
      /version \w+: its manifest in the state folder is not the expected shape: at versionId/,
    ],
    [
      "a version manifest, truncated",
      "versions/V.json",
      (t: string) => t.slice(0, t.length - 3),
      /its manifest in the state folder is not JSON .*; unpacking it again/,
    ],
  ])("%s: said, and rebuilt", async (_name, file, damage, message) => {
    const ws = await workspace();
    const archive = (await packDirectory(await pkg("state"))).archive; // bytes: the archive index is consulted
    const r1 = await ws.deploy([archive]);
    await r1.initialization;
    const v = r1.versions[0]!.versionId;
    const target = path.join(ws.stateDir, file.replace("V", v));
    const before = await readFile(target, "utf8");
    await writeFile(target, damage(before));
    const events: DeployEvent[] = [];
    const r2 = await ws.deploy([archive], { onEvent: (e) => events.push(e) });
    await r2.initialization;
    expect(r2.versions).toMatchObject([{ versionId: v, status: "present" }]); // the folder itself was never touched
    expect(events.filter((e) => e.type === "state-problem").map((e) => (e as { message: string }).message)).toEqual([
      expect.stringMatching(message),
    ]);
    expect(JSON.parse(await readFile(target, "utf8"))).toEqual(JSON.parse(before));
    const quiet: DeployEvent[] = [];
    await (
      await ws.deploy([archive], { onEvent: (e) => quiet.push(e) })
    ).initialization;
    expect(quiet.filter((e) => e.type === "state-problem")).toEqual([]);
  });

  it("an entrypoint.sh added to a deployed version never runs (extra files are allowed: an entrypoint installs)", async () => {
    const ws = await workspace();
    const source = await pkg("added");
    const r1 = await ws.deploy([source]);
    await r1.initialization;
    const v = r1.versions[0]!.versionId;
    await writeFile(path.join(ws.projectsDir, v, "entrypoint.sh"), 'echo planted >> "$HOME/planted-ran"');
    const r2 = await ws.deploy([source]);
    expect(r2.versions[0]).toMatchObject({ versionId: v, status: "present" });
    expect((await r2.initialization).outcomes).toMatchObject([{ target: v, status: "absent" }]);
    expect(existsSync(path.join(ws.home, "planted-ran"))).toBe(false);
  });

  it("a version folder planted before its first deploy is not trusted, and its planted entrypoint never runs", async () => {
    const ws = await workspace();
    const source = await pkg("preplanted");
    const v = (await packDirectory(source)).versionId;
    await mkdir(path.join(ws.projectsDir, v), { recursive: true });
    await writeFile(path.join(ws.projectsDir, v, "entrypoint.sh"), 'echo planted >> "$HOME/planted-ran"');
    const r = await ws.deploy([source]);
    const report = await r.initialization;
    expect(r.versions[0]).toMatchObject({ versionId: v, status: "deployed" });
    expect(report.outcomes).toMatchObject([{ target: v, status: "absent" }]);
    expect(existsSync(path.join(ws.home, "planted-ran"))).toBe(false);
    expect(existsSync(path.join(ws.projectsDir, v, "entrypoint.sh"))).toBe(false);
  });

  it("projects/ replaced by a link is neither deployed into nor scanned", async () => {
    const ws = await workspace();
    const r = await ws.deploy([await pkg("scan")]);
    await r.initialization;
    const outside = await tmp();
    await rename(ws.projectsDir, path.join(outside, "projects"));
    await symlink(path.join(outside, "projects"), ws.projectsDir);
    const scan = await ws.scanSkills(r.versions.map((v) => v.versionId));
    expect(scan.skills).toEqual([]);
    expect(scan.diagnostics).toMatchObject([{ code: "scan-link-outside" }]);
    expect(await ws.deployedVersions()).toEqual([]);
    await expect(ws.deploy([await pkg("scan-2")])).rejects.toThrow(/"projects": is a symbolic link or not a folder/);
    expect(await readdir(path.join(outside, "projects"))).toEqual([r.versions[0]!.versionId]);
  });

  it("a fake deploy.lock in the workspace does not block deploys", async () => {
    const ws = await workspace({ lock: { waitMs: 500, pollMs: 10 } });
    // Owned by a live process (the test runner's parent), so it would never be judged stale.
    await mkdir(path.join(ws.root, ".skillport/deploy.lock"), { recursive: true });
    await writeFile(
      path.join(ws.root, ".skillport/deploy.lock/owner.json"),
      JSON.stringify({ pid: process.ppid, since: Date.now() }),
    );
    const r = await ws.deploy([await pkg("unblocked")]);
    await r.initialization;
    expect(r.versions[0]!.status).toBe("deployed");
  });

  it("a forged FastGPT state.json never makes a failed entrypoint skip: it is retried", async () => {
    const ws = await workspace();
    const flaky = 'if [ -f "$HOME/second" ]; then echo ok; exit 0; fi; touch "$HOME/second"; exit 3';
    const r1 = await ws.deploy([await pkg("forged", flaky)]);
    const v = r1.versions[0]!.versionId;
    expect((await r1.initialization).outcomes).toMatchObject([{ status: "failed" }]);
    // Sandboxed code forges the record in its HOME.
    await writeFile(ws.stateFile, JSON.stringify({ values: { skillEntrypoints: [v] } }));
    const r2 = await ws.deploy([path.join(ws.projectsDir, v)]);
    expect((await r2.initialization).outcomes).toMatchObject([{ target: v, status: "ran", stdoutTail: "ok\n" }]);
    // The compatibility copy is still written, from the host's own records.
    expect(JSON.parse(await readFile(ws.stateFile, "utf8"))).toEqual({ values: { skillEntrypoints: [v] } });
  });

  it.each([".home", ".skillport"])(
    "%s replaced by a link: exec neither creates folders outside nor fails",
    async (name) => {
      const ws = await workspace();
      const outside = await tmp();
      await symlink(path.join(outside, "deep", "er"), path.join(ws.root, name));
      const r = await ws.exec("seq 1 3000; echo done");
      expect(r.exitCode).toBe(0);
      expect(r.observation).toContain("done");
      expect(await readdir(outside)).toEqual([]);
      expect(lstatSync(path.join(ws.root, name)).isDirectory()).toBe(true);
      expect(r.fullOutputPath).toMatch(/^\.skillport\/outputs\/exec-/);
      expect((await readFile(path.join(ws.root, r.fullOutputPath!), "utf8")).split("\n")[2999]).toBe("3000");
    },
  );
});

describe("weakness: deploy judges an archive path before reading it", () => {
  it("refuses a FIFO without waiting for a writer", { timeout: 30_000 }, async () => {
    const ws = await workspace();
    const fifo = path.join(await tmp(), "pkg.zip");
    execFileSync("mkfifo", [fifo]);
    await expect(ws.deploy([fifo])).rejects.toThrow(/"pkg.zip": is not a regular file or a folder/);
  });

  it("refuses an oversized archive by its size, before reading it", async () => {
    const ws = await workspace();
    const huge = path.join(await tmp(), "huge.zip");
    await writeFile(huge, "");
    await truncate(huge, 3 * 1024 * 1024 * 1024); // sparse: 3 GiB that costs nothing to create
    const error = await ws.deploy([huge]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LimitExceededError);
    expect((error as Error).message).toMatch(/"huge.zip" is larger than the 52428800-byte archive limit/);
  });
});

/** `skills` folders of unpacks in progress anywhere under the workspace (what a sandboxed poller could reach). */
function findSkillsDirs(root: string): string[] {
  const found: string[] = [];
  const visit = (dir: string, depth: number) => {
    if (depth > 4) return;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const full = path.join(dir, e.name);
      if (e.name === "skills" && full.includes(`${path.sep}.tmp-`)) found.push(full);
      else if (e.name.startsWith(".tmp-") || e.name === "projects" || e.name === "package") visit(full, depth + 1);
    }
  };
  visit(root, 0);
  return found;
}
