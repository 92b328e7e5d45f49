// Issue 19: no seccomp filter — io_uring, perf_event_open, keyctl and the rest were reachable from the sandbox, and all
// sandboxes shared uid 65534's key rings (workspace B read what A added). Each denied call is attempted inside the
// sandbox (python3's ctypes) and must fail with EPERM (clone3: ENOSYS); ordinary tools keep working. Before the filter
// every call below reached the kernel (the key ring case printed A's secret in B).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createSandbox, type Sandbox } from "./sandbox.js";
import { SECCOMP_LIBSECCOMP_VERSION } from "./seccomp-filter.js";
import { missingFilterWarning, seccompFilter } from "./seccomp.js";
import { bundleSandbox, haveBubblewrap, useWorkspaces } from "./__fixtures__/helpers.js";

const hasBwrap = haveBubblewrap(console.warn);
const hostIsRoot = process.getuid?.() === 0;
const x64 = process.arch === "x64";
const repo = fileURLToPath(new URL("../../../", import.meta.url));

const workspace = useWorkspaces();

// x86_64 numbers; aarch64 (generic table) where they differ. Arguments are harmless: a call that got through fails with
// EFAULT/EINVAL/EBADF, never EPERM, so EPERM is the filter's answer.
const CALLS: Array<{ name: string; x64: number; arm64: number; args?: number[]; errno: "EPERM" | "ENOSYS" }> = [
  { name: "keyctl", x64: 250, arm64: 219, args: [0, -3, 0], errno: "EPERM" },
  { name: "add_key", x64: 248, arm64: 217, errno: "EPERM" },
  { name: "request_key", x64: 249, arm64: 218, errno: "EPERM" },
  { name: "io_uring_setup", x64: 425, arm64: 425, args: [1, 0], errno: "EPERM" },
  { name: "io_uring_enter", x64: 426, arm64: 426, args: [-1], errno: "EPERM" },
  { name: "io_uring_register", x64: 427, arm64: 427, args: [-1], errno: "EPERM" },
  { name: "perf_event_open", x64: 298, arm64: 241, errno: "EPERM" },
  { name: "bpf", x64: 321, arm64: 280, args: [-1], errno: "EPERM" },
  { name: "userfaultfd", x64: 323, arm64: 282, errno: "EPERM" },
  { name: "kexec_load", x64: 246, arm64: 104, errno: "EPERM" },
  { name: "init_module", x64: 175, arm64: 105, errno: "EPERM" },
  { name: "finit_module", x64: 313, arm64: 273, args: [-1], errno: "EPERM" },
  { name: "delete_module", x64: 176, arm64: 106, errno: "EPERM" },
  { name: "open_by_handle_at", x64: 304, arm64: 265, args: [-1], errno: "EPERM" },
  { name: "mount", x64: 165, arm64: 40, errno: "EPERM" },
  { name: "fsopen", x64: 430, arm64: 430, errno: "EPERM" },
  { name: "setns", x64: 308, arm64: 268, args: [-1], errno: "EPERM" },
  { name: "unshare(CLONE_NEWUSER)", x64: 272, arm64: 97, args: [0x10000000], errno: "EPERM" },
  { name: "clone(CLONE_NEWUSER)", x64: 56, arm64: 220, args: [0x10000000 | 17], errno: "EPERM" },
  { name: "clone3", x64: 435, arm64: 435, args: [0, 0], errno: "ENOSYS" },
  { name: "personality(ADDR_NO_RANDOMIZE)", x64: 135, arm64: 92, args: [0x0040000], errno: "EPERM" },
  { name: "acct", x64: 163, arm64: 89, errno: "EPERM" },
  { name: "swapon", x64: 167, arm64: 224, errno: "EPERM" },
  { name: "reboot", x64: 169, arm64: 142, errno: "EPERM" },
];

/** A python3 program that makes each call and prints `name errno-name` (or `name ok`) per line. */
function probe(calls: typeof CALLS): string {
  const table = calls.map((c) => [c.name, process.arch === "arm64" ? c.arm64 : c.x64, c.args ?? []]);
  return `import ctypes, errno, json
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
for name, nr, args in json.loads(${JSON.stringify(JSON.stringify(table))}):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    print(name, errno.errorcode.get(ctypes.get_errno(), "?") if r < 0 else "ok")
`;
}

