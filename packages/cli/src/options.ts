import { InvalidArgumentError } from "commander";

/** Commander parser for counts and sizes: a whole number ≥ 0. */
export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0) throw new InvalidArgumentError(`expected a whole number ≥ 0, got ${JSON.stringify(value)}`);
  return parsed;
}
