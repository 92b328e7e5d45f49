import { InvalidArgumentError } from "commander";
import { CliError } from "./io.js";

/** Commander parser for counts and sizes: a whole number ≥ 0. */
export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0)
    throw new InvalidArgumentError(`expected a whole number ≥ 0, got ${JSON.stringify(value)}`);
  return parsed;
}

/** Commander parser for a count that must be at least 1 (a limit of 0 would ask for nothing). */
export function atLeastOne(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError(`expected a whole number ≥ 1, got ${JSON.stringify(value)}`);
  return parsed;
}

/** Parses a seconds option; undefined stays undefined (the library default applies). */
export function parseSeconds(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 1 || n > 600)
    throw new CliError(`${flag} must be a number of seconds between 1 and 600, got ${JSON.stringify(value)}`);
  return n;
}
