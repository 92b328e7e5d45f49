import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { makeTempDir, removeDir } from "@skillport/testing";
import { GitSkillSource } from "./git/source.js";
import { parseGitAddress } from "./git/address.js";
import { stateFile } from "./test-support/cache.js";
import {
  commitAndPush,
  git,
  makeRepo,
  startGitDaemon,
  startHttpBackend,
  type RunningServer,
} from "./test-support/git-servers.js";

const skill = (name: string, body = "Body.") => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\n${body}\n`;

let root: string;
let base: string;
let daemon: RunningServer & { port: number };

beforeAll(async () => {
  root = await makeTempDir("skillport-git-");
  base = path.join(root, "srv");
  await import("node:fs/promises").then((fs) => fs.mkdir(base));
  daemon = await startGitDaemon(base);
});
afterAll(async () => {
  await daemon?.stop();
  await removeDir(root);
});

/**
 * The git subcommands run while `fn` runs, through a `git` on PATH that logs them and runs the real one; with `key`,
 * each followed by that configuration key's value as the command sees it (`git config --get`, empty when unset).
 */
async function gitCalls(fn: () => Promise<void>, key?: string): Promise<string[]> {
  const fs = await import("node:fs/promises");
  const bin = path.join(root, `git-log-${++n}`);
  await fs.mkdir(bin);
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const log = path.join(bin, "calls");
  // The subcommand is the first argument that is not an option nor the value of `-c`.
  const script = `#!/bin/sh\nprev=\nfor a in "$@"; do case "$prev$a" in -c*) ;; -*) ;; *) echo "$a${key === undefined ? "" : ` $('${real}' config --get ${key})`}" >> '${log}'; break;; esac; prev=$a; [ "$a" = -c ] || prev=; done\nexec '${real}' "$@"\n`;
  await fs.writeFile(path.join(bin, "git"), script, { mode: 0o755 });
  const saved = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${saved ?? ""}`;
  try {
    await fn();
  } finally {
    process.env.PATH = saved;
  }
  return (await fs.readFile(log, "utf8")).trim().split("\n");
}

/** Whether a checked-out copy (a `trees/<commit>-…` folder) exists under a source's cache folder. */
function hasTree(cacheDir: string): boolean {
  if (!existsSync(cacheDir)) return false;
  return readdirSync(cacheDir, { recursive: true, encoding: "utf8" }).some((p) => /trees\/[0-9a-f]{12}-/.test(p));
}

let n = 0;
async function repo(files: Record<string, string | Uint8Array>) {
  const name = `r${++n}`;
  const made = await makeRepo(base, name);
  const commit = await commitAndPush(made.work, files, "first");
  return { ...made, name, commit, url: `${daemon.url}/${name}.git`, cacheDir: path.join(root, "cache", name) };
}

describe("GitSkillSource over git daemon", () => {
  it("clones shallowly, reads skills/ and skips a file over the size limit without writing it", async () => {
    const r = await repo({
      "README.md": "not a skill\n",
      "skills/alpha/SKILL.md": skill("alpha"),
      "skills/alpha/references/notes.md": "# Notes\n",
      "skills/alpha/assets/huge.bin": new Uint8Array(5000),
      "other/beta/SKILL.md": skill("beta"),
    });
    const source = new GitSkillSource({ url: r.url, cacheDir: r.cacheDir, maxFileBytes: 2000 });
    expect(await source.discover()).toEqual(["alpha"]);
    expect((await source.getMetadata("alpha")).description).toBe("The alpha skill.");
    expect((await source.listFiles("alpha")).map((f) => f.path)).toEqual(["SKILL.md", "references/notes.md"]);
    expect(source.revision).toBe(r.commit);
    expect(source.servedPath).toBe("skills");
    expect(source.status().skipped).toContainEqual({
      where: "skills/alpha/assets/huge.bin",
      reason: expect.stringContaining("larger than the limit of 2000 bytes"),
    });
    const location = await source.getLocation("alpha");
    expect(existsSync(path.join(path.dirname(location), "assets", "huge.bin"))).toBe(false);
    // Only the skills folder is checked out.
    expect(existsSync(path.join(path.dirname(location), "..", "..", "README.md"))).toBe(false);
  });

  it("serves the repository root when it has no skills/ folder, and a configured path when given", async () => {
    const r = await repo({ "alpha/SKILL.md": skill("alpha"), "nested/set/beta/SKILL.md": skill("beta") });
    expect(await new GitSkillSource({ url: r.url, cacheDir: r.cacheDir }).discover()).toEqual(["alpha"]);
    const sub = new GitSkillSource({ url: r.url, path: "nested/set", cacheDir: `${r.cacheDir}-sub` });
    expect(await sub.discover()).toEqual(["beta"]);
    expect(sub.servedPath).toBe("nested/set");
    const missing = new GitSkillSource({ url: r.url, path: "nowhere", cacheDir: `${r.cacheDir}-none` });
    await expect(missing.discover()).rejects.toThrow(/has no folder "nowhere"/);
  });

  it("a first copy of the remote's HEAD: one clone names and brings the commit (no ls-remote first)", async () => {
    const r = await repo({ "skills/alpha/SKILL.md": skill("alpha"), "skills/alpha/notes.md": "# Notes\n" });
    const calls = await gitCalls(async () => {
      const source = new GitSkillSource({ url: r.url, cacheDir: r.cacheDir });
      expect(await source.discover()).toEqual(["alpha"]);
      expect(source.revision).toBe(r.commit);
      expect(path.basename(path.dirname(path.dirname(path.dirname(await source.getLocation("alpha")))))).toMatch(
        new RegExp(`^${r.commit.slice(0, 12)}-[0-9a-f]{8}$`),
      );
    });
    // clone, ls-tree and cat-file (side by side), read-tree, checkout-index: was 9 (ls-remote, init, remote add, fetch,
    // rev-list and the rest).
    expect(calls.sort()).toEqual(["cat-file", "checkout-index", "clone", "ls-tree", "read-tree"]);
  });

  it("the throwaway object store of a clone or a fetch is never fsynced (core.fsync=none for clone and fetch)", async () => {
    const r = await repo({ "skills/alpha/SKILL.md": skill("alpha") });
    const first = await gitCalls(async () => {
      expect(await new GitSkillSource({ url: r.url, cacheDir: r.cacheDir }).discover()).toEqual(["alpha"]);
    }, "core.fsync");
    expect(first).toContain("clone none");
    const pinned = await gitCalls(async () => {
      const source = new GitSkillSource({ url: r.url, ref: r.commit, cacheDir: `${r.cacheDir}-pinned` });
      expect(await source.discover()).toEqual(["alpha"]);
    }, "core.fsync");
    expect(pinned).toContain("fetch none");
    // Only the store that is removed after checkout: the commands that read it run as the user's configuration says.
    expect(first.filter((c) => c.endsWith(" none")).map((c) => c.split(" ")[0])).toEqual(["clone"]);
  });

  it("a first clone that times out is not asked again with ls-remote (one deadline, not two)", async () => {
    const net = await import("node:net");
    const held: import("node:net").Socket[] = [];
    const silent = net.createServer((socket) => held.push(socket)); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as import("node:net").AddressInfo;
    try {
      let error: unknown;
      const calls = await gitCalls(async () => {
        const source = new GitSkillSource({
          url: `git://127.0.0.1:${port}/none.git`,
          cacheDir: path.join(root, "cache", "silent"),
          timeoutMs: 1_500,
        });
        error = await source.discover().catch((e: unknown) => e);
      });
      expect(String(error)).toMatch(/clone .* took longer than 1500 ms/);
      expect(calls).toEqual(["clone"]);
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
    }
  });

  it("follows pushes: ls-remote on sync, a fetch only when the ref moved", async () => {
    const r = await repo({ "skills/alpha/SKILL.md": skill("alpha") });
    const source = new GitSkillSource({ url: r.url, cacheDir: r.cacheDir, syncIntervalMs: 60_000 });
    expect(await source.discover()).toEqual(["alpha"]);
    const first = await source.getLocation("alpha");

    const same = await source.sync();
    expect(same).toEqual({ revision: r.commit, changed: false, offline: false });
    expect(await source.getLocation("alpha")).toBe(first);

    const second = await commitAndPush(r.work, {
      "skills/beta/SKILL.md": skill("beta"),
      "skills/alpha/SKILL.md": skill("alpha", "New body."),
    });
    // Within the interval, reads do not ask the remote.
    expect(await source.discover()).toEqual(["alpha"]);
    expect(await source.sync()).toEqual({ revision: second, changed: true, offline: false });
    expect(await source.discover()).toEqual(["alpha", "beta"]);
    expect(await source.getBody("alpha")).toContain("New body.");
  });

  it("onFetch is told once per sync, while its first git command (the clone, then ls-remote) runs", async () => {
    const r = await repo({ "skills/alpha/SKILL.md": skill("alpha") });
    const told: { revision: string | undefined; trees: boolean }[] = [];
    const source: GitSkillSource = new GitSkillSource({
      url: r.url,
      cacheDir: r.cacheDir,
      onFetch: () => told.push({ revision: source.revision, trees: hasTree(r.cacheDir) }),
    });
    expect(told).toEqual([]);
    await source.sync();
    // Told while the clone ran: no copy kept yet, no checked-out tree.
    expect(told).toEqual([{ revision: undefined, trees: false }]);
    await source.sync();
    expect(told).toHaveLength(2);
    expect(told[1]?.revision).toBe(r.commit);
    expect(await source.discover()).toEqual(["alpha"]);
    expect(told).toHaveLength(2);
  });

  it("the clone's object store leaves the copy before sync returns and is then removed (no .tmp- folder stays)", async () => {
    const r = await repo({ "skills/alpha/SKILL.md": skill("alpha") });
    const source = new GitSkillSource({ url: r.url, cacheDir: r.cacheDir });
    await source.sync();
    const copy = path.dirname(path.dirname(path.dirname(await source.getLocation("alpha"))));
    expect(readdirSync(copy)).toEqual(["skills"]);
    const trees = path.dirname(copy);
    await vi.waitFor(() => expect(readdirSync(trees).filter((n) => n.startsWith(".tmp-"))).toEqual([]), {
      timeout: 10_000,
    });
    expect(readdirSync(trees)).toEqual([path.basename(copy)]);
  });

  it("with autoSync off, only sync() asks the remote (AgentScope's autoSync=false)", async () => {
    const r = await repo({ "skills/alpha/SKILL.md": skill("alpha") });
    const source = new GitSkillSource({ url: r.url, cacheDir: r.cacheDir, autoSync: false, syncIntervalMs: 0 });
    await expect(source.discover()).rejects.toThrow(/call sync\(\) first/);
    await source.sync();
    expect(await source.discover()).toEqual(["alpha"]);
    await commitAndPush(r.work, { "skills/beta/SKILL.md": skill("beta") });
    expect(await source.discover()).toEqual(["alpha"]);
    expect((await source.sync()).changed).toBe(true);
    expect(await source.discover()).toEqual(["alpha", "beta"]);
  });

  it("watch polls the remote and reports the ids that changed", async () => {
    const r = await repo({ "skills/alpha/SKILL.md": skill("alpha") });
    const source = new GitSkillSource({ url: r.url, cacheDir: r.cacheDir, syncIntervalMs: 0 });
    expect(await source.discover()).toEqual(["alpha"]);
    const reported = new Promise<string[]>((resolve) => {
      const stop = source.watch(
        (ids) => {
          stop();
          resolve(ids);
        },
        { minWatchMs: 50 },
      );
    });
    await commitAndPush(r.work, { "skills/delta/SKILL.md": skill("delta") });
    expect(await reported).toEqual(["alpha", "delta"]);
  });

  it("with syncIntervalMs 0 every read checks the remote", async () => {
    const r = await repo({ "skills/alpha/SKILL.md": skill("alpha") });
    const source = new GitSkillSource({ url: r.url, cacheDir: r.cacheDir, syncIntervalMs: 0 });
    expect(await source.discover()).toEqual(["alpha"]);
    await commitAndPush(r.work, { "skills/gamma/SKILL.md": skill("gamma") });
    expect(await source.discover()).toEqual(["alpha", "gamma"]);
  });

  it("pins a tag or a commit", async () => {
    const r = await repo({ "skills/alpha/SKILL.md": skill("alpha", "Version one.") });
    git(r.work, "tag", "-a", "v1", "-m", "v1");
    git(r.work, "push", "-q", "origin", "v1");
    await commitAndPush(r.work, { "skills/alpha/SKILL.md": skill("alpha", "Version two.") });
    const tagged = new GitSkillSource({ url: r.url, ref: "v1", cacheDir: `${r.cacheDir}-tag`, syncIntervalMs: 0 });
    expect(await tagged.getBody("alpha")).toContain("Version one.");
    expect(tagged.revision).toBe(r.commit);
    const branch = new GitSkillSource({ url: r.url, ref: "main", cacheDir: `${r.cacheDir}-main` });
    expect(await branch.getBody("alpha")).toContain("Version two.");
    const pinned = GitSkillSource.fromAddress(`git://127.0.0.1:${daemon.port}/${r.name}.git#${r.commit}:skills`, {
      cacheDir: `${r.cacheDir}-pin`,
    });
    expect(await pinned.getBody("alpha")).toContain("Version one.");
    const unknown = new GitSkillSource({ url: r.url, ref: "v9", cacheDir: `${r.cacheDir}-v9` });
    await expect(unknown.discover()).rejects.toThrow(/no branch or tag "v9"/);
  });

  it("serves the last good copy when the remote is unreachable, reports it, and a restart reuses the copy", async () => {
    const r = await repo({ "skills/alpha/SKILL.md": skill("alpha") });
    const own = await startGitDaemon(base);
    const url = `${own.url}/${r.name}.git`;
    const source = new GitSkillSource({ url, cacheDir: r.cacheDir, syncIntervalMs: 0, timeoutMs: 20_000 });
    expect(await source.discover()).toEqual(["alpha"]);
    await own.stop();

    const result = await source.sync();
    expect(result.offline).toBe(true);
    expect(result.error).toMatch(/ls-remote/);
    expect(await source.discover()).toEqual(["alpha"]);
    expect(await source.getBody("alpha")).toContain("Body.");
    expect(source.status()).toMatchObject({ offline: true, revision: r.commit });

    // A new process with the same cache: serves the clone at once, and within the interval asks nothing.
    const restarted = new GitSkillSource({ url, cacheDir: r.cacheDir, syncIntervalMs: 3_600_000 });
    expect(await restarted.discover()).toEqual(["alpha"]);
    expect(restarted.status()).toMatchObject({ offline: false, revision: r.commit });

    // No copy at all and no remote: an error naming the address.
    const fresh = new GitSkillSource({ url, cacheDir: `${r.cacheDir}-fresh` });
    await expect(fresh.discover()).rejects.toThrow(/ls-remote git:\/\/127\.0\.0\.1/);
    await expect(fresh.discover()).rejects.toMatchObject({ code: "PROVIDER_UNAVAILABLE" });
  });
});

