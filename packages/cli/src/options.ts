import { InvalidArgumentError } from "commander";
import { CliError } from "./io.js";

/** Commander parser for counts and sizes: a whole number ≥ 0. */
export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0) throw new InvalidArgumentError(`expected a whole number ≥ 0, got ${JSON.stringify(value)}`);
  return parsed;
}

/** Parses a seconds option; undefined stays undefined (the library default applies). */
export function parseSeconds(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 1 || n > 600) throw new CliError(`${flag} must be a number of seconds between 1 and 600, got ${JSON.stringify(value)}`);
  return n;
}
