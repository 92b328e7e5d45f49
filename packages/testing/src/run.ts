import type { SkillProvider } from "@skillport/core";
import {
  conformanceCases,
  type ConformanceCase,
  type ConformanceContext,
  type ConformanceOptions,
} from "./cases/index.js";

export type ProviderFactory = () => SkillProvider | Promise<SkillProvider>;

export interface ConformanceFailureReport {
  id: string;
  title: string;
  /** What went wrong, in one line. */
  error: string;
}

export interface ConformanceReport {
  /** Ids of the cases that passed, in run order. */
  passed: string[];
  failed: ConformanceFailureReport[];
}

function contextFor(
  testCase: ConformanceCase,
  makeProvider: ProviderFactory,
  options: ConformanceOptions,
): () => Promise<ConformanceContext> {
  const factory =
    testCase.suite === "content-limit" && options.contentLimit ? options.contentLimit.makeProvider : makeProvider;
  const make = async () => await factory();
  return async () => ({ provider: await make(), makeProvider: make });
}

/** Runs one case with a fresh provider; resolves to undefined on success or the failure message. */
export async function runConformanceCase(
  testCase: ConformanceCase,
  makeProvider: ProviderFactory,
  options: ConformanceOptions = {},
): Promise<string | undefined> {
  try {
    await testCase.run(await contextFor(testCase, makeProvider, options)());
    return undefined;
  } catch (error) {
    return error instanceof Error
      ? `${error.name === "ConformanceFailure" ? "" : `${error.name}: `}${error.message}`
      : String(error);
  }
}

/**
 * Runs every applicable case, one after another, each with a fresh provider from `makeProvider`
 * (which must serve the fixture: see writeConformanceFixture / conformanceFixtureSkill).
 */
export async function runConformance(
  makeProvider: ProviderFactory,
  options: ConformanceOptions = {},
): Promise<ConformanceReport> {
  const report: ConformanceReport = { passed: [], failed: [] };
  for (const testCase of conformanceCases(options)) {
    const error = await runConformanceCase(testCase, makeProvider, options);
    if (error === undefined) report.passed.push(testCase.id);
    else report.failed.push({ id: testCase.id, title: testCase.title, error });
  }
  return report;
}

/** The two functions of a vitest/jest/mocha-style runner the kit needs; pass yours in. */
export interface TestRunnerFunctions {
  describe: (name: string, body: () => void) => void;
  it: (name: string, body: () => Promise<void>) => void;
}

/**
 * Declares one test per case under `describe(name)`. `setup` makes a provider serving the fixture (called per case).
 * The kit stays free of any test-runner dependency: `describeConformance("memory", make, { describe, it })`.
 */
export function describeConformance(
  name: string,
  setup: ProviderFactory,
  runner: TestRunnerFunctions,
  options: ConformanceOptions = {},
): void {
  runner.describe(`${name} conforms to the provider contract`, () => {
    for (const testCase of conformanceCases(options)) {
      runner.it(`${testCase.id} ${testCase.title}`, async () => {
        const error = await runConformanceCase(testCase, setup, options);
        if (error !== undefined) throw new Error(`${testCase.id}: ${error}`);
      });
    }
  });
}