describe("GitSkillSource attacks", () => {
  it("never runs the ext:: transport (a URL that would run a command)", async () => {
    const marker = path.join(root, "ext-ran");
    const source = new GitSkillSource({
      url: `ext::sh -c touch% ${marker}`,
      cacheDir: path.join(root, "cache", "ext"),
      timeoutMs: 20_000,
    });
    await expect(source.discover()).rejects.toThrow(/ls-remote/);
    expect(existsSync(marker)).toBe(false);
    expect(() => new GitSkillSource({ url: "--upload-pack=touch /tmp/x" })).toThrow(/needs a repository URL/);
  });

  it("a committed link leaving the skill is refused by the filesystem policy, not followed", async () => {
    const secret = path.join(root, "host-secret.txt");
    await import("node:fs/promises").then((fs) => fs.writeFile(secret, "host secret\n"));
    const made = await makeRepo(base, "links");
    await import("node:fs/promises").then(async (fs) => {
      await fs.mkdir(path.join(made.work, "skills", "alpha", "references"), { recursive: true });
      await fs.writeFile(path.join(made.work, "skills", "alpha", "SKILL.md"), skill("alpha"));
      await fs.symlink(secret, path.join(made.work, "skills", "alpha", "references", "leak.md"));
    });
    await commitAndPush(made.work, {}, "links");
    const source = new GitSkillSource({ url: `${daemon.url}/links.git`, cacheDir: path.join(root, "cache", "links") });
    expect(await source.discover()).toEqual(["alpha"]);
    await expect(source.getReference("alpha", "leak.md")).rejects.toThrow();
    await expect(source.readFile("alpha", "references/leak.md")).rejects.toThrow(/outside|link/i);
  });
});

