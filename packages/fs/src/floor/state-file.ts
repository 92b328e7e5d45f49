/**
 * What a state or cache file's reader needs of a zod v4 schema (classic or mini): `safeParse`. Structural, so this
 * floor module loads no zod; each reader brings its own schema.
 */
export interface StateSchema<T> {
  safeParse(
    data: unknown,
  ): { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<StateIssue> } };
}

interface StateIssue {
  readonly path: ReadonlyArray<PropertyKey>;
  readonly code?: string;
  readonly expected?: string;
  readonly message: string;
}

/**
 * Parses a state or cache file's text through its schema (decision 0321): the value, or why it cannot be used — never
 * "malformed read as empty". A truncated or non-JSON file, a foreign shape, a wrong type deep inside: each is a
 * `problem` naming where. The caller decides what that means: a cache says so and rebuilds, records that matter
 * refuse to go on.
 */
export function parseStateText<T>(text: string, schema: StateSchema<T>): { value: T } | { problem: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { problem: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const result = schema.safeParse(data);
  if (result.success) return { value: result.data };
  const [first] = result.error.issues;
  const more = result.error.issues.length - 1;
  const where = first && first.path.length > 0 ? `at ${first.path.map(String).join(".")}` : "at the top";
  const what =
    first?.code === "invalid_type" && first.expected !== undefined
      ? `expected ${first.expected}`
      : (first?.message ?? "invalid");
  return { problem: `not the expected shape: ${where}, ${what}${more > 0 ? ` (and ${more} more)` : ""}` };
}
