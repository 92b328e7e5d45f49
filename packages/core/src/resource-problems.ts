import type { Diagnostic } from "./diagnostics.js";
import { isSafeResourcePath } from "./safe-path.js";

/** The resource paths a skill made in code may not use: SKILL.md itself, and anything unsafe. */
export function resourcePathProblems(paths: Iterable<string>): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const path of paths) {
    if (path === "SKILL.md")
      out.push(problem("resource-path-invalid", "'SKILL.md' is the skill itself, not a resource"));
    else if (!isSafeResourcePath(path))
      out.push(
        problem(
          "resource-path-invalid",
          `resource path ${JSON.stringify(path)} must be a relative POSIX path inside the skill`,
        ),
      );
  }
  return out;
}

export function problem(code: string, message: string): Diagnostic {
  return { code, severity: "error", message, line: 0, column: 0 };
}
