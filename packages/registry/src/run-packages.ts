// Package archives for the runner pool (issue 27, decision 0378): whole packages (`skills/<name>/…` + entrypoint.sh),
// addressed by pack's content-addressed versionId, which runners deploy. Unlike a skill version they have no name,
// version number or tags: a runner asks for exactly the bytes a job names and verifies them itself.
import { auditSkill, verdictOf, type Finding, type Verdict } from "@skillport/audit";
import { inspectPackage, readArchive, type PackageLimits } from "@skillport/pack";
import { sha256Hex } from "./blobs.js";
import { RegistryError } from "./errors.js";

/** A package archive, checked: its versionId, the sha256 of its bytes, its skills and the audit's worst verdict. */
export interface CheckedRunPackage {
  versionId: string;
  /** Hex sha256 of the archive: the blob it is stored under, and what a job's `digest` names. */
  blob: string;
  skills: string[];
  verdict: Verdict;
  findings: Finding[];
}

/** What the registry answers for a package. */
export interface RunPackageView {
  versionId: string;
  /** `sha256:<hex>` of the archive. */
  digest: string;
  size: number;
  skills: string[];
  verdict: Verdict;
  uploadedBy: string;
  createdAt: string;
}

export const VERSION_ID = /^[a-f0-9]{24}$/;

/**
 * Reads an uploaded package with pack's safe reader and layout check (the rules `unpack` and a runner's deploy apply),
 * computes its versionId as a deploy will, and audits each skill folder. A `malicious` skill refuses the whole upload:
 * the registry serves nothing it would hold (decision 0345), and a package has no hold workflow of its own.
 */
export async function checkRunPackage(bytes: Uint8Array, limits: Partial<PackageLimits>): Promise<CheckedRunPackage> {
  let inspection;
  let files;
  try {
    inspection = await inspectPackage(bytes, { limits });
    files = (await readArchive(bytes, { limits })).files;
  } catch (error) {
    throw new RegistryError(
      "REGISTRY_INVALID_PACKAGE",
      `the package was refused: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!inspection.valid) {
    const first = inspection.diagnostics.find((d) => d.severity === "error");
    throw new RegistryError(
      "REGISTRY_INVALID_PACKAGE",
      `the package was refused: ${first ? `${first.file === undefined ? "" : `${first.file}: `}${first.message}` : "invalid layout"}`,
      { details: inspection.diagnostics.filter((d) => d.severity === "error") },
    );
  }
  const findings: Finding[] = [];
  for (const skill of inspection.skills) {
    const prefix = `${skill.path}/`;
    const report = auditSkill(
      files
        .filter((f) => f.path.startsWith(prefix))
        .map((f) => ({ path: f.path.slice(prefix.length), bytes: f.bytes })),
    );
    findings.push(...report.findings.map((f) => ({ ...f, file: prefix + f.file })));
  }
  const verdict = verdictOf(findings);
  if (verdict === "malicious") {
    const first = findings.find((f) => f.level === "malicious");
    throw new RegistryError(
      "REGISTRY_HELD",
      `the package was refused: the audit found it malicious (${first?.code ?? "?"} in ${first?.file ?? "?"})`,
      { details: findings.filter((f) => f.level === "malicious") },
    );
  }
  return {
    versionId: inspection.versionId,
    blob: sha256Hex(bytes),
    skills: inspection.skills.map((s) => s.name),
    verdict,
    findings,
  };
}
