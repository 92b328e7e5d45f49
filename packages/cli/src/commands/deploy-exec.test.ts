import { afterEach, describe, expect, it } from "vitest";
import { mkdtemp, mkdir, readdir, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Command, CommanderError } from "commander";
import { AgentSkillsError } from "@skillport/core";
import { findBubblewrap } from "@skillport/sandbox";
import { CliError, outputFor, type CliIO } from "../io.js";
import { registerDeploy } from "./deploy.js";
import { registerExec } from "./exec.js";

// Runs the two commands the way program.ts does (same error mapping), in-process, with captured output.
async function cli(args: string[], cwd: string, terminal = false): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: CliIO = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    color: terminal,
    progress: terminal,
    cwd,
  };
  let code = 0;
  const program = new Command().exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  const setExit = (c: number) => (code = Math.max(code, c));
  registerDeploy(program, outputFor(io), setExit);
  registerExec(program, outputFor(io), setExit);
  try {
    await program.parseAsync(args, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) code = error.exitCode === 0 ? 0 : 2;
    else if (error instanceof CliError) {
      err += `skillport: ${error.message}\n`;
      code = error.exitCode;
    } else if (error instanceof AgentSkillsError) {
      err += `skillport: ${error.message}\n`;
      code = 2;
    } else throw error;
  }
  return { code, out, err };
}

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function tmp(): Promise<string> {
  const d = await realpath(await mkdtemp(path.join(os.tmpdir(), "skillport-cli-")));
  dirs.push(d);
  return d;
}
async function pkg(entrypoint: string | undefined, tag: string): Promise<string> {
  const dir = await tmp();
  await mkdir(path.join(dir, "skills", "hello", "scripts"), { recursive: true });
  await writeFile(
    path.join(dir, "skills/hello/SKILL.md"),
    "---\nname: hello\ndescription: Says hello for the CLI tests. Use it in tests.\n---\n\n# Hello\n",
  );
  await writeFile(path.join(dir, "skills/hello/scripts/hi.sh"), "echo hi from hello\n");
  await writeFile(path.join(dir, "tag.txt"), tag);
  if (entrypoint !== undefined) await writeFile(path.join(dir, "entrypoint.sh"), entrypoint);
  return dir;
}

const sandbox = findBubblewrap() ? "bubblewrap" : "process";

