import type { SchemaIssue } from "./definition.js";

/** `items[0].name` from zod's path array; `(root)` when the value itself is wrong. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "(root)" : out;
}

/** One line naming every failing field, e.g. `input field "query": Too small…; input field "n": …`. */
export function formatIssues(kind: "input" | "output" | "secret", issues: readonly SchemaIssue[]): string {
  const shown = issues
    .slice(0, 5)
    .map((issue) => `${kind} field "${formatIssuePath(issue.path)}": ${describeIssue(issue)}`);
  if (issues.length > shown.length) shown.push(`and ${issues.length - shown.length} more`);
  return shown.join("; ");
}

/** zod says "expected string, received undefined" for a missing field; people say "is required". */
function describeIssue(issue: SchemaIssue): string {
  return issue.code === "invalid_type" && issue.message.endsWith("received undefined") ? "is required" : issue.message;
}
