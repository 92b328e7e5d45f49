/**
 * Which workers a call may share (issue 8, hole 7): a keyed hash of its secret set. Plugin code can keep anything
 * it saw in module globals, so a worker only ever serves calls with the same secrets. HMAC with a key that lives
 * only in this host process: the label is safe to keep in memory and in stats, and nobody can test a guess of a
 * secret against it.
 */
import { createHmac, randomBytes } from "node:crypto";
import { serialize } from "node:v8";

export type Partitioner = (secrets: unknown) => string;

export function createPartitioner(key: Buffer = randomBytes(32)): Partitioner {
  return (secrets) =>
    createHmac("sha256", key)
      .update(serialize(canonical(secrets ?? {}, 0)))
      .digest("base64url");
}

/** The same secrets in any key order give the same bytes: plain objects are rebuilt with sorted keys. */
function canonical(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null || depth > 50) return value;
  if (Array.isArray(value)) return value.map((item) => canonical(item, depth + 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    Object.defineProperty(out, key, {
      value: canonical((value as Record<string, unknown>)[key], depth + 1),
      enumerable: true,
    });
  }
  return out;
}