describe("skillport deploy", () => {
  it("deploys, runs the entrypoint, lists skills; JSON output; exit 0", async () => {
    const cwd = await tmp();
    const p = await pkg("echo setup done", "ok");
    const r = await cli(["deploy", p, "--workspace", "ws", "--json", "--sandbox", sandbox], cwd);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out);
    const v = json.versions[0].versionId;
    expect(json).toMatchObject({
      workspace: "ws",
      versions: [{ status: "deployed" }],
      removed: [],
      entrypoints: [{ target: v, status: "ran", stdoutTail: "setup done\n" }],
      skills: [
        {
          id: "hello",
          versionId: v,
          directory: `projects/${v}/skills/hello`,
          skillMd: `projects/${v}/skills/hello/SKILL.md`,
        },
      ],
      sandbox: { kind: sandbox, isolates: sandbox === "bubblewrap" },
    });
    const again = await cli(["deploy", p, "--workspace", "ws"], cwd);
    expect(again.code).toBe(0);
    expect(again.out).toContain(`present  ${v}`);
    expect(again.out).toContain(`skipped  entrypoint ${v}: already initialized`);
    expect(again.out).toContain(`hello  projects/${v}/skills/hello/SKILL.md`);
  });

  it("shows progress on a terminal (stderr only), none when piped or with --json", async () => {
    const cwd = await tmp();
    const p = await pkg("echo setup done", "progress");
    const plain = (t: string) => t.replace(/\u001b\[[0-9;]*m/g, "");
    const tty = await cli(["deploy", p, "--workspace", "ws", "--sandbox", sandbox], cwd, true);
    expect(tty.code).toBe(0);
    const v = /deployed (\S+)/.exec(plain(tty.out))?.[1];
    expect(plain(tty.err)).toBe(`unpacking ${path.basename(p)}...\nrunning entrypoint ${v}...\n`);
    expect(tty.out).toContain("\u001b["); // coloured on a terminal
    const piped = await cli(["deploy", await pkg("true", "piped"), "--workspace", "ws2", "--sandbox", sandbox], cwd);
    expect([piped.code, piped.err]).toEqual([0, ""]);
    const json = await cli(
      ["deploy", await pkg("true", "json"), "--workspace", "ws3", "--json", "--sandbox", sandbox],
      cwd,
      true,
    );
    expect([json.code, json.err]).toEqual([0, ""]);
  });

  it("--json reports each entrypoint as ran, skipped or failed, with the output tails", async () => {
    const cwd = await tmp();
    const good = await pkg("echo good", "good");
    const bad = await pkg("echo partial; echo broken >&2; exit 4", "bad");
    const first = await cli(["deploy", good, bad, "--workspace", "ws", "--json", "--sandbox", sandbox], cwd);
    expect(first.code).toBe(1);
    const one = JSON.parse(first.out);
    const [g, b] = one.versions.map((v: { versionId: string }) => v.versionId) as [string, string];
    expect(one.entrypoints).toEqual([
      expect.objectContaining({ target: g, status: "ran", exitCode: 0, stdoutTail: "good\n", stderrTail: "" }),
      expect.objectContaining({
        target: b,
        status: "failed",
        exitCode: 4,
        stdoutTail: "partial\n",
        stderrTail: "broken\n",
      }),
    ]);
    const second = JSON.parse(
      (await cli(["deploy", good, bad, "--workspace", "ws", "--json", "--sandbox", sandbox], cwd)).out,
    );
    expect(second.entrypoints.map((o: { target: string; status: string }) => [o.target, o.status])).toEqual([
      [g, "skipped"],
      [b, "failed"], // not recorded, so retried
    ]);
  });

  it("exits 1 and shows the stderr tail when an entrypoint fails", async () => {
    const cwd = await tmp();
    const r = await cli(
      ["deploy", await pkg("echo cannot install >&2; exit 7", "bad"), "--workspace", "ws", "--sandbox", sandbox],
      cwd,
    );
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/FAILED +entrypoint [a-f0-9]{24}: exited with code 7/);
    expect(r.out).toContain("  | cannot install");
  });

  it("lists the findings of an invalid package directory and exits 1 without deploying", async () => {
    const cwd = await tmp();
    const bad = await tmp();
    await mkdir(path.join(bad, "skills", "x"), { recursive: true });
    await writeFile(path.join(bad, "skills/x/SKILL.md"), "no frontmatter\n");
    const r = await cli(["deploy", bad, "--workspace", "ws"], cwd);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/skills\/x\/SKILL\.md.*error/);
    expect(r.err).toMatch(/skillport: package layout check failed with \d+ errors?; nothing deployed\n$/);
    expect(await readdir(path.join(cwd, "ws", "projects"))).toEqual([]);
  });

  it("--app-entrypoint runs the app startup script once per content; --state-dir holds the host's state", async () => {
    const cwd = await tmp();
    await writeFile(path.join(cwd, "start.sh"), 'echo app >> "$HOME/app-runs"\n');
    const args = [
      "deploy",
      await pkg(undefined, "app"),
      "--workspace",
      "ws",
      "--state-dir",
      "state",
      "--app-entrypoint",
      "start.sh",
      "--json",
      "--sandbox",
      sandbox,
    ];
    const one = await cli(args, cwd);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.out).entrypoints[0]).toMatchObject({ target: "app", status: "ran" });
    expect(JSON.parse((await cli(args, cwd)).out).entrypoints[0]).toMatchObject({ target: "app", status: "skipped" });
    expect((await readdir(path.join(cwd, "state"))).sort()).toEqual([
      "archives.json",
      "entrypoints.json",
      "staging",
      "versions",
    ]);
    expect((await readdir(path.join(cwd, "ws"))).sort()).toEqual([".home", "projects"]);
    await writeFile(path.join(cwd, "big.sh"), "#".repeat(16 * 1024 + 1));
    const big = await cli(
      ["deploy", await pkg(undefined, "app"), "--workspace", "ws", "--app-entrypoint", "big.sh"],
      cwd,
    );
    expect([big.code, big.err]).toEqual([
      2,
      "skillport: --app-entrypoint: the script is 16385 bytes; the limit is 16 KiB\n",
    ]);
    const inside = await cli(
      ["deploy", await pkg(undefined, "app"), "--workspace", "ws", "--state-dir", "ws/state"],
      cwd,
    );
    expect([inside.code, inside.err]).toEqual([
      2,
      'skillport: invalid path "stateDir": the state folder must be outside the workspace (sandboxed code can write the workspace)\n',
    ]);
  });

  it("rejects a bad timeout and a missing package with one line and exit 2", async () => {
    const cwd = await tmp();
    const t = await cli(["deploy", "x.zip", "--workspace", "ws", "--timeout", "0"], cwd);
    expect([t.code, t.err]).toEqual([
      2,
      'skillport: --timeout must be a number of seconds between 1 and 600, got "0"\n',
    ]);
    const m = await cli(["deploy", "missing.zip", "--workspace", "ws"], cwd);
    expect([m.code, m.err]).toEqual([2, 'skillport: invalid path "missing.zip": package not found\n']);
  });
});

