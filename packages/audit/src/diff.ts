import type { AuditReport, InventoryItem, InventoryKind, InventoryLocation } from "./types.js";

/** One way the risk surface grew between two versions of a skill. */
export interface SurfaceChange {
  kind:
    | "network"
    | "credential"
    | "executable"
    | "script"
    | "package-runner"
    | "mcp-server"
    | "allowed-tools"
    | "description"
    | "finding";
  /** The new thing (a host, a path, a tool, a finding code). */
  value: string;
  /** One plain-language sentence. */
  statement: string;
  where?: InventoryLocation;
}

export interface SecurityDiff {
  /** Empty when only wording changed: nothing was added to what the skill fetches, runs, reads or is allowed. */
  changes: SurfaceChange[];
  verdict: { before: AuditReport["verdict"]; after: AuditReport["verdict"] };
  /** The surface grew: consent given for `before` does not cover `after`. */
  grew: boolean;
}

const KIND_OF: Partial<Record<InventoryKind, SurfaceChange["kind"]>> = {
  domain: "network",
  "credential-path": "credential",
  binary: "executable",
  script: "script",
  "package-runner": "package-runner",
  "mcp-server": "mcp-server",
};

const SAY: Record<SurfaceChange["kind"], (v: string) => string> = {
  network: (v) => `now contacts a new network destination: ${v}`,
  credential: (v) => `now refers to a credential location: ${v}`,
  executable: (v) => `now fetches or makes executable a program: ${v}`,
  script: (v) => `now bundles a new script: ${v}`,
  "package-runner": (v) => `now runs a new package: ${v}`,
  "mcp-server": (v) => `now configures an MCP server: ${v}`,
  "allowed-tools": (v) => `now pre-approves the tool ${v}`,
  description: (v) => `the description now claims wider triggers: ${v}`,
  finding: (v) => `has a new ${v}`,
};

/**
 * How the risk surface changed from `before` to `after`: new destinations, credential paths, programs, scripts,
 * package runners, MCP servers, pre-approved tools, a widened description, and new findings at `warn` or above.
 * Things removed are not listed (a smaller surface needs no new consent); a changed wording yields no change.
 */
export function diffAudits(before: AuditReport, after: AuditReport): SecurityDiff {
  const changes: SurfaceChange[] = [];
  const had = new Set(before.inventory.map(key));
  for (const item of after.inventory) {
    const kind = KIND_OF[item.kind];
    if (kind === undefined || had.has(key(item))) continue;
    changes.push({
      kind,
      value: item.value,
      statement: SAY[kind](item.value),
      ...(item.locations[0] ? { where: item.locations[0] } : {}),
    });
  }
  const tools = new Set(before.surface.allowedTools);
  for (const tool of after.surface.allowedTools)
    if (!tools.has(tool)) changes.push({ kind: "allowed-tools", value: tool, statement: SAY["allowed-tools"](tool) });
  const oldCodes = new Set(before.findings.map((f) => f.code));
  for (const f of after.findings) {
    if (f.level === "review" || oldCodes.has(f.code)) continue;
    oldCodes.add(f.code);
    const value = `${f.level} finding ${f.code}`;
    changes.push({
      kind: "finding",
      value,
      statement: `${SAY.finding(value)} (${f.message})`,
      where: { file: f.file, line: f.line, column: f.column },
    });
  }
  const widened = widenedTriggers(before.surface.description, after.surface.description);
  if (widened.length > 0)
    changes.push({ kind: "description", value: widened.join(", "), statement: SAY.description(widened.join(", ")) });
  return { changes, verdict: { before: before.verdict, after: after.verdict }, grew: changes.length > 0 };
}

const key = (item: InventoryItem) => `${item.kind}\u0000${item.value}`;

// Words that add no trigger of their own; the comparison is over what is left.
const STOP = new Set(
  "a an and are as at be by can do does for from how i if in into is it its me my of on or so that the their them then this to use used uses using when whenever which while with you your skill skills".split(
    " ",
  ),
);

/**
 * Trigger words the new description adds, when it adds many (a rewording swaps a few words; widening a skill's reach
 * adds a list). Threshold: at least 5 new words that are also at least half as many as the old description had.
 */
function widenedTriggers(before: string, after: string): string[] {
  const words = (s: string) =>
    new Set(
      s
        .toLowerCase()
        .match(/[a-z][a-z0-9+#.-]{2,}/g)
        ?.filter((w) => !STOP.has(w)) ?? [],
    );
  const old = words(before);
  const added = [...words(after)].filter((w) => !old.has(w) && !old.has(w.replace(/s$/, "")) && !old.has(`${w}s`));
  return added.length >= 5 && added.length >= old.size / 2 ? added.slice(0, 12) : [];
}