describe("GitSkillSource: names git's pattern language would misread (issue 19)", () => {
  // Before, the checkout was chosen by sparse-checkout patterns built from repository paths: a folder name ending in a
  // newline split one pattern into two, so a top-level file was checked out and the file over the limit was not left
  // out. Now files are named to git literally; every name below must leave the tree holding only skills/.
  const names = ["a\n", "a\r", "a\n!b", "a\t", "*", "a?", "[ab]", "!a", "#a", "a\\", "\\!a", " a", "a ", "a  ", "**"];
  it.each(names)("folder %j: nothing outside skills/, nothing over the limit", async (name) => {
    const r = await repo({
      "big.bin": "top-level file, not a skill\n",
      "notes.txt": "top-level\n",
      "skills/ok/SKILL.md": skill("ok"),
      [`skills/${name}/SKILL.md`]: skill("odd"),
      [`skills/${name}/big.bin`]: new Uint8Array(5000),
      [`skills/${name}/notes.txt`]: "inside\n",
    });
    const source = new GitSkillSource({ url: `file://${r.bare}`, cacheDir: r.cacheDir, maxFileBytes: 2000 });
    expect(await source.discover()).toContain("ok");
    const tree = path.resolve(path.dirname(await source.getLocation("ok")), "..", "..");
    const files = (
      await import("node:fs/promises").then((fs) => fs.readdir(tree, { recursive: true, withFileTypes: true }))
    )
      .filter((e) => !e.isDirectory())
      .map((e) => path.relative(tree, path.join(e.parentPath, e.name)));
    expect(files.filter((f) => !f.startsWith(`skills${path.sep}`))).toEqual([]);
    expect(files.sort()).toEqual(["skills/ok/SKILL.md", `skills/${name}/SKILL.md`, `skills/${name}/notes.txt`].sort());
    expect(source.status().skipped).toContainEqual({
      where: `skills/${name}/big.bin`,
      reason: expect.stringContaining("larger than the limit"),
    });
  });
});

