// Prints one plain closing line, `tests: N passed, N failed[, N skipped]`, that any CI log reader
// understands; before it, each test skipped with a reason (`ctx.skip(reason)`: a test that needs
// root run without it) and that reason.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const r = t.result();
        if (r.state === 'passed') passed++;
        else if (r.state === 'failed') failed++;
        else skipped++;
        if (r.state === 'skipped' && r.note) console.log(`skipped: ${m.moduleId.replace(`${process.cwd()}/`, '')} › ${t.fullName}: ${r.note}`);
      }
      // A file can fail outside its tests (a hook, an import): that is a failure too.
      const testsFailed = [...m.children.allTests()].some((t) => t.result().state === 'failed');
      if (m.state() === 'failed' && !testsFailed) failed++;
    }
    failed += unhandledErrors.length;
    console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  }
}
