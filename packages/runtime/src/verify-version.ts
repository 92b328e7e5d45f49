import { createHash } from "node:crypto";
import path from "node:path";
import { AgentSkillsError } from "@skillport/core";
import { openConfined } from "@skillport/fs";
import type { VersionManifest } from "./host-state.js";

export type VersionCheck = { ok: true } | { ok: false; reason: string };

/**
 * Whether `projects/<versionId>` still holds every file of its manifest, byte for byte (size and sha256), each at
 * its own path with no link on the way (opened, then the descriptor verified: a swapped-in link is a mismatch, not
 * a redirect). Extra files are allowed: an entrypoint may install into its own version (node_modules, .venv).
 * `projectsReal` must be the real path of projects/.
 */
export function verifyVersion(projectsReal: string, manifest: VersionManifest): VersionCheck {
  const boundary = path.join(projectsReal, manifest.versionId);
  for (const file of manifest.files) {
    let opened;
    try {
      opened = openConfined(boundary, file.path);
    } catch (error) {
      return { ok: false, reason: `${file.path}: ${error instanceof AgentSkillsError ? error.message : "unreadable"}` };
    }
    try {
      if (opened.size !== file.size) return { ok: false, reason: `${file.path}: size changed` };
      const bytes = opened.readAllSync(file.size);
      if (bytes === undefined || bytes.byteLength !== file.size)
        return { ok: false, reason: `${file.path}: size changed` };
      if (createHash("sha256").update(bytes).digest("hex") !== file.sha256)
        return { ok: false, reason: `${file.path}: content changed` };
    } finally {
      opened.close();
    }
  }
  return { ok: true };
}
