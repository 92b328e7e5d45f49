// Runners fetch packages from a registry (issue 27, decision 0378), through the built CLI: `registry serve`, a runner
// with `--packages <registry url>` on a private NATS JetStream server, and `exec --queue --package … --packages <url>`,
// which stores the package in the registry before submitting the job.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@skillport/testing";
import { builtCli, isBuilt, runBuilt, startBuiltRegistry } from "./test-support.js";

const repo = path.resolve(import.meta.dirname, "../../..");
const hasNats = spawnSync("nats-server", ["--version"]).status === 0;

describe.skipIf(!isBuilt || !hasNats)("runners take packages from a registry (built CLI)", () => {
  let dir: string;
  const children: ChildProcess[] = [];
  let registry: string;
  let queue: string;
  let token: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "skillport-runner-registry-"));
    const natsPort = await freePort();
    queue = `nats://127.0.0.1:${natsPort}`;
    const nats = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(natsPort), "-js", "-sd", path.join(dir, "js")], {
      stdio: "ignore",
    });
    children.push(nats);
    const serve = await startBuiltRegistry(dir, ["--read-access", "token"]);
    children.push(serve.child);
    registry = serve.url;
    const made = runBuilt(
      ["registry", "token", "create", "--user", "ci", "--scope", "publish,read", "--db", "sqlite:./r.db"],
      dir,
    );
    expect(made.code, made.stderr.toString()).toBe(0);
    token = made.stdout.toString().trim();
    // The job waits in the queue until this runner takes it: no need to wait for the runner to be ready.
    const runner = spawn(
      process.execPath,
      [builtCli, "runner", "--queue", queue, "--cache", "./runner", "--packages", registry],
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "", HOME: dir, SKILLPORT_REGISTRY_TOKEN: token },
        stdio: "ignore",
      },
    );
    children.push(runner);
  }, 120_000);

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  });

  it("exec --queue stores the package in the registry and a runner deploys it from there", async () => {
    const command =
      'bash "$SKILLPORT_VERSION_DIR/skills/word-stats/scripts/stats.sh" "$SKILLPORT_VERSION_DIR/README.md"';
    const args = ["exec", "--queue", queue, "--package", path.join(repo, "examples/package"), "--packages", registry];
    const run = await runAsync([...args, "--", command], dir, { SKILLPORT_REGISTRY_TOKEN: token });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/words/i);

    const listed = await fetch(`${registry}/openapi.json`).then((r) => r.json() as Promise<{ paths: object }>);
    expect(Object.keys(listed.paths)).toContain("/api/v1/packages/{versionId}");

    // Without a token the registry refuses the package: one line, nothing submitted.
    const anonymous = await runAsync([...args, "--", "true"], dir, {});
    expect(anonymous.code).toBe(2);
    expect(anonymous.stderr).toMatch(/^skillport: .*needs a token/);
    expect(anonymous.stderr.trim().split("\n")).toHaveLength(1);
  }, 120_000);
});

function runAsync(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [builtCli, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: cwd, SKILLPORT_CACHE_DIR: path.join(cwd, ".cache"), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
