// Adversarial source pages for the differential format test (format-differential.ts): a "world" is
// a source's rows written as JSON text by hand, so duplicate keys, escapes and exact number
// spellings reach the service as a source could send them. What the source MEANT is JSON.parse of
// that text (the last of duplicate keys wins, as in every JSON.parse); the expected file values
// are derived from it by the documented rules (expected.ts), never by the product's code.
import fc from 'fast-check';

export type Kind = 'text' | 'int' | 'num' | 'bool' | 'date' | 'datetime' | 'datetimeZ' | 'nested' | 'nullThenInt' | 'intThenDecimal' | 'any';

export interface World {
  /** Each row's JSON text, in order. */
  rows: string[];
  pageSize: number;
  /** max_file_rows of every export of this world (parts), or none. */
  maxFileRows?: number | undefined;
  /** A template of flat leaves the source's first answer brings (not Parquet's: its template types are tested in parquet-render-exact.test.ts), as JSON text. */
  template?: string | undefined;
}

// Keys named like Object.prototype members, with commas, quotes, formula starts, NUL, tabs, line
// breaks, astral, combining and right-to-left characters, and Excel's own _xHHHH_ escape.
const PROTO_KEYS = ['constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty'];
const KEYS = ['id', 'name', ...PROTO_KEYS, 'a,b', 'c;d', 'e|f', 'q"uote', '=cmd', '+1', '-x', '@at', 'nul\u0000key', 'tab\tkey', 'line\nbreak', '客户', '😀', 'e\u0301', '\u202eRTL', ' sp ', '_x0041_'];

// Text fragments, each with its JSON spellings (raw where JSON allows it, escaped otherwise).
const FRAGMENTS: Array<[string, ...string[]]> = [
  ['a', 'a', '\\u0061'],
  ['Zz9', 'Zz9'],
  [',', ','],
  [';', ';'],
  ['|', '|'],
  ['"', '\\"', '\\u0022'],
  ['\\', '\\\\'],
  ['/', '/', '\\/'],
  ['\r', '\\r', '\\u000d'],
  ['\n', '\\n', '\\u000A'],
  ['\r\n', '\\r\\n'],
  ['\t', '\\t', '\\u0009'],
  ['\u0000', '\\u0000'],
  ['\u0001', '\\u0001'],
  ['\u001f', '\\u001f'],
  ['\b\f', '\\b\\f'],
  ['=', '='],
  ['+', '+'],
  ['-', '-'],
  ['@', '@'],
  ['＝', '＝', '\\uff1d'],
  ['＋', '＋'],
  ['－', '－'],
  ['＠', '＠'],
  [' ', ' '],
  ['中文', '中文', '\\u4e2d\\u6587'],
  ['😀', '😀', '\\ud83d\\ude00'],
  ['e\u0301', 'e\u0301', 'e\\u0301'],
  ['\u202e', '\u202e', '\\u202e'],
  ['שלום', 'שלום'],
  ['\ud800', '\\ud800'],
  ['\udfff', '\\udfff'],
  ['\ufffe', '\\ufffe'],
  ['\u2028', '\u2028', '\\u2028'],
  ['_x0041_', '_x0041_'],
  ['&<>', '&<>'],
  [']]>', ']]>'],
  ['1,234', '1,234'],
  ['0012', '0012'],
  ['-12.5', '-12.5'],
  ["'", "'"],
];

/** A JSON string's text: fragments, each in one of its spellings. */
const jsonText = (maxPieces = 6): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...FRAGMENTS).chain(([, ...spellings]) => fc.constantFrom(...spellings)), { maxLength: maxPieces }).map((ps) => `"${ps.join('')}"`);

/** A key's JSON text, plainly or with an ASCII letter escaped. */
const keyText = (key: string): fc.Arbitrary<string> => {
  const plain = JSON.stringify(key);
  const i = [...key].findIndex((c) => /[a-z]/.test(c));
  if (i < 0) return fc.constant(plain);
  const chars = [...key];
  const escaped = JSON.stringify(chars.slice(0, i).join('')).slice(0, -1) + `\\u00${chars[i]!.charCodeAt(0).toString(16)}` + JSON.stringify(chars.slice(i + 1).join('')).slice(1);
  return fc.constantFrom(plain, escaped);
};

