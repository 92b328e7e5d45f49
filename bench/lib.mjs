// Small helpers shared by the benchmarks: timing whole child processes, medians, tables.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import path from "node:path";

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Runs `node args…` to completion and returns wall time (ms) and the child's peak RSS (MiB, from the kernel via
 * /usr/bin/time when present, else from the child's own report on stdout as {"rss": …}).
 */
export function timeNode(args, { env } = {}) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, {
    encoding: "utf8",
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0 && result.status !== 1) {
    throw new Error(`node ${args.join(" ")} failed (${result.status}): ${result.stderr.slice(0, 2000)}`);
  }
  let report = {};
  const last = result.stdout.trim().split("\n").pop() ?? "";
  try {
    report = JSON.parse(last);
  } catch {
    // Not every step reports; wall time is still valid.
  }
  return { ms, rssMiB: report.rssMiB, report };
}

/** Interleaves the steps run by run so drift on a shared machine hits every step alike. */
export function measureInterleaved(steps, runs) {
  const samples = Object.fromEntries(steps.map((s) => [s.name, []]));
  for (let i = 0; i < runs; i++) {
    for (const step of steps) samples[step.name].push(step.run());
  }
  return steps.map((s) => {
    const runs = samples[s.name];
    return {
      name: s.name,
      ms: median(runs.map((r) => r.ms)),
      rssMiB: median(runs.map((r) => r.rssMiB ?? 0)),
      extra: runs[0].report,
    };
  });
}

export function printTable(title, header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => "| " + cells.map((c, i) => String(c).padEnd(widths[i])).join(" | ") + " |";
  console.log(`\n${title}`);
  console.log(line(header));
  console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|");
  for (const row of rows) console.log(line(row));
}

/** Deterministic PRNG (mulberry32) so every run generates the same corpus. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One line of JSON for the parent process: this process's peak RSS plus `extra`. */
export const report = (extra = {}) =>
  console.log(JSON.stringify({ rssMiB: Math.round(process.resourceUsage().maxRSS / 1024), ...extra }));

/** discover + getMetadata for every skill, as the registry does on refresh. */
export async function listWithMetadata(provider) {
  const ids = await provider.discover();
  let described = 0;
  for (const id of ids) if ((await provider.getMetadata(id)).description) described++;
  return { skills: ids.length, described };
}

/** Skill `i` of the agent bench's generated set, built with the given build's `Skill` (current or a baseline). */
export function benchSkill(Skill, i) {
  return Skill.builder()
    .name(`skill-${i}`)
    .description(
      `Handle task family ${i}: parse, transform and report on ${i % 7 === 0 ? "CSV" : "JSON"} inputs. Use when the user asks about family ${i}.`,
    )
    .skillContent(`# Skill ${i}\n\n${"Step details. ".repeat(40)}\n`)
    .putMetadata("license", "MIT")
    .build();
}

/**
 * CPU time of a process so far, in ms, from /proc/<pid>/stat (clock ticks of 10 ms): `self` its own (user + system),
 * `children` that of its waited-for children (a runner's sandboxes). NaN for both once the process is gone.
 */
export function processCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    const tick = 1000 / 100; // USER_HZ
    return {
      self: (Number(fields[11]) + Number(fields[12])) * tick,
      children: (Number(fields[13]) + Number(fields[14])) * tick,
    };
  } catch {
    return { self: NaN, children: NaN };
  }
}

/**
 * A private nats-server with JetStream on a free port of 127.0.0.1, its store under `dir`; resolves once it takes
 * connections. The runner benches' queue: `{ url, child }` (kill the child when done).
 */
export async function startNats(dir) {
  const port = await new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const child = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", path.join(dir, "nats")], {
    stdio: "ignore",
  });
  const canConnect = () =>
    new Promise((resolve) => {
      const s = connect(port, "127.0.0.1");
      s.once("connect", () => (s.destroy(), resolve(true)));
      s.once("error", () => resolve(false));
    });
  for (let i = 0; i < 100 && !(await canConnect()); i++) await new Promise((r) => setTimeout(r, 100));
  return { url: `nats://127.0.0.1:${port}`, child };
}

/** A job record as a runner receives one (the runner pool's protocol v1), to run the same job through a local executor. */
export function localJob(id, run) {
  return { v: 1, id, tenant: "w", run, timeoutS: 30, env: {}, files: [], submittedAt: Date.now() };
}