describe("GitSkillSource: a path that is one skill folder (issue 20, item 8)", () => {
  it("serves that skill alone, from its parent, and nothing beside it", async () => {
    const r = await repo({
      "skills/pdf/SKILL.md": skill("pdf"),
      "skills/pdf/scripts/fill.py": "print('fill')\n",
      "skills/other/SKILL.md": skill("other"),
      "skills/notes.md": "not a skill\n",
    });
    const folder = new GitSkillSource({ url: r.url, path: "skills/pdf", cacheDir: r.cacheDir });
    expect(await folder.discover()).toEqual(["pdf"]);
    expect((await folder.listFiles("pdf")).map((f) => f.path)).toEqual(["SKILL.md", "scripts/fill.py"]);
    expect(folder.status().skipped).toEqual([]);
    const address = GitSkillSource.fromAddress(`git://127.0.0.1:${daemon.port}/${r.name}.git#main:skills/pdf`, {
      cacheDir: `${r.cacheDir}-address`,
    });
    expect(await address.discover()).toEqual(["pdf"]);
    expect(await address.getBody("pdf")).toContain("Body.");
    // A folder of skills is still one.
    expect(await new GitSkillSource({ url: r.url, path: "skills", cacheDir: `${r.cacheDir}-all` }).discover()).toEqual([
      "other",
      "pdf",
    ]);
  });

  it("a top-level skill folder is served the same way", async () => {
    const r = await repo({ "pdf/SKILL.md": skill("pdf"), "README.md": "readme\n" });
    expect(await new GitSkillSource({ url: r.url, path: "pdf", cacheDir: r.cacheDir }).discover()).toEqual(["pdf"]);
  });

  it("a repository that is itself one skill is served as that skill, named after the repository", async () => {
    const r = await repo({ "SKILL.md": skill(`r${n + 1}`), "scripts/run.sh": "echo\n" });
    const source = new GitSkillSource({ url: r.url, cacheDir: r.cacheDir });
    expect(await source.discover()).toEqual([r.name]);
    expect((await source.listFiles(r.name)).map((f) => f.path)).toEqual(["SKILL.md", "scripts/run.sh"]);
    expect(source.status().skipped).toEqual([]);
  });
});