const expected = CALLS.map((c) => `${c.name} ${c.errno}`).join("\n") + "\n";

describe.runIf(hasBwrap && seccompFilter() !== undefined)("bubblewrap's seccomp filter", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = createSandbox({ kind: "bubblewrap", writableDir: await workspace("filter") });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it("denies each dangerous call", async () => {
    const r = await sandbox.run({ command: ["python3", "-c", probe(CALLS)] });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(expected);
    expect(r.warnings).toEqual([]);
  });

  it("keeps ordinary tools working: bash, coreutils, python3, node, git, threads and processes", async () => {
    const r = await sandbox.run({
      command: [
        "bash",
        "-c",
        [
          "set -e",
          "echo hi | tr a-z A-Z",
          "ls / >/dev/null && sort -r <<< $'a\\nb' | head -1 && sha256sum <<< x | cut -c1-8",
          'python3 -c \'import threading, subprocess; t = threading.Thread(target=print, args=("thread",)); t.start(); t.join(); print(subprocess.run(["true"]).returncode)\'',
          'node -e \'require("fs").writeFileSync("/tmp/n", "node"); console.log(require("fs").readFileSync("/tmp/n", "utf8"), require("child_process").execFileSync("echo", ["child"]).toString().trim())\'',
          "cd /tmp && git init -q r && cd r && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m m && git log --format=%s",
          "python3 -c 'import ctypes; print(ctypes.CDLL(None).personality(0xffffffff) >= 0)'",
        ].join("\n"),
      ],
      timeoutMs: 60_000,
    });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("HI\nb\n73cb3858\nthread\n0\nnode child\nm\nTrue\n");
  });

  it.runIf(x64)("kills a process that calls through an architecture the filter does not know (x32)", async () => {
    const r = await sandbox.run({
      command: ["python3", "-c", "import ctypes; ctypes.CDLL(None).syscall(0x40000000 | 39); print('survived')"],
    });
    expect(r.stdout).toBe("");
    expect(r.signal).toBe("SIGSYS");
  });

  it("closes the key rings every sandbox of the uid shares: workspace B cannot read what A adds", async () => {
    const other = createSandbox({ kind: "bubblewrap", writableDir: await workspace("filter-b") });
    try {
      const secret = `ring-secret-${process.pid}`;
      const add = await sandbox.run({ command: ["python3", "-c", keyScript("add", secret)] });
      const read = await other.run({ command: ["python3", "-c", keyScript("read", secret)] });
      expect(read.stdout).not.toContain(secret); // before the filter: "read ring-secret-…"
      expect(read.stdout).toBe("read EPERM\n");
      expect(add.stdout).toBe("add EPERM\n");
    } finally {
      await other.close();
    }
  });
});

/** add: put `secret` in the user key ring (@u); read: look it up there and print it (then revoke it). */
function keyScript(mode: "add" | "read", secret: string): string {
  const nr =
    process.arch === "arm64" ? { add: 217, request: 218, keyctl: 219 } : { add: 248, request: 249, keyctl: 250 };
  return `import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
S = ctypes.c_long
if "${mode}" == "add":
    data = b"${secret}"
    r = libc.syscall(S(${nr.add}), b"user", b"skillport-test", data, S(len(data)), S(-4))
    print("add", "ok" if r >= 0 else errno.errorcode[ctypes.get_errno()])
else:
    k = libc.syscall(S(${nr.request}), b"user", b"skillport-test", None, S(0))
    if k < 0:
        print("read", errno.errorcode[ctypes.get_errno()])
    else:
        buf = ctypes.create_string_buffer(256)
        n = libc.syscall(S(${nr.keyctl}), S(11), S(k), buf, S(256))
        print("read", buf.raw[:n].decode())
        libc.syscall(S(${nr.keyctl}), S(3), S(k))
`;
}

