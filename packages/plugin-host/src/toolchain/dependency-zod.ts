/**
 * zod stays external so a plugin's schemas and the host share one copy. A dependency written for another zod
 * major (firecrawl's SDK imports zod 3) must not get the host's zod 4: it keeps its own, bundled. Only imports
 * from inside node_modules qualify; the plugin's own `import "zod"` is always the host's.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, sep } from "node:path";
import { packageRoot } from "../host/load.js";

const NODE_MODULES = `${sep}node_modules${sep}`;

/** The major version of the zod package that contains `file`, or undefined when it cannot be read. */
export function zodMajorAt(file: string): number | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(packageRoot(file, "zod"), "package.json"), "utf8")) as {
      name?: unknown;
      version?: unknown;
    };
    if (pkg.name !== "zod" || typeof pkg.version !== "string") return undefined;
    const major = Number.parseInt(pkg.version, 10);
    return Number.isNaN(major) ? undefined : major;
  } catch {
    return undefined; // no readable package.json
  }
}

let hostMajor: number | undefined;

/** The major of the zod the host provides to plugins. */
export function hostZodMajor(): number | undefined {
  if (hostMajor === undefined) {
    try {
      hostMajor = zodMajorAt(createRequire(import.meta.url).resolve("zod"));
    } catch {
      hostMajor = undefined;
    }
  }
  return hostMajor;
}

/** True when an import of zod from `importer`, resolving to `resolved`, needs its own bundled copy. */
export function needsOwnZod(importer: string, resolved: string | undefined): boolean {
  if (resolved === undefined || !importer.includes(NODE_MODULES)) return false;
  const major = zodMajorAt(resolved);
  const host = hostZodMajor();
  return major !== undefined && host !== undefined && major !== host;
}
