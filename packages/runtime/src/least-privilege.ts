import type { EffectivePolicy } from "@skillport/core";
import type { Canary, ObservationRecord } from "@skillport/audit";
import type { RunRequest, RunResult, Sandbox } from "@skillport/sandbox";

/**
 * A run under a skill's least-privilege policy (issue 26, decision 0364): the effective policy (intersection of the
 * operator's and the skill's declaration, `effectivePolicy` in @skillport/core) decides the network (an egress proxy
 * allowing only its destinations), the variables that pass, the folders that can be written and the time budget
 * (`runUnderPolicy` in @skillport/sandbox); the result comes with its observation record.
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

/** Runs `request` in `sandbox` under the policy and returns the sandbox's result with the observation record. */
export async function runWithPolicy(
  sandbox: Sandbox,
  request: RunRequest,
  lp: LeastPrivilege,
): Promise<{ result: RunResult; observation: ObservationRecord }> {
  const [{ runUnderPolicy }, { observeRun }] = await Promise.all([
    import("@skillport/sandbox"),
    import("@skillport/audit"),
  ]);
  const result = await runUnderPolicy(sandbox, request, lp.policy, {
    ...(lp.trace !== undefined && { trace: lp.trace }),
    keepSamples: lp.keepSamples ?? (lp.canaries !== undefined && lp.canaries.length > 0),
  });
  const observation = observeRun(lp.policy, result, {
    file: lp.label ?? "run",
    ...(lp.line !== undefined && { line: lp.line }),
    ...(lp.canaries !== undefined && { canaries: lp.canaries }),
  });
  return { result, observation };
}
