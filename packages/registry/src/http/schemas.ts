import { z } from "zod";

// Answer shapes, for the OpenAPI document (the store's types are the source; these describe them for clients).
const Finding = z.object({
  code: z.string(),
  level: z.enum(["review", "warn", "malicious"]),
  file: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  message: z.string(),
  fix: z.string(),
  evidence: z.string(),
});

const Audit = z
  .object({ verdict: z.enum(["pass", "review", "warn", "malicious"]), findings: z.array(Finding) })
  .describe("the audit at publish; findings are listed for every verdict but pass");

const Hold = z.enum(["held", "rejected"]).nullable();

const FileEntry = z.object({
  path: z.string(),
  size: z.number().int(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  mode: z.number().int(),
});

export const SkillSummary = z.object({
  skill: z.string().describe("`@namespace/name` or `name`"),
  namespace: z.string().nullable(),
  name: z.string(),
  description: z.string(),
  version: z.string(),
  tags: z.record(z.string(), z.string()),
  updatedAt: z.string(),
  audit: Audit,
  confidence: z.number().optional().describe("search only: calibrated confidence, 0–1"),
});

export const SkillView = SkillSummary.extend({
  owner: z.string(),
  versions: z.array(
    z.object({
      version: z.string(),
      publishedAt: z.string(),
      changelog: z.string(),
      yanked: z.boolean(),
      hold: Hold,
      verdict: Audit.shape.verdict,
    }),
  ),
});

export const VersionView = z.object({
  skill: z.string(),
  namespace: z.string().nullable(),
  name: z.string(),
  version: z.string(),
  description: z.string(),
  digest: z.string().describe("sha256 of the .skill archive download serves"),
  contentDigest: z.string().describe("sha256 content address of the files"),
  size: z.number().int(),
  changelog: z.string(),
  publishedAt: z.string(),
  publishedBy: z.string(),
  tags: z.array(z.string()),
  yanked: z.boolean(),
  hold: Hold,
  audit: Audit,
  frontmatter: z.record(z.string(), z.unknown()),
  files: z.array(FileEntry),
});

export const PublishAnswer = z.object({ created: z.boolean(), version: VersionView });

export const Namespace = z.object({
  name: z.string(),
  members: z.array(z.object({ user: z.string(), role: z.enum(["owner", "member"]) })),
});

export const TokenAnswer = z.object({
  token: z.string().describe("shown once; only its hash is stored"),
  id: z.string(),
  user: z.string(),
  scopes: z.array(z.enum(["read", "publish", "admin"])),
});

export const HeldList = z.object({
  held: z.array(
    z.object({
      skill: z.string(),
      version: z.string(),
      verdict: Audit.shape.verdict,
      findings: z.array(Finding),
      publishedBy: z.string(),
      publishedAt: z.string(),
    }),
  ),
});

export const LogList = z.object({
  entries: z.array(
    z.object({
      id: z.string(),
      at: z.string(),
      actor: z.string(),
      action: z.string(),
      target: z.string(),
      detail: z.record(z.string(), z.unknown()),
    }),
  ),
});

export const DiscoveryIndex = z.object({
  $schema: z.string(),
  skills: z.array(
    z.object({
      name: z.string(),
      type: z.literal("archive"),
      description: z.string(),
      url: z.string(),
      digest: z.string(),
    }),
  ),
});

export const Reason = z.object({ reason: z.string().max(1000).default("") });

export const RunPackage = z.object({
  versionId: z
    .string()
    .regex(/^[a-f0-9]{24}$/)
    .describe("pack's content address of the package's files"),
  digest: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/)
    .describe("sha256 of the archive bytes: what a runner job names"),
  size: z.number().int(),
  skills: z.array(z.string()),
  verdict: z
    .enum(["pass", "review", "warn"])
    .describe("the worst audit verdict over its skills (malicious is refused)"),
  uploadedBy: z.string(),
  createdAt: z.string(),
});
