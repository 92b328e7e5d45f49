// git, HTTP and npm addresses through the BUILT binary: a git daemon and git http-backend (with credentials) and a
// well-known index server on 127.0.0.1, and a node_modules tree. The cache goes to a temp folder.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir } from "@skillport/testing";
import {
  commitAndPush,
  makeRepo,
  startGitDaemon,
  startHttpBackend,
  type RunningServer,
} from "../../remote/src/test-support/git-servers.js";
import { publish, startHttpServer, type TestHttpServer } from "../../remote/src/test-support/http-server.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = path.join(repo, "packages/cli/dist/cli.js");
const SECRET = "tok3n-never-printed";
const skillMd = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nSteps.\n`;

let root: string;
let cache: string;
let daemon: RunningServer & { port: number };
let backend: RunningServer;
let web: TestHttpServer;

/** Runs the binary asynchronously (the servers live in this process, so a blocking spawn would starve them). */
function skillport(args: string[], cacheDir = cache): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { ...process.env, SKILLPORT_CACHE_DIR: cacheDir, FORCE_COLOR: "0", NO_COLOR: "1" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  root = await makeTempDir("skillport-cli-remote-");
  cache = path.join(root, "cache");
  const base = path.join(root, "srv");
  await mkdir(base);
  const { work } = await makeRepo(base, "team");
  await commitAndPush(work, {
    "skills/pdf-forms/SKILL.md": skillMd("pdf-forms", "Fill PDF forms. Use when the user has a PDF form to complete."),
    "skills/pdf-forms/references/fields.md": "# Fields\n",
    // Over the 10 MiB default: never downloaded (the servers allow filters), never checked out, reported.
    "skills/pdf-forms/assets/scan.bin": new Uint8Array(11 * 1024 * 1024),
    "skills/release-notes/SKILL.md": skillMd(
      "release-notes",
      "Write release notes from git history. Use when preparing a release.",
    ),
  });
  daemon = await startGitDaemon(base);
  backend = await startHttpBackend(base, { credentials: `reader:${SECRET}` });
  web = await startHttpServer();
  publish(web, [
    {
      name: "weather",
      type: "skill-md",
      file: "weather/SKILL.md",
      bytes: skillMd("weather", "Brief the weather. Use when asked about the forecast."),
    },
  ]);
  const pkg = path.join(root, "node_modules", "@acme", "skills");
  await mkdir(path.join(pkg, "skills", "csv-tools"), { recursive: true });
  await writeFile(path.join(pkg, "package.json"), JSON.stringify({ name: "@acme/skills", version: "2.0.0" }));
  await writeFile(
    path.join(pkg, "skills", "csv-tools", "SKILL.md"),
    skillMd("csv-tools", "Summarise CSV files. Use when given a CSV."),
  );
}, 120_000);
afterAll(async () => {
  await daemon?.stop();
  await backend?.stop();
  await web?.stop();
  if (root) await removeDir(root);
});

describe.runIf(existsSync(bin))("the built binary reads git, HTTP and npm addresses", () => {
  it("list and prompt a git daemon repository", async () => {
    const address = `git://127.0.0.1:${daemon.port}/team.git`;
    const list = await skillport(["list", address]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain("pdf-forms");
    expect(list.stdout).toContain("release-notes");
    const prompt = await skillport(["prompt", address]);
    expect(prompt.code, prompt.stderr).toBe(0);
    expect(prompt.stdout).toContain("Fill PDF forms.");
  }, 120_000);

  it("validate, search and show over smart HTTP with a token in the address, which is never printed", async () => {
    const address = `git+http://reader:${SECRET}@${backend.url.slice("http://".length)}/team.git#main:skills`;
    const runs = [
      await skillport(["validate", address]),
      await skillport(["search", "pdf form", address]),
      await skillport(["show", "pdf-forms", "--root", address]),
      await skillport(["show", "pdf-forms", "--root", address, "--file", "references/fields.md"]),
      await skillport(["list", address, "--json"]),
    ];
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout + run.stderr).not.toContain(SECRET);
    }
    expect(runs[1]?.stdout).toContain("pdf-forms");
    expect(runs[3]?.stdout).toBe("# Fields\n");
    expect(runs[4]?.stdout).toContain("reader:***@");
    expect(JSON.parse(runs[4]?.stdout ?? "{}").skipped).toContainEqual(
      expect.objectContaining({ folder: "skills/pdf-forms/assets/scan.bin", code: "remote-skipped" }),
    );
    // Refused credentials and no copy yet: an error that names the address, without the password.
    const wrong = await skillport(
      ["list", address.replace(SECRET, "wrong-and-secret")],
      path.join(root, "cache-fresh"),
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(
      /git ls-remote http:\/\/127\.0\.0\.1:\d+\/team\.git#main:skills failed: .*\(credentials missing or refused\)/,
    );
    expect(wrong.stdout + wrong.stderr).not.toContain("wrong-and-secret");
    // A copy made with the right token is not served to a wrong one (issue 19, decision 0240): the same error.
    const cached = await skillport(["list", address.replace(SECRET, "wrong-and-secret")]);
    expect(cached.code).toBe(2);
    expect(cached.stderr).toMatch(/\(credentials missing or refused\)/);
    expect(cached.stdout).not.toContain("pdf-forms");
    expect(cached.stdout + cached.stderr).not.toContain("wrong-and-secret");
  }, 120_000);

  it("serves the cached copy with a warning when the git remote is down", async () => {
    const own = await startGitDaemon(path.join(root, "srv"));
    const address = `git://127.0.0.1:${own.port}/team.git`;
    expect((await skillport(["list", address])).code).toBe(0);
    await own.stop();
    const offline = await skillport(["list", address]);
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout).toContain("pdf-forms");
    expect(offline.stderr).toMatch(/could not be reached; serving the copy from an earlier run/);
  }, 120_000);

  it("lists a well-known index over HTTP and an installed npm package", async () => {
    const http = await skillport(["list", web.url]);
    expect(http.code, http.stderr).toBe(0);
    expect(http.stdout).toContain("weather");
    const npm = await skillport(["list", "npm:@acme/skills", "--json"]);
    expect(npm.code, npm.stderr).toBe(0);
    expect(npm.stdout).toContain("csv-tools");
    expect(npm.stdout).toContain("npm:@acme/skills");
  }, 120_000);
});