describe("GitSkillSource over git http-backend", () => {
  let server: RunningServer & { requests: string[] };
  beforeAll(async () => {
    server = await startHttpBackend(base, { credentials: "reader:s3cret-token" });
  });
  afterAll(async () => server?.stop());

  it("clones over smart HTTP with credentials from the address, which never appear in names, messages or the clone", async () => {
    const r = await repo({ "skills/alpha/SKILL.md": skill("alpha") });
    const address = `git+http://reader:s3cret-token@${server.url.slice("http://".length)}/${r.name}.git#main`;
    const source = GitSkillSource.fromAddress(address, { cacheDir: r.cacheDir });
    expect(source.name).not.toContain("s3cret");
    expect(source.name).toContain("reader:***@");
    expect(await source.discover()).toEqual(["alpha"]);
    expect(server.requests.some((line) => line.includes("git-upload-pack"))).toBe(true);
    const state = await import("node:fs/promises").then((fs) => fs.readFile(stateFile(r.cacheDir), "utf8"));
    expect(state).not.toContain("s3cret");

    const wrong = GitSkillSource.fromAddress(address.replace("s3cret-token", "wrong-secret"), {
      cacheDir: `${r.cacheDir}-wrong`,
    });
    const error = (await wrong.discover().catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).not.toContain("wrong-secret");
    expect(error.message).toMatch(/ls-remote http:\/\/127\.0\.0\.1/);
  });
});

