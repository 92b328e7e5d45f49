import path from "node:path";
import type { EffectivePolicy } from "@skillport/core";
import type { Canary, ObservationRecord } from "@skillport/audit";
import type { EgressProxy, RunRequest, RunResult, Sandbox } from "@skillport/sandbox";

/**
 * A run under a skill's least-privilege policy (issue 26, decision 0364): the effective policy (intersection of the
 * operator's and the skill's declaration, `effectivePolicy` in @skillport/core) decides the network (an egress proxy
 * allowing only its destinations), the variables that pass, the folders that can be written and the time budget.
 */
export interface LeastPrivilege {
  policy: EffectivePolicy;
  /** Record a syscall trace (processes started, files written, direct connection attempts). Default false. */
  trace?: boolean;
  /** Planted credentials to look for in what the run reads and sends (`audit --dynamic`). */
  canaries?: readonly Canary[];
  /** Keep request samples in the proxy log (to find canaries in what was sent). Default: when canaries are given. */
  keepSamples?: boolean;
  /** Where the run came from, for findings. Default "run". */
  label?: string;
  line?: number;
}

/** Variables every run keeps whatever the declaration says (the runtime's own, e.g. the version's Python PATH). */
const FIXED_ENV = new Set(["PATH", "HOME", "LANG", "TMPDIR"]);

/**
 * Only declared (and granted) variables pass, plus the fixed minimal set; an undeclared skill keeps today's
 * behaviour (the caller's variables). Returns the variables and the names dropped.
 */
export function policyEnv(env: Record<string, string> | undefined, policy: EffectivePolicy): { env: Record<string, string>; dropped: string[] } {
  if (!policy.declared) return { env: { ...env }, dropped: [] };
  const kept: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(env ?? {})) {
    if (FIXED_ENV.has(key) || policy.env.includes(key)) kept[key] = value;
    else dropped.push(key);
  }
  return { env: kept, dropped };
}

/** Runs `request` in `sandbox` under the policy and returns the sandbox's result with the observation record. */
export async function runWithPolicy(sandbox: Sandbox, request: RunRequest, lp: LeastPrivilege): Promise<{ result: RunResult; observation: ObservationRecord }> {
  const { policy } = lp;
  const cwd = request.cwd ?? sandbox.writableDir;
  const { env, dropped } = policyEnv(request.env, policy);
  let proxy: EgressProxy | undefined;
  // A declaring skill always runs behind the proxy (an empty allow-list still logs and denies what it tries).
  if (policy.declared || policy.network.length > 0) {
    const { EgressProxy } = await import("@skillport/sandbox");
    proxy = await EgressProxy.start({ allow: policy.network, keepSamples: lp.keepSamples ?? (lp.canaries !== undefined && lp.canaries.length > 0) });
  }
  const timeoutMs = policy.timeoutMs === undefined ? request.timeoutMs : Math.min(policy.timeoutMs, request.timeoutMs ?? policy.timeoutMs);
  let result: RunResult;
  try {
    result = await sandbox.run({
      ...request,
      env,
      ...(timeoutMs !== undefined && { timeoutMs }),
      ...(proxy !== undefined && { egress: proxy }),
      ...(policy.writes !== "workspace" && { writes: policy.writes.map((w) => path.relative(sandbox.writableDir, path.resolve(cwd, w))) }),
      ...(lp.trace === true && { trace: true }),
    });
  } finally {
    await proxy?.close();
  }
  if (dropped.length > 0) result.warnings.push(`variables not declared by the skill were not passed: ${dropped.join(", ")}`);
  for (const n of policy.narrowed) {
    result.warnings.push(`declaration narrowed: ${n.what} ${n.asked}${n.granted === undefined ? "" : ` → ${n.granted}`} (${n.reason})`);
  }
  const { observeRun } = await import("@skillport/audit");
  const observation = observeRun(policy, result, {
    file: lp.label ?? "run",
    ...(lp.line !== undefined && { line: lp.line }),
    ...(lp.canaries !== undefined && { canaries: lp.canaries }),
  });
  return { result, observation };
}
