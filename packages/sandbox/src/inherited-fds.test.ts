// Issue 19: descriptors the host process inherited without close-on-exec (a supervisor's socket, a log, a pipe at fd
// 251) reached every sandboxed command and plugin worker; a command read a root-only file through fd 200. The host here
// is a Node process started by a shell that opened a secret at fds 200 and 251, as a supervisor would. Before the fix
// every case below printed the secret.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { chmod, chown, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { bundleSandbox, haveBubblewrap, tempDir } from "./__fixtures__/helpers.js";

const hasBwrap = haveBubblewrap(console.warn);
const hostIsRoot = process.getuid?.() === 0;
const SECRET = `inherited-secret-${process.pid}`;

let base: { dir: string; cleanup: () => Promise<void> };
let bundle: string;
beforeAll(async () => {
  base = await tempDir();
  await chmod(base.dir, 0o755);
  bundle = await bundleSandbox(base.dir);
});
afterAll(async () => {
  await base.cleanup();
});

/** What each sandboxed process saw: its descriptors above 2, and what it could read through 200 and 251. */
interface Seen {
  fds: string[];
  read: string;
  channel?: string;
}

// Each case lists /proc/self/fd (ls's own directory descriptor is the one it opened last) and reads 200 and 251.
const LOOK = "ls /proc/self/fd | sort -n | tr '\\n' ' '; echo; cat <&200 2>/dev/null; cat <&251 2>/dev/null; true";

/** Runs the sandbox from a Node host that inherited the secret at fds 200 and 251 (as `user` when given). */
async function hostWithInheritedSecret(kinds: string[], user?: number): Promise<Record<string, Seen>> {
  const dir = path.join(base.dir, `host-${user ?? "self"}-${kinds.join("-")}`);
  const work = path.join(dir, "work");
  const tmp = path.join(dir, "tmp");
  await mkdir(work, { recursive: true });
  await mkdir(tmp);
  const secret = path.join(dir, "secret");
  await writeFile(secret, SECRET, { mode: 0o600 });
  if (user !== undefined) for (const p of [dir, work, tmp, secret]) await chown(p, user, user);
  await chmod(dir, 0o755);
  const script = path.join(dir, "host.mjs");
  await writeFile(
    script,
    `import { spawn } from "node:child_process";
import { createSandbox, findBubblewrap, sandboxedCommand } from ${JSON.stringify(bundle)};
const look = ${JSON.stringify(LOOK)};
const parse = (out) => { const [fds, ...rest] = out.split("\\n"); return { fds: fds.trim().split(" ").filter((fd) => Number(fd) > 2), read: rest.join("\\n") }; };
const seen = {};
for (const kind of ${JSON.stringify(kinds)}) {
  if (kind === "worker-bwrap" || kind === "worker-process") {
    // A plugin worker: the caller spawns it with an extra channel at fd 3, which it keeps.
    const cmd = await sandboxedCommand({ command: ["/bin/bash", "-c", look + "; echo channel-ok >&3"], bwrapPath: kind === "worker-bwrap" ? findBubblewrap() : undefined,
      writableDir: ${JSON.stringify(work)}, cwd: ${JSON.stringify(work)}, env: { PATH: "/usr/bin:/bin" }, keepFds: [3] });
    const child = spawn(cmd.file, cmd.args, { env: cmd.env, cwd: cmd.cwd, stdio: ["ignore", "pipe", "inherit", "pipe"] });
    let out = "", channel = "";
    child.stdout.on("data", (c) => (out += c));
    child.stdio[3].on("data", (c) => (channel += c));
    await new Promise((resolve) => child.on("close", resolve));
    await cmd.dispose();
    seen[kind] = { ...parse(out), channel };
  } else {
    const sb = createSandbox({ kind, writableDir: ${JSON.stringify(work)} });
    const r = await sb.run({ command: ["/bin/bash", "-c", look] });
    await sb.close();
    seen[kind] = parse(r.stdout);
  }
}
console.log(JSON.stringify(seen));
`,
  );
  // The shell plays the supervisor: it opens the secret at 200 and 251 without close-on-exec, then execs Node.
  const prefix = user === undefined ? [] : ["setpriv", `--reuid=${user}`, `--regid=${user}`, "--clear-groups", "--"];
  const r = spawnSync(
    prefix[0] ?? "/bin/bash",
    [
      ...prefix.slice(1),
      ...(user === undefined ? [] : ["/bin/bash"]),
      "-c",
      'exec 200<"$1" 251<"$1"; exec "$2" "$3"',
      "host",
      secret,
      process.execPath,
      script,
    ],
    {
      encoding: "utf8",
      env: { PATH: process.env.PATH, TMPDIR: tmp },
      timeout: 120_000,
    },
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as Record<string, Seen>;
}

const runs = hasBwrap ? ["process", "bubblewrap", "worker-process", "worker-bwrap"] : ["process", "worker-process"];

describe("inherited descriptors never reach sandboxed code", () => {
  it("closes everything above 2 in commands of both backends and in plugin workers, keeping only a worker's channel", async () => {
    const seen = await hostWithInheritedSecret(runs);
    for (const kind of runs) {
      const s = seen[kind]!;
      expect(s.read, kind).toBe("");
      const worker = kind.startsWith("worker");
      // What is left: ls's own directory descriptor, and a worker's channel at 3.
      expect(s.fds.length, `${kind}: ${s.fds.join(" ")}`).toBe(worker ? 2 : 1);
      if (worker) {
        expect(s.fds[0], kind).toBe("3");
        expect(s.channel, kind).toBe("channel-ok\n");
      }
      expect(s.fds, kind).not.toContain("200");
      expect(s.fds, kind).not.toContain("251");
    }
  });

  it.runIf(hostIsRoot)("the same from an unprivileged host user", async () => {
    const seen = await hostWithInheritedSecret(runs, 65534);
    for (const kind of runs) {
      expect(seen[kind]!.read, kind).toBe("");
      expect(seen[kind]!.fds, kind).not.toContain("200");
    }
  });
});
