// A Vitest reporter that ends the run with one plain line, `tests: N passed, N failed, N skipped`, which CI systems
// that do not know Vitest's own summary can read.
export default class PlainSummaryReporter {
  onTestRunEnd(testModules, unhandledErrors = []) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      // A file that failed to load has no tests to count; count it as a failure.
      if (module.state() === "failed" && [...module.children.allTests()].length === 0) failed++;
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
