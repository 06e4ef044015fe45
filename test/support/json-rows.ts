// Adversarial JSON rows for the Parquet byte paths' property tests (test/unit/parquet-scan.test.ts,
// test/unit/parquet-staged.test.ts): keys that are Object.prototype's names, quoted or accented;
// values of every JSON kind, dates and near-dates, numbers at the edges of their types.
import fc from 'fast-check';

export const KEYS = ['id', 'amount', 'when', '__proto__', 'constructor', 'é ü', 'q"uote', 'n'];
export const dateText = fc.stringMatching(/^\d{4}-[01]\d-[0-3]\d([T ][0-2]\d:[0-6]\d(:[0-6]\d(\.\d{1,4})?)?(Z|[+-][0-2]\d:?[0-6]\d)?)?$/);

/** One row of up to six members; `loneSurrogates` adds strings holding half a UTF-16 pair. */
export function jsonRow({ loneSurrogates = false } = {}): fc.Arbitrary<Record<string, unknown>> {
  const value: fc.Arbitrary<unknown> = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.maxSafeInteger(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(-0, 0.1, 1.5, 1e21, 2 ** 53, 2 ** 63, 123456789012345.6, 0.000001, 5e-7, 12.34, -98.7),
    dateText,
    fc.string({ unit: 'binary' }),
    fc.constantFrom('', '1,234', '007', '12%', 'true', '2024-02-30', '0001-01-01T00:00:00+01:00', ...(loneSurrogates ? ['\ud800', 'a\udc00'] : [])),
    fc.jsonValue({ maxDepth: 2 }).filter((v) => typeof v === 'object'),
  );
  return fc.dictionary(fc.constantFrom(...KEYS, 'other', 'idx', 'n\\'), value, { maxKeys: 6 });
}

/** Equal as JSON.parse gives them: -0 is not 0, objects compared by their JSON. */
export const same = (a: unknown, b: unknown) => (typeof a === 'object' && a !== null ? JSON.stringify(a) === JSON.stringify(b) : Object.is(a, b));