describe("parseGitAddress", () => {
  it.each([
    ["git+https://host/r.git", { url: "https://host/r.git" }],
    ["git+https://host/r.git#v1", { url: "https://host/r.git", ref: "v1" }],
    ["git+https://host/r.git#v1:skills/x", { url: "https://host/r.git", ref: "v1", path: "skills/x" }],
    ["git+https://host/r.git#:skills", { url: "https://host/r.git", path: "skills" }],
    [
      "git+https://u:p%40ss@host/r.git",
      { url: "https://host/r.git", username: "u", password: "p@ss", display: "git+https://u:***@host/r.git" },
    ],
    ["git+ssh://git@host/r.git", { url: "ssh://git@host/r.git" }],
    ["git://127.0.0.1:9418/r.git", { url: "git://127.0.0.1:9418/r.git" }],
    ["git+file:///srv/r.git#main", { url: "file:///srv/r.git", ref: "main" }],
    ["git+file://rel/r.git", { url: "file:///work/rel/r.git" }],
  ])("%s", (address, expected) => {
    expect(parseGitAddress(address, "/work")).toMatchObject(expected);
  });

  it.each([
    "git+https://host/r.git#--upload-pack=x",
    "git+https://host/r.git#a..b",
    "git+https://host/r.git#main:../x",
    "git+https://host/r.git#%E0%A4%A",
    "git+https://-oProxyCommand=x/r.git",
    "https://host/r.git",
    "git+ext::sh -c x",
  ])("refuses %s", (address) => {
    expect(() => parseGitAddress(address, "/work")).toThrow();
  });
});