describe("skillport exec", () => {
  it("prints the observation; exit 0 on success, 1 on a non-zero exit", async () => {
    const cwd = await tmp();
    const dep = await cli(
      ["deploy", await pkg(undefined, "exec"), "--workspace", "ws", "--json", "--sandbox", sandbox],
      cwd,
    );
    const v = JSON.parse(dep.out).versions[0].versionId;
    const ok = await cli(
      [
        "exec",
        "--workspace",
        "ws",
        "--sandbox",
        sandbox,
        "--cwd",
        `projects/${v}`,
        "--",
        "bash",
        "skills/hello/scripts/hi.sh",
      ],
      cwd,
    );
    expect([ok.code, ok.out]).toEqual([0, "hi from hello\n"]);
    const bad = await cli(["exec", "-w", "ws", "--sandbox", sandbox, "--", "echo out; echo err >&2; exit 5"], cwd);
    expect([bad.code, bad.out]).toEqual([1, "out\nerr\n\nCommand exited with code 5\n"]);
    const json = await cli(["exec", "-w", "ws", "--sandbox", "process", "--json", "--", "true"], cwd);
    expect(JSON.parse(json.out)).toMatchObject({ observation: "", exitCode: 0, sandbox: "process", isolates: false });
    expect(await readdir(path.join(cwd, "ws", ".skillport", "outputs"))).toEqual([]);
  });

  it("--timeout kills a command that runs too long; exit 1 with FastGPT's notice", async () => {
    const cwd = await tmp();
    await mkdir(path.join(cwd, "ws"));
    const r = await cli(
      ["exec", "-w", "ws", "--sandbox", sandbox, "--timeout", "1", "--", "echo before; sleep 20; echo after"],
      cwd,
    );
    expect(r.code).toBe(1);
    expect(r.out).toBe("before\n\nCommand timed out after 1 s and was killed.\n");
  });

  it.runIf(sandbox === "bubblewrap")(
    "--sandbox bubblewrap isolates: the host's files outside the workspace are not visible",
    async () => {
      const cwd = await tmp();
      await mkdir(path.join(cwd, "ws"));
      await writeFile(path.join(cwd, "host-secret.txt"), "s3cret");
      const r = await cli(
        ["exec", "-w", "ws", "--sandbox", "bubblewrap", "--json", "--", `cat ${path.join(cwd, "host-secret.txt")}`],
        cwd,
      );
      expect(r.code).toBe(1);
      const json = JSON.parse(r.out);
      expect(json).toMatchObject({ sandbox: "bubblewrap", isolates: true, exitCode: 1, timedOut: false });
      expect(json.observation).not.toContain("s3cret");
      expect(json.observation).toMatch(/No such file or directory/);
    },
  );

  it("warns on stderr that the process sandbox does not isolate", async () => {
    const cwd = await tmp();
    await mkdir(path.join(cwd, "ws"));
    const r = await cli(["exec", "-w", "ws", "--sandbox", "process", "--", "echo", "hi"], cwd);
    expect(r.out).toBe("hi\n");
    expect(r.err).toMatch(/^warning: sandbox 'process' does not isolate/);
  });

  it.each([
    ["a command string", ["echo a > f && cat f"], "a\n"],
    ["an argv whose -c string keeps its quoting", ["sh", "-c", "echo 'two  spaces' > g && cat g"], "two  spaces\n"],
    ["an argv with spaces and quotes in words", ["printf", "%s|%s\\n", "it's", "a b"], "it's|a b\n"],
  ])("runs %s as given (issue 9)", async (_label, words, expected) => {
    const cwd = await tmp();
    await mkdir(path.join(cwd, "ws"));
    const r = await cli(["exec", "-w", "ws", "--sandbox", "process", "--", ...words], cwd);
    expect([r.code, r.out]).toEqual([0, expected]);
  });

  it("usage and runtime errors exit 2", async () => {
    const cwd = await tmp();
    const missing = await cli(["exec", "-w", "nope", "--", "true"], cwd);
    expect([missing.code, missing.err]).toEqual([2, 'skillport: workspace "nope" is not a directory\n']);
    await mkdir(path.join(cwd, "ws"));
    const escape = await cli(["exec", "-w", "ws", "--cwd", "../..", "--", "true"], cwd);
    expect(escape.code).toBe(2);
    expect(escape.err).toBe('skillport: invalid path "../..": cwd escapes the workspace\n');
    const timeout = await cli(["exec", "-w", "ws", "--timeout", "700", "--", "true"], cwd);
    expect(timeout.code).toBe(2);
  });
});
