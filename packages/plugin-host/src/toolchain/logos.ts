import { readdir } from "node:fs/promises";
import { walkTree } from "@skillport/fs";
import { exists } from "./files.js";
import { join } from "node:path";
import { errorOf, warningOf, type PluginDiagnostic } from "./diagnostics.js";

/** Image types a logo may have (lowercase, as the file extension). */
export const LOGO_EXTENSIONS = ["svg", "png", "jpg", "jpeg", "webp", "gif"] as const;

/** Anything that looks meant as a logo: `logo.<x>` or `<something>.logo.<x>`, in any letter case. */
const LOGO_CANDIDATE = /(?:^|\.)logo\.[^.]*$/i;
const SAFE_FILE_NAME = /^[A-Za-z0-9._-]+$/;
const LOGO_NAME = /^(?:(?<child>.+)\.)?logo\.(?<ext>[^.]+)$/;

export interface LogoScan {
  /** The main logo's file name, when exactly one valid one exists. */
  main: string | undefined;
  /** Child id -> its own logo file name (children without one reuse `main`). */
  children: Map<string, string>;
  diagnostics: PluginDiagnostic[];
}

export type LogoVerdict =
  | { kind: "none" }
  | { kind: "main" }
  | { kind: "child"; childId: string }
  | { kind: "invalid"; code: string; message: string };

/** What one root file name means under the logo rules (pure: no file system). */
export function classifyLogoName(file: string, childIds: readonly string[]): LogoVerdict {
  if (!LOGO_CANDIDATE.test(file)) return { kind: "none" };
  const invalid = (code: string, message: string): LogoVerdict => ({ kind: "invalid", code, message });
  if (!SAFE_FILE_NAME.test(file)) {
    return invalid(
      "PLUGIN_LOGO_NAME",
      `logo file name ${JSON.stringify(file)} may use only ASCII letters, digits, '.', '_' and '-' (no spaces, Chinese or special characters)`,
    );
  }
  const match = LOGO_NAME.exec(file);
  if (match === null)
    return invalid(
      "PLUGIN_LOGO_NAME",
      `logo file ${file} must be named logo.<ext> or <childId>.logo.<ext> ('logo' in lowercase)`,
    );
  const ext = match.groups?.ext ?? "";
  if (!(LOGO_EXTENSIONS as readonly string[]).includes(ext)) {
    return invalid(
      "PLUGIN_LOGO_EXTENSION",
      `logo ${file} has an unsupported extension .${ext}; use one of ${LOGO_EXTENSIONS.map((e) => "." + e).join(", ")}`,
    );
  }
  const child = match.groups?.child;
  if (child === undefined) return { kind: "main" };
  if (!childIds.includes(child)) {
    const known = childIds.length === 0 ? "a single tool has no child tools" : `child ids: ${childIds.join(", ")}`;
    return invalid("PLUGIN_LOGO_UNKNOWN_CHILD", `logo ${file} matches no child id exactly (${known})`);
  }
  return { kind: "child", childId: child };
}

/**
 * Applies the logo rules to a plugin directory: `logo.<ext>` at the root (required, exactly one),
 * `<childId>.logo.<ext>` per child (optional, at most one, id matched exactly), allowed extensions only,
 * plain ASCII names, nothing logo-like under assets/.
 * `childIds` is empty for a single tool (it has no child logos).
 */
export async function scanLogos(entryDir: string, childIds: readonly string[]): Promise<LogoScan> {
  const diagnostics: PluginDiagnostic[] = [];
  const entries = await readdir(entryDir, { withFileTypes: true });
  const mains: string[] = [];
  const byChild = new Map<string, string[]>();
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const verdict = classifyLogoName(entry.name, childIds);
    if (verdict.kind === "none") continue;
    const file = entry.name;
    if (!entry.isFile()) {
      diagnostics.push(
        errorOf("PLUGIN_LOGO_NOT_FILE", `logo ${file} must be a regular file (not a directory or link)`, { file }),
      );
    } else if (verdict.kind === "invalid") {
      diagnostics.push(errorOf(verdict.code, verdict.message, { file }));
    } else if (verdict.kind === "main") {
      mains.push(file);
    } else {
      byChild.set(verdict.childId, [...(byChild.get(verdict.childId) ?? []), file]);
    }
  }
  if (mains.length === 0) {
    diagnostics.push(
      errorOf("PLUGIN_LOGO_MISSING", `no main logo: put logo.<ext> (${LOGO_EXTENSIONS.join(", ")}) in the plugin root`),
    );
  } else if (mains.length > 1) {
    diagnostics.push(
      errorOf("PLUGIN_LOGO_AMBIGUOUS", `more than one main logo (${mains.join(", ")}); keep exactly one`, {
        file: mains[1],
      }),
    );
  }
  const children = new Map<string, string>();
  for (const [child, files] of byChild) {
    if (files.length > 1) {
      diagnostics.push(
        errorOf(
          "PLUGIN_LOGO_AMBIGUOUS",
          `more than one logo for child ${JSON.stringify(child)} (${files.join(", ")}); keep exactly one`,
          { file: files[1] },
        ),
      );
    } else if (files[0] !== undefined) {
      children.set(child, files[0]);
    }
  }
  diagnostics.push(...(await logosUnderAssets(entryDir)));
  return { main: mains.length === 1 ? mains[0] : undefined, children, diagnostics };
}

async function logosUnderAssets(entryDir: string): Promise<PluginDiagnostic[]> {
  const assets = join(entryDir, "assets");
  if (!(await exists(assets))) return [];
  const walked = walkTree(assets, { links: "exclude", onProblem: "collect", checkNames: false });
  return walked.entries
    .filter((entry) => LOGO_CANDIDATE.test(entry.path.slice(entry.path.lastIndexOf("/") + 1)))
    .map((entry) =>
      errorOf(
        "PLUGIN_LOGO_IN_ASSETS",
        `logo assets/${entry.path} is under assets/; logos must sit in the plugin root`,
        { file: `assets/${entry.path}` },
      ),
    );
}

/**
 * A hand-written `icon` is replaced by the scanned logo; pointing it into assets/ breaks the rules outright.
 * `where` names the field, e.g. `manifest.icon` or `children[1].icon`.
 */
export function checkDeclaredIcon(icon: unknown, where: string, resolved: string | undefined): PluginDiagnostic[] {
  if (icon === undefined || icon === resolved) return [];
  if (typeof icon === "string" && /(^|\/)assets\//.test(icon.replace(/\\/g, "/").replace(/^\.\//, ""))) {
    return [
      errorOf(
        "PLUGIN_LOGO_IN_ASSETS",
        `${where} points into assets/ (${icon}); put the logo in the plugin root instead`,
      ),
    ];
  }
  return [
    warningOf(
      "PLUGIN_ICON_IGNORED",
      `${where} is set by the build from the logo files; the written value ${JSON.stringify(icon)} is ignored`,
    ),
  ];
}
