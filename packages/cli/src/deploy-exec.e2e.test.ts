// Runs the BUILT deploy/exec commands in a real child process (real exit codes, real streams, real sandbox).
// Uses `packages/cli/dist/cli.js` once the commands are registered there; until then a tiny launcher that wires the
// same built command modules exactly as program.ts does.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, realpath, rm, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const dist = path.join(repo, "packages/cli/dist");
const bin = path.join(dist, "main.js");
const built = existsSync(path.join(dist, "commands/deploy.js")) && existsSync(path.join(dist, "commands/exec.js"));

const launcher = `
  import { Command, CommanderError } from "commander";
  import { processIO, CliError } from ${JSON.stringify(path.join(dist, "io.js"))};
  import { registerDeploy } from ${JSON.stringify(path.join(dist, "commands/deploy.js"))};
  import { registerExec } from ${JSON.stringify(path.join(dist, "commands/exec.js"))};
  const io = processIO();
  let code = 0;
  const program = new Command().name("skillport").exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  registerDeploy(program, io, (c) => (code = Math.max(code, c)));
  registerExec(program, io, (c) => (code = Math.max(code, c)));
  try { await program.parseAsync(process.argv.slice(1), { from: "user" }); }
  catch (e) {
    if (e instanceof CommanderError) code = e.exitCode === 0 ? 0 : 2;
    else { io.stderr("skillport: " + (e instanceof Error ? e.message : String(e)) + "\\n"); code = e instanceof CliError ? e.exitCode : 2; }
  }
  process.exitCode = code;
`;

function registeredInMain(): boolean {
  if (!existsSync(bin)) return false;
  const help = spawnSync(process.execPath, [bin, "--help"], { encoding: "utf8" }).stdout;
  return /\bdeploy\b/.test(help) && /\bexec\b/.test(help);
}

let work: string;
let viaMain = false;
beforeAll(async () => {
  work = await realpath(await mkdtemp(path.join(os.tmpdir(), "skillport-e2e-runtime-")));
  viaMain = registeredInMain();
});
afterAll(() => rm(work, { recursive: true, force: true }));

