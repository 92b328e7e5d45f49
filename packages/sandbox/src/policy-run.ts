import path from "node:path";
import type { EffectivePolicy } from "@skillport/core";
import { EgressProxy } from "./egress.js";
import type { RunRequest, RunResult, Sandbox } from "./sandbox.js";

/** Variables every run keeps whatever the declaration says. */
const FIXED_ENV = new Set(["PATH", "HOME", "LANG", "TMPDIR"]);

/**
 * Only declared (and granted) variables pass, plus the fixed minimal set; a skill that declares nothing keeps
 * today's behaviour (the caller's variables). Returns the variables and the names dropped.
 */
export function policyEnv(
  env: Record<string, string> | undefined,
  policy: EffectivePolicy,
): { env: Record<string, string>; dropped: string[] } {
  if (!policy.declared) return { env: { ...env }, dropped: [] };
  const kept: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(env ?? {})) {
    if (FIXED_ENV.has(key) || policy.env.includes(key)) kept[key] = value;
    else dropped.push(key);
  }
  return { env: kept, dropped };
}

export interface PolicyRunOptions {
  /** syscall trace (RunRequest.trace). */
  trace?: boolean;
  /** Keep request samples in the proxy's log (EgressProxyOptions.keepSamples). */
  keepSamples?: boolean;
}

/**
 * One run under an effective policy (decision 0364): the egress proxy with the policy's destinations (a declaring
 * skill always gets one, so what it tries is logged), the declared variables, the declared folders (relative to the
 * run's working directory) and the declared time. Narrowings and dropped variables are added to the warnings.
 */
export async function runUnderPolicy(
  sandbox: Sandbox,
  request: RunRequest,
  policy: EffectivePolicy,
  options: PolicyRunOptions = {},
): Promise<RunResult> {
  const cwd = request.cwd ?? sandbox.writableDir;
  const { env, dropped } = policyEnv(request.env, policy);
  const proxy =
    policy.declared || policy.network.length > 0
      ? await EgressProxy.start({ allow: policy.network, keepSamples: options.keepSamples ?? false })
      : undefined;
  const timeoutMs =
    policy.timeoutMs === undefined
      ? request.timeoutMs
      : Math.min(policy.timeoutMs, request.timeoutMs ?? policy.timeoutMs);
  let result: RunResult;
  try {
    result = await sandbox.run({
      ...request,
      env,
      ...(timeoutMs !== undefined && { timeoutMs }),
      ...(proxy !== undefined && { egress: proxy }),
      ...(policy.writes !== "workspace" && {
        writes: policy.writes.map((w) => path.relative(sandbox.writableDir, path.resolve(cwd, w))),
      }),
      ...(options.trace === true && { trace: true }),
    });
  } finally {
    await proxy?.close();
  }
  if (dropped.length > 0)
    result.warnings.push(`variables not declared by the skill were not passed: ${dropped.join(", ")}`);
  for (const n of policy.narrowed) {
    result.warnings.push(
      `declaration narrowed: ${n.what} ${n.asked}${n.granted === undefined ? "" : ` → ${n.granted}`} (${n.reason})`,
    );
  }
  return result;
}