const SAFE_INTS = ['0', '1', '-17', '100', '9007199254740991', '-9007199254740991', '1E2', '2e0'];
const BIG_INTS = ['-0', '9007199254740992', '9007199254740993', '-9007199254740993', '18446744073709551616', '123456789012345678901234', '1e21'];
const FRACTIONS = ['1.5', '-12.50', '0.1', '1E-7', '1e-7', '2.5e-3', '3.14159265358979323846', '123456789.123456789', '-0.0', '5e-324', '1.7976931348623157e308', '0.000001', '1.0000000000000002'];
const int = (big: boolean) => fc.oneof(fc.constantFrom(...SAFE_INTS, ...(big ? BIG_INTS : [])), fc.integer().map(String));
const fraction = fc.oneof(fc.constantFrom(...FRACTIONS), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }).filter((d) => !Number.isInteger(d)).map(String));

const pad = (n: number, w: number) => String(n).padStart(w, '0');
const ymd = (d: Date) => `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
const hms = (d: Date) => `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
/** Dates 0001–9999 (from 0100 when Parquet must avoid the years its old writer moved). */
const day = (fromYear: number, last = Date.UTC(9999, 11, 31, 23, 59, 59)) => {
  const first = new Date(0);
  first.setUTCFullYear(fromYear, 0, 1);
  return fc.date({ min: first, max: new Date(last), noInvalidDate: true });
};
const IMPOSSIBLE_DATES = ['"2023-02-29"', '"2026-13-01"', '"2026-04-31"', '"0000-01-01"', '"2026-11-03 24:00:00"'];

const NESTED = ['{}', '[]', '{"a":1,"b":[1,2,{"c":null}]}', '[1,"x",null,true]', '{"__proto__":1,"constructor":"c"}', '{"k":"=1"}', '[{"a":"\\u0000"}]', '{"a":1,"a":2}', '[9007199254740993,1e21,-0]'];

const kindValue = (kind: Kind, at: number): fc.Arbitrary<string> => {
  switch (kind) {
    case 'text':
      return jsonText();
    case 'int':
      return int(true);
    case 'num':
      return fc.oneof(int(true), fraction);
    case 'bool':
      return fc.constantFrom('true', 'false');
    case 'date':
      return fc.oneof({ weight: 4, arbitrary: day(1).map((d) => `"${ymd(d)}"`) }, fc.constantFrom(...IMPOSSIBLE_DATES));
    case 'datetime':
      return fc.tuple(day(1), fc.constantFrom(' ', 'T')).map(([d, t]) => `"${ymd(d)}${t}${hms(d)}"`);
    case 'datetimeZ':
      // Up to 9999-12-30: an offset must not carry the instant past year 9999 (no reader's range).
      return fc.tuple(day(1000, Date.UTC(9999, 11, 30)), fc.constantFrom('Z', '+08:00', '-05:30', '+00:00')).map(([d, z]) => `"${ymd(d)}T${hms(d)}${z}"`);
    case 'nested':
      return fc.constantFrom(...NESTED);
    case 'nullThenInt':
      return at < 2 ? fc.constant('null') : int(true);
    case 'intThenDecimal':
      return at < 2 ? int(true) : fraction;
    case 'any':
      return fc.oneof(jsonText(), int(false), fraction, fc.constantFrom('true', 'null', '{"x":[]}'), day(1).map((d) => `"${ymd(d)}"`));
  }
};

interface Column {
  key: string;
  kind: Kind;
}

const ALL_KINDS: Kind[] = ['text', 'int', 'num', 'bool', 'date', 'datetime', 'datetimeZ', 'nested', 'nullThenInt', 'intThenDecimal', 'any'];

/** How a column's member appears in one row. */
type Presence = 'value' | 'null' | 'absent' | 'duplicate';

const ws = fc.constantFrom('', '', ' ', '\n  ');

/** One row's JSON text: members in column order (a duplicate's decoy first), maybe an extra key. */
function rowText(columns: Column[], at: number, first: boolean): fc.Arbitrary<string> {
  const member = (c: Column) =>
    fc
      .tuple(
        keyText(c.key),
        kindValue(c.kind, at),
        // The first row has every column (its keys are the columns); Parquet's first row a value.
        first ? fc.constantFrom<Presence>('value', 'duplicate') : fc.constantFrom<Presence>('value', 'value', 'null', 'absent', 'duplicate'),
        fc.oneof(jsonText(2), fc.constant('null'), int(true)),
        ws,
      )
      .map(([k, v, presence, decoy, space]) => {
        if (presence === 'absent') return '';
        const value = presence === 'null' ? 'null' : v;
        const real = `${k}${space}:${space}${value}`;
        return presence === 'duplicate' ? `${k}:${decoy},${real}` : real;
      });
  const extra = fc.option(fc.constant('"late_key":"a key no first row has"'), { freq: 4 });
  return fc.tuple(fc.tuple(...columns.map(member)), extra, ws).map(([members, late, space]) => {
    const parts = members.filter((m) => m !== '');
    if (late && !first) parts.push(late);
    return `{${space}${parts.join(`,${space}`)}}`;
  });
}

