// Prints one plain closing line, `tests: N passed, N failed[, N skipped]`, that any CI log reader understands.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === 'passed') passed++;
        else if (s === 'failed') failed++;
        else skipped++;
      }
      // A file can fail outside its tests (a hook, an import): that is a failure too.
      const testsFailed = [...m.children.allTests()].some((t) => t.result().state === 'failed');
      if (m.state() === 'failed' && !testsFailed) failed++;
    }
    failed += unhandledErrors.length;
    console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  }
}