function skillport(args: string[]) {
  const argv = viaMain ? [bin, ...args] : ["--input-type=module", "-e", launcher, "--", ...args];
  const r = spawnSync(process.execPath, argv, {
    cwd: repo,
    encoding: "utf8",
    env: { ...process.env, SKILLPORT_E2E_SECRET: "s3cret", FORCE_COLOR: undefined },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.runIf(built)("built skillport deploy / exec", () => {
  it("deploys examples/package, runs its entrypoint once, lists its skills", async () => {
    const ws = path.join(work, "ws");
    const first = skillport(["deploy", "examples/package", "--workspace", ws, "--json"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const json = JSON.parse(first.stdout);
    const v = json.versions[0].versionId as string;
    expect(json.entrypoints).toMatchObject([{ target: v, status: "ran", stdoutTail: "entrypoint: 3 skills ready\n" }]);
    expect(json.skills.map((s: { id: string }) => s.id)).toEqual(["extract-emails", "format-report", "word-stats"]);
    expect(await readFile(path.join(ws, "projects", v, ".runtime/ready"), "utf8")).toBe("initialized\n");

    const second = skillport(["deploy", "examples/package", "--workspace", ws]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`present  ${v}`);
    expect(second.stdout).toContain(`skipped  entrypoint ${v}: already initialized`);

    const run = skillport([
      "exec",
      "--workspace",
      ws,
      "--cwd",
      `projects/${v}`,
      "--",
      "bash",
      "skills/word-stats/scripts/stats.sh",
      "README.md",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^lines \d+\nwords \d+\nchars \d+\ntop words:\n/);
  });

  // Issue 20 item 9: a skill with no description is deployed but left out of every catalog; deploy says so.
  it("says which deployed skill catalogs will leave out, and why (text on stderr, diagnostics in --json)", async () => {
    const pkg = path.join(work, "pkg-no-description");
    const { mkdir } = await import("node:fs/promises");
    await mkdir(path.join(pkg, "skills", "quiet"), { recursive: true });
    await writeFile(
      path.join(pkg, "skills", "quiet", "SKILL.md"),
      "---\nname: quiet\n---\n# Quiet\n\nNo description.\n",
    );
    const ws = path.join(work, "ws-left-out");
    const text = skillport(["deploy", pkg, "--workspace", ws, "--no-entrypoints"]);
    expect(text.code).toBe(0);
    expect(text.stderr).toMatch(
      /skills\/quiet\/SKILL\.md: catalogs \(list, prompt, tools, SkillBox\) leave this skill out: .*description.* \(skill-left-out\)/,
    );
    const json = JSON.parse(skillport(["deploy", pkg, "--workspace", ws, "--no-entrypoints", "--json"]).stdout);
    expect(json.diagnostics.map((d: { code: string }) => d.code)).toContain("skill-left-out");
  });

  it("exec: exit 1 with the FastGPT notice on failure; the parent's secrets are not visible", () => {
    const ws = path.join(work, "ws2");
    expect(skillport(["deploy", "examples/package", "--workspace", ws, "--no-entrypoints"]).code).toBe(0);
    const r = skillport(["exec", "-w", ws, "--", 'echo "secret=[${SKILLPORT_E2E_SECRET:-}]"; exit 3']);
    expect([r.code, r.stdout]).toEqual([1, "secret=[]\n\nCommand exited with code 3\n"]);
  });

  it("usage errors: one line, exit 2, no stack trace", () => {
    const r = skillport(["exec", "-w", path.join(work, "missing"), "--", "true"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('skillport: workspace "' + path.join(work, "missing") + '" is not a directory\n');
    const t = skillport(["deploy", "examples/package", "-w", path.join(work, "ws3"), "--timeout", "601"]);
    expect(t.code).toBe(2);
    expect(t.stderr).not.toMatch(/\n\s+at /);
  });
});

it("the deploy/exec command modules are built (npm test builds first)", () => {
  expect(built, "packages/cli/dist/commands/{deploy,exec}.js missing: run npm run build").toBe(true);
});

describe.runIf(built)("built skillport deploy --app-entrypoint (FastGPT's sandboxEntrypoint)", () => {
  it("runs the app startup script once per content, before the packages' entrypoints", async () => {
    const ws = path.join(work, "ws-app");
    const script = path.join(work, "startup.sh");
    await writeFile(script, "echo app started\n");
    const first = JSON.parse(
      skillport(["deploy", "examples/package", "--workspace", ws, "--app-entrypoint", script, "--json"]).stdout,
    );
    expect(first.entrypoints[0]).toMatchObject({ target: "app", status: "ran", stdoutTail: "app started\n" });
    const again = JSON.parse(
      skillport(["deploy", "examples/package", "--workspace", ws, "--app-entrypoint", script, "--json"]).stdout,
    );
    expect(again.entrypoints[0]).toMatchObject({ target: "app", status: "skipped" });
    await writeFile(script, "echo app changed\n");
    const changed = JSON.parse(
      skillport(["deploy", "examples/package", "--workspace", ws, "--app-entrypoint", script, "--json"]).stdout,
    );
    expect(changed.entrypoints[0]).toMatchObject({ target: "app", status: "ran", stdoutTail: "app changed\n" });
  });

  it("refuses a missing or oversized script with one line and exit 2, deploying nothing", async () => {
    const big = path.join(work, "big.sh");
    await writeFile(big, "#".repeat(17 * 1024));
    for (const [file, message] of [
      [path.join(work, "nope.sh"), "is not a readable file"],
      [big, "the limit is 16 KiB"],
    ] as const) {
      const r = skillport([
        "deploy",
        "examples/package",
        "--workspace",
        path.join(work, "ws-bad"),
        "--app-entrypoint",
        file,
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      expect(existsSync(path.join(work, "ws-bad"))).toBe(false);
    }
  });
});