/** The rows of one world, over the given columns. */
function rowsOf(columns: Column[], count: number): fc.Arbitrary<string[]> {
  return fc.tuple(...Array.from({ length: count }, (_, i) => rowText(columns, i, i === 0)));
}

const columnsArb = (kinds: Kind[], keys: string[]) =>
  fc.uniqueArray(fc.constantFrom(...keys), { minLength: 2, maxLength: 7 }).chain((ks) => fc.tuple(...ks.map((key) => fc.constantFrom(...kinds).map((kind) => ({ key, kind })))));

/** Leaves named like the rows' keys or like none of them, titled adversarially (formula starts, NUL, CR …). */
const templateArb = fc
  .uniqueArray(fc.constantFrom(...KEYS, 'no_row_has_it', 'toLocaleString'), { minLength: 1, maxLength: 5 })
  .chain((names) => fc.tuple(...names.map((n) => fc.tuple(fc.constant(n), fc.option(jsonText(3).filter((t) => t !== '""'), { nil: undefined })))))
  .map((leaves) => `[${leaves.map(([n, t]) => `{"name":${JSON.stringify(n)}${t === undefined ? '' : `,"title":${t}`}}`).join(',')}]`);

export const worldArb: fc.Arbitrary<World> = fc
  .record({ total: fc.integer({ min: 1, max: 9 }), pageSize: fc.integer({ min: 1, max: 4 }), maxFileRows: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }) })
  .chain(({ total, pageSize, maxFileRows }) =>
    fc
      .record({
        rows: columnsArb(ALL_KINDS, KEYS).chain((cols) => rowsOf(cols, total)),
        template: fc.option(templateArb, { nil: undefined, freq: 3 }),
      })
      .map(({ rows, template }) => ({ rows, pageSize, maxFileRows, template })),
  );

/** The source's answer for one request: the rows of that page, with the total. */
export function pageText(rows: string[], page: number, pageSize: number): string {
  return `{"total":${rows.length},"data":[${rows.slice(page * pageSize, (page + 1) * pageSize).join(',')}]}`;
}

/** Worlds the generator found failing once, kept as fixed examples (test/unit/format-differential.test.ts). */
export const FOUND: Record<string, World> = {
  // CSV failed the export (source_bad_response) and xlsx wrote "function Object() { [native code] }".
  'a key named like an Object.prototype member, absent from a row, is empty or null': {
    rows: ['{"constructor":1,"__proto__":"p","toString":"t","valueOf":null,"id":1}', '{"id":2}', '{"__proto__":{"x":1}}'],
    pageSize: 2,
    maxFileRows: 2,
  },
  // A CSV row whose only field was empty was a blank line: no record to Python's csv, DuckDB or pandas.
  'a CSV row whose only field is empty is a record (was a blank line)': {
    rows: ['{"id":""}', '{"id":null}', '{}', '{"id":"x"}'],
    pageSize: 3,
    template: '[{"name":"id"}]',
  },
  // Parquet's JSON column dropped an own "__proto__" key of a nested value (its writer's toJson
  // assigned keys; the patch of hyparquet in patches/ defines them). Seed -869717638.
  'a nested value keeps an own "__proto__" key in Parquet': {
    rows: ['{"id":1,"j":{}}', '{"id":2,"j":{"__proto__":1,"constructor":"c"}}', '{"id":3,"j":[{"__proto__":{"x":1}}]}'],
    pageSize: 1,
    maxFileRows: 2,
  },
  // An integer at 2^53 made the expected Parquet column DOUBLE while the file holds INT64: both hold
  // the parsed value exactly; the rule is INT64 while int64 holds it. Seed 1864107287.
  'an integer at and past 2^53 is INT64 in Parquet while int64 holds it': {
    rows: ['{"a":0,"b":1}', '{"a":9007199254740992,"b":9007199254740993}', '{"a":-9007199254740993,"b":1e21}'],
    pageSize: 2,
  },
  // xlsx wrote a CR as itself, which XML's end-of-line handling turns into LF for every reader.
  'a CR in xlsx text stays a CR (was read as LF)': { rows: ['{"id":1,"t":"a\\rb\\r\\nc\\r"}', '{"id":2,"t":"\\r"}'], pageSize: 2 },
  // Every CSV dialect's delimiter inside values, as bytes copied (raw) and as decoded text (escaped).
  'a value holding any dialect\'s delimiter stays one field': {
    rows: ['{"id":1,"t":"a;b","u":"c|d","v":"e\\tf"}', '{"id":2,"t":"\\u003b","u":"=x|y","v":"g,h"}', '{"id":3,"t":";","u":"|","v":"\\"\\t\\""}'],
    pageSize: 2,
  },
};