// The same from an unprivileged host user (bwrap's own user namespace): the filter is in that policy too.
describe.runIf(hasBwrap && hostIsRoot && seccompFilter() !== undefined)(
  "bubblewrap's seccomp filter for an unprivileged host user",
  () => {
    it("denies the same calls", async () => {
      const dir = await workspace("unprivileged");
      const bundle = await bundleSandbox(dir);
      const work = path.join(dir, "work");
      const tmp = path.join(dir, "tmp");
      for (const d of [work, tmp]) {
        await mkdir(d);
        await chown(d, 65534, 65534);
      }
      const script = path.join(dir, "probe.mjs");
      await writeFile(
        script,
        `import { createSandbox } from ${JSON.stringify(bundle)};
const sb = createSandbox({ kind: "bubblewrap", writableDir: ${JSON.stringify(work)} });
const r = await sb.run({ command: ["python3", "-c", ${JSON.stringify(probe(CALLS))}] });
await sb.close();
console.log(JSON.stringify(r.stdout));
`,
      );
      const r = spawnSync(
        "setpriv",
        ["--reuid=65534", "--regid=65534", "--clear-groups", "--", process.execPath, script],
        {
          encoding: "utf8",
          env: { PATH: process.env.PATH, TMPDIR: tmp },
          timeout: 120_000,
        },
      );
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout.trim().split("\n").pop()!)).toBe(expected);
    });
  },
);

describe("the embedded programs", () => {
  /** The architectures a program compares with (`jeq #AUDIT_ARCH_…`) and its return actions. */
  function shape(program: Buffer): { arches: number[]; actions: number[] } {
    const arches: number[] = [];
    const actions = new Set<number>();
    for (let i = 0; i < program.length; i += 8) {
      const code = program.readUInt16LE(i);
      const k = program.readUInt32LE(i + 4);
      // AUDIT_ARCH_*: the 64-bit and/or little-endian flags over an ELF machine number; no system call number looks so.
      if (code === 0x15 && (k & 0x4000_0000) !== 0 && (k & 0x3fff_0000) === 0 && (k & 0xffff) !== 0) arches.push(k);
      if (code === 0x06) actions.add(k); // ret #action
    }
    return { arches, actions: [...actions].sort((a, b) => a - b) };
  }
  const KILL_PROCESS = 0x8000_0000;
  const ALLOW = 0x7fff_0000;
  const EPERM = 0x0005_0000 | 1;
  const ENOSYS = 0x0005_0000 | 38;

  it.each([
    ["x64", [0xc000_003e, 0x4000_0003]], // x86_64, i386
    ["arm64", [0xc000_00b7, 0x4000_0028]], // aarch64, arm
  ])("%s: checks its architectures first and kills any other; allows, or answers EPERM / ENOSYS", (arch, arches) => {
    const program = seccompFilter(arch as string)!;
    expect(program.length % 8).toBe(0);
    const { arches: seen, actions } = shape(program);
    expect(seen).toEqual(arches);
    expect(program.readUInt16LE(0)).toBe(0x20); // the first instruction loads the architecture
    expect(program.readUInt32LE(4)).toBe(4);
    expect(actions).toEqual([EPERM, ENOSYS, ALLOW, KILL_PROCESS].sort((a, b) => a - b));
  });

  it("has none for other architectures: bubblewrap then runs without one and every result says so", () => {
    expect(seccompFilter("riscv64")).toBeUndefined();
    expect(missingFilterWarning("riscv64")).toMatch(/no seccomp filter is built for riscv64/);
  });
});

// The committed filter is exactly what the committed generator makes with the libseccomp it names.
const libseccompVersion = (() => {
  if (!existsSync("/usr/include/seccomp.h")) return undefined;
  const r = spawnSync(
    "sh",
    ["-c", "dpkg-query -W -f '${Version}' libseccomp-dev 2>/dev/null || pkg-config --modversion libseccomp"],
    { encoding: "utf8" },
  );
  return r.status === 0 ? r.stdout.trim().replace(/-.*$/, "") : undefined;
})();
if (libseccompVersion !== SECCOMP_LIBSECCOMP_VERSION) {
  console.warn(
    `skipping the filter regeneration check: it needs libseccomp-dev ${SECCOMP_LIBSECCOMP_VERSION} and cc (found ${libseccompVersion ?? "none"})`,
  );
}

describe.runIf(libseccompVersion === SECCOMP_LIBSECCOMP_VERSION)("the committed filter", () => {
  it("equals a fresh generation from scripts/seccomp-filter.c", () => {
    const r = spawnSync(process.execPath, [path.join(repo, "scripts/gen-seccomp.mjs"), "--check"], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });
});
